// The worker side of the parameter-server protocol (see message.h and server.h). Torch-free.
//
// PsClient connects to the server and says hello, retrying with backoff for up to timeout_s while
// the server is not listening yet, busy or closes the connection (core/handshake_client.h: the
// error then says "server busy" or "closed by server"), until it is welcomed; every message carries
// the job's token. timeout_s may be fractional (0.5 s is 0.5 s). A reply larger than the model
// (after the first pull) is refused before it is read. A synchronous-SGD worker then calls, per
// iteration t: Push(t, gradient) and Pull(t + 1), which blocks until every worker of the job pushed
// step t and returns the updated parameters. Worker 0 calls Init(parameters) once first; every
// worker starts with Pull(0). Errors throw std::runtime_error: a kError from the server ("the job
// failed"), a closed connection, an unexpected reply, or no reply within timeout_s.
#ifndef JIGSAW_PS_CLIENT_H_
#define JIGSAW_PS_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/socket.h"
#include "core/wire_message.h"
#include "ps/parameter_client.h"

namespace jigsaw::ps {

class PsClient : public ParameterClient {
 public:
  PsClient(const std::string& host, int port, int rank, int workers, double timeout_s,
           const wire::Token& token);

  void Init(const std::vector<float>& parameters) override;
  void Push(uint64_t step, const std::vector<float>& gradient) override;
  std::vector<float> Pull(uint64_t version) override;
  void Bye() override;

  uint64_t bytes_sent() const override { return bytes_sent_; }
  uint64_t bytes_received() const override { return bytes_received_; }

 private:
  void Send(const wire::Message& message);

  wire::Socket socket_;
  int rank_;
  wire::Token token_;
  uint64_t model_floats_ = wire::kMaxFloats;  // the model's size once the first pull told it
  uint64_t bytes_sent_ = 0;
  uint64_t bytes_received_ = 0;
};

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_CLIENT_H_
