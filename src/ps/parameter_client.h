// What a synchronous-SGD worker needs from wherever its parameters live: a dedicated parameter
// server (PsClient) or the shared Parameter Service (paramsvc::ServiceClient). Workers are written
// against this interface only, so they cannot tell the two apart.
//
// Per iteration t a worker calls Push(t, gradient) then Pull(t + 1); worker 0 calls Init once
// first and every worker starts with Pull(0). Errors throw std::runtime_error. A service that had
// to restore the job from a snapshot throws JobRolledBack from Pull: the worker continues from
// iteration version() (its gradients for the lost iterations are computed again).
#ifndef JIGSAW_PS_PARAMETER_CLIENT_H_
#define JIGSAW_PS_PARAMETER_CLIENT_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace jigsaw::ps {

class ParameterClient {
 public:
  virtual ~ParameterClient() = default;
  virtual void Init(const std::vector<float>& parameters) = 0;
  virtual void Push(uint64_t step, const std::vector<float>& gradient) = 0;
  virtual std::vector<float> Pull(uint64_t version) = 0;
  virtual void Bye() = 0;
  virtual uint64_t bytes_sent() const = 0;
  virtual uint64_t bytes_received() const = 0;
};

class JobRolledBack : public std::runtime_error {
 public:
  JobRolledBack(uint64_t version, const std::string& why)
      : std::runtime_error(why), version_(version) {}
  uint64_t version() const { return version_; }

 private:
  uint64_t version_;
};

}  // namespace jigsaw::ps

#endif  // JIGSAW_PS_PARAMETER_CLIENT_H_
