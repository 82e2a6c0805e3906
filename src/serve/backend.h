// What the HTTP server runs a decoded request on. Infer is called from one thread at a time (the
// server's inference thread); it returns the logits and classes of every sample or throws
// (std::exception) on an internal failure, which the server answers with a 500.
#ifndef JIGSAW_SERVE_BACKEND_H_
#define JIGSAW_SERVE_BACKEND_H_

#include "serve/kserve_protocol.h"

namespace jigsaw {

class InferenceBackend {
 public:
  virtual ~InferenceBackend() = default;
  virtual const ServedModelInfo& info() const = 0;
  virtual InferResult Infer(const InferRequest& request) = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_BACKEND_H_
