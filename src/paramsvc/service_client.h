// The worker side of the Parameter Service: a ps::ParameterClient that finds the job's shards
// through the coordinator and speaks the parameter server's protocol (JPS2) to each of them.
//
// The constructor only records the addresses; the first Init or Pull asks the coordinator
// ("lookup", with the job's token) where the shards live and connects to each with kHello (the
// same hello, push, pull and bye a dedicated `jigsaw ps` gets, for that shard's slice). Worker 0
// of a job registered without a size tells the coordinator its parameter count first ("size").
// Push sends each shard its slice; Pull(v) sends every shard its pull first, then gathers the
// replies, so the shards work in parallel.
//   kRedirect (the shard moved at an iteration boundary): ask the coordinator until the shard's
//     epoch changes, connect there, send the last push again if it was for step v - 1 (it was
//     not applied at the old host), and pull again.
//   a broken shard connection: ask the coordinator; a new job generation (an aggregator died
//     and the job was restored from snapshots) reconnects every shard and throws
//     ps::JobRolledBack(resume version); a failed job throws std::runtime_error with the reason.
// Waiting for the coordinator is bounded by timeout_s. Not thread-safe.
#ifndef JIGSAW_PARAMSVC_SERVICE_CLIENT_H_
#define JIGSAW_PARAMSVC_SERVICE_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/output.h"
#include "core/socket.h"
#include "core/wire_message.h"
#include "ps/parameter_client.h"

namespace jigsaw::paramsvc {

class ServiceClient : public ps::ParameterClient {
 public:
  ServiceClient(const std::string& service, int rank, int workers, double timeout_s,
                const wire::Token& token);

  void Init(const std::vector<float>& parameters) override;
  void Push(uint64_t step, const std::vector<float>& gradient) override;
  std::vector<float> Pull(uint64_t version) override;
  void Bye() override;
  uint64_t bytes_sent() const override { return bytes_sent_; }
  uint64_t bytes_received() const override { return bytes_received_; }

  // How often a shard moved under this worker, and how many iterations it was sent back.
  uint64_t redirects() const { return redirects_; }
  uint64_t rollbacks() const { return rollbacks_; }

 private:
  struct Link {
    uint64_t offset = 0, count = 0;
    uint64_t epoch = 0;
    wire::Socket socket;
    bool broken = false;
  };

  Json Ask(const std::string& op, uint64_t parameters);
  // Waits until every shard is ready and `shard`'s epoch (if shard >= 0) passed `epoch`, or,
  // with `new_generation_ends_wait`, until the job's generation differs from ours.
  Json WaitForMap(int shard, uint64_t epoch, bool new_generation_ends_wait);
  void Connect(size_t shard, const Json& map);
  void ConnectAll(const Json& map);
  void CheckJob(const Json& map);
  void SendTo(Link& link, const wire::Message& message);
  // A slice of `values` ([link.offset, link.offset + link.count)), without copying it.
  void SendSlice(Link& link, wire::MessageType type, uint64_t step,
                 const std::vector<float>& values);
  // Follows a moved or lost shard; throws JobRolledBack or runtime_error.
  void Recover(size_t shard, uint64_t version);

  std::string host_;
  int port_ = 0;
  int rank_;
  int workers_;
  double timeout_s_;
  wire::Token token_;
  wire::Socket coordinator_;
  bool connected_ = false;
  uint64_t generation_ = 0;
  uint64_t parameters_ = 0;
  std::vector<Link> links_;
  uint64_t last_push_step_ = UINT64_MAX;
  std::vector<float> last_push_;
  uint64_t bytes_sent_ = 0, bytes_received_ = 0;
  uint64_t redirects_ = 0, rollbacks_ = 0;
};

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_SERVICE_CLIENT_H_
