// The key table behind the training rendezvous (runtime/rendezvous_store.h) and its wire format.
// Torch-free.
//
// Frames (both ways): a 4-byte first word (the op of a request, the status of a reply), a 4-byte
// argument count (at most kMaxArgs), then per argument a 4-byte length and the bytes; all
// little-endian. ReadRendezvousFrame checks the count, each length (at most kMaxValueBytes) and
// the frame's running total (at most kMaxRendezvousFrameBytes) before it allocates anything.
// RendezvousKeys::Execute runs one request: keys at most kMaxKeyBytes, the table at most
// kMaxStoreBytes of keys and values (a set beyond fails with kError), waits (get, wait) up to
// the request's timeout (kTimeout then) or until Stop.
#ifndef JIGSAW_RUNTIME_RENDEZVOUS_KEYS_H_
#define JIGSAW_RUNTIME_RENDEZVOUS_KEYS_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace jigsaw {

inline constexpr uint32_t kMaxArgs = 1024;
inline constexpr uint32_t kMaxKeyBytes = 4096;
inline constexpr uint32_t kMaxValueBytes = 64u << 20;
inline constexpr uint64_t kMaxRendezvousFrameBytes = 2ull * kMaxValueBytes + (4ull << 20);
inline constexpr uint64_t kMaxStoreBytes = uint64_t{1} << 30;

enum RendezvousOp : uint32_t {
  kRvSet = 1,         // key, value
  kRvGet = 2,         // key, timeout_ms (8 bytes) -> value
  kRvAdd = 3,         // key, delta (8 bytes) -> new value (8 bytes); stored as decimal text
  kRvCompareSet = 4,  // key, expected, desired -> the value now
  kRvDelete = 5,      // key -> 1 byte: whether it existed
  kRvCheck = 6,       // keys... -> 1 byte: whether all exist
  kRvNumKeys = 7,     // -> 8 bytes
  kRvWait = 8,        // timeout_ms (8 bytes), keys...
};
enum RendezvousStatus : uint32_t { kRvOk = 0, kRvTimeout = 1, kRvError = 2 };

using RendezvousArgs = std::vector<std::string>;

// False on a clean end of stream before the frame; throws std::runtime_error on a bound
// violation, a truncated frame or a socket error.
bool ReadRendezvousFrame(int fd, uint32_t* first, RendezvousArgs* args);
void WriteRendezvousFrame(int fd, uint32_t first, const RendezvousArgs& args);

std::string EncodeInt64(int64_t value);
// Throws std::runtime_error unless `bytes` is 8 bytes.
int64_t DecodeInt64(const std::string& bytes);

class RendezvousKeys {
 public:
  struct Result {
    uint32_t status = kRvOk;
    RendezvousArgs args;  // kRvError: one argument, the message
  };
  Result Execute(uint32_t op, const RendezvousArgs& args);
  // Wakes every waiting request (they answer kRvError) and refuses later ones.
  void Stop();

 private:
  Result Run(uint32_t op, const RendezvousArgs& args, std::unique_lock<std::mutex>& lock);
  Result Set(const std::string& key, const std::string& value);
  Result WaitFor(const RendezvousArgs& keys, int64_t timeout_ms,
                 std::unique_lock<std::mutex>& lock);
  bool Has(const RendezvousArgs& keys) const;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
  uint64_t bytes_ = 0;
  bool stopped_ = false;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_RENDEZVOUS_KEYS_H_
