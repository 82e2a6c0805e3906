// Collective operations over a group of hosts, run as RDMA messages on a Network.
//
// All-reduce is ring reduce-scatter then ring all-gather over each dimension of a logical grid
// (dims {a, b}: reduce-scatter along a, then b, all-gather along b, then a; a 1-D ring when dims is
// empty), all-gather and reduce-scatter are the matching halves, and all-to-all sends bytes/N
// directly to every peer. The buffer is split into `chunks` independent pipelines that run
// concurrently. In a ring step a rank forwards to its successor once it has received the previous
// step from its predecessor. Rank r of a collective is hosts[r]; dimension 0 varies fastest.
// CollectiveEngine is the Network's observer: it also forwards timers to its client. Its messages'
// flows carry tags 1..N; deliveries of any other flow (tag 0: background traffic or a flow file
// sharing the Network) are ignored.
#ifndef JIGSAW_NET_COLLECTIVE_H_
#define JIGSAW_NET_COLLECTIVE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "net/network.h"

namespace jigsaw::net {

enum class CollectiveType : uint8_t { kAllReduce, kAllGather, kReduceScatter, kAllToAll };

bool ParseCollectiveType(std::string_view text, CollectiveType* type);
const char* CollectiveTypeName(CollectiveType type);

struct CollectiveSpec {
  CollectiveType type = CollectiveType::kAllReduce;
  uint64_t bytes = 0;           // per-rank buffer size
  std::vector<uint32_t> hosts;  // rank -> host
  std::vector<int> dims;        // product must equal hosts.size(); empty = one ring
  int chunks = 1;
};

class CollectiveClient {
 public:
  virtual ~CollectiveClient() = default;
  virtual void OnCollectiveDone(uint32_t collective) = 0;
  virtual void OnTimer(uint32_t token) { (void)token; }
};

class CollectiveEngine : public NetObserver {
 public:
  explicit CollectiveEngine(Network* network);

  // Starts a collective now; throws UsageError if dims do not match the group.
  uint32_t Start(const CollectiveSpec& spec, CollectiveClient* client);
  Time start_time(uint32_t id) const { return collectives_[id].start; }
  Time end_time(uint32_t id) const { return collectives_[id].end; }  // -1 while running
  void set_timer_client(CollectiveClient* client) { timer_client_ = client; }

  void OnFlowDelivered(uint32_t flow, uint64_t tag) override;
  void OnTimer(uint32_t token) override;

 private:
  struct Phase {
    int dim;  // -1 = direct exchange among all ranks
    int steps;
    uint64_t step_bytes;
  };
  struct Collective {
    std::vector<uint32_t> hosts;
    std::vector<int> dims;
    std::vector<Phase> phases;  // per chunk
    int chunks;
    // Per (chunk, rank): current phase and messages sent in it; per (chunk, rank, phase): received.
    std::vector<uint16_t> phase;
    std::vector<uint32_t> sent;
    std::vector<uint32_t> received;
    uint32_t ranks_left;
    CollectiveClient* client;
    Time start;
    Time end = -1;
  };
  struct Message {
    uint32_t collective;
    uint32_t chunk;
    uint32_t phase;
    uint32_t dst_rank;
  };

  void Advance(uint32_t id, uint32_t chunk, uint32_t rank);
  void Send(uint32_t id, uint32_t chunk, uint32_t phase, uint32_t src_rank, uint32_t dst_rank,
            uint64_t bytes);
  uint32_t RingNext(const Collective& c, int dim, uint32_t rank) const;

  Network* network_;
  std::vector<Collective> collectives_;
  std::vector<Message> messages_;
  CollectiveClient* timer_client_ = nullptr;
};

}  // namespace jigsaw::net

#endif  // JIGSAW_NET_COLLECTIVE_H_
