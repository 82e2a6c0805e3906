// The rendezvous of a multi-host training job (`jigsaw train --rank K --world N --master
// HOST:PORT --token-file F`): a c10d::Store of our own.
//
// Why not c10d::TCPStore: LibTorch 1.13's TCPStore binds every interface (its options have a
// port but no address) and authenticates nobody: any peer that reaches the port can set or read
// keys, and its length fields size the server's buffers (512 MiB per connection were allocated
// that way). This store instead
//  - listens on the master address only (HOST:PORT, never *:PORT), hosted in rank 0's process;
//  - makes every connection prove the job's token before anything else: the handshake is the
//    parameter server's (core/handshake_acceptor.h, core/handshake_client.h): a JPS2 kHello with
//    the token, rank = the connecting rank (1..world-1), step = world, answered kWelcome; a peer
//    with another token, world size, or a rank outside 1..world-1 or already connected is refused
//    before any key is read; one deadline per connection for its whole hello; one slow peer never
//    blocks the accept loop; the listener closes once every rank has connected;
//  - bounds every length before it allocates: a request is a 4-byte op and a 4-byte argument
//    count (at most kMaxArgs), then per argument a 4-byte length and the bytes; keys are at most
//    kMaxKeyBytes, values kMaxValueBytes, and the store as a whole holds at most kMaxStoreBytes
//    (a set beyond that fails). Replies are a 4-byte status and arguments the same way.
// Rank 0 uses the keys in-process; the others over their one connection (one request at a time,
// as TCPStore's client). get() and wait() block until the keys exist or getTimeout() passes, then
// throw std::runtime_error naming the keys; a broken connection throws too. All integers are
// little-endian. Thread-safe.
#ifndef JIGSAW_RUNTIME_RENDEZVOUS_STORE_H_
#define JIGSAW_RUNTIME_RENDEZVOUS_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "core/socket.h"
#include "core/wire_message.h"

namespace jigsaw {

struct RendezvousOptions {
  std::string host = "127.0.0.1";  // the master address: rank 0 listens here only
  int port = 29500;                // rank 0 may use 0 (any free port; port() tells)
  int rank = 0;
  int world = 1;
  wire::Token token{};
  std::chrono::milliseconds timeout{30'000};    // connecting, get() and wait()
  double handshake_timeout_s = 10;              // a connection's whole hello (rank 0)
  int max_pending = 64;                         // hellos in progress at once (rank 0)
  std::function<void(const std::string&)> log;  // refusals (rank 0); null: stderr
};

class RendezvousKeys;
class RendezvousServer;

class RendezvousStore : public c10d::Store {
 public:
  // Rank 0 listens (throws std::runtime_error naming the address if it cannot); the others
  // connect and say hello, retrying while rank 0 is not up yet or busy, within options.timeout.
  explicit RendezvousStore(const RendezvousOptions& options);
  ~RendezvousStore() override;

  int port() const { return port_; }

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  using Args = std::vector<std::string>;
  // One request; rank 0 runs it in-process. Throws on a failure status.
  Args Call(uint32_t op, const Args& args);

  RendezvousOptions options_;
  int port_ = 0;
  std::shared_ptr<RendezvousKeys> keys_;      // rank 0
  std::unique_ptr<RendezvousServer> server_;  // rank 0
  wire::Socket socket_;                       // other ranks
  std::mutex call_mutex_;
};

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_RENDEZVOUS_STORE_H_
