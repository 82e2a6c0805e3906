// What the HTTP server runs a decoded request on. Infer is called from one thread at a time (the
// server's inference thread); it returns the logits and classes of every sample or throws
// (std::exception) on an internal failure, which the server answers with a 500. stats() may be
// called from any thread at any time.
#ifndef JIGSAW_SERVE_BACKEND_H_
#define JIGSAW_SERVE_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serve/kserve_protocol.h"
#include "serve/layer_cache.h"

namespace jigsaw {

struct BackendStats {
  std::string cache = "none";
  int64_t samples = 0;
  // answered_after[k] = samples answered after k blocks (k = blocks: the full model).
  std::vector<int64_t> answered_after;
  size_t cache_bytes = 0;
  // Wall-clock seconds spent in cache lookups and inserts (the caches' cost on the request path).
  double cache_seconds = 0;
  double cache_insert_seconds = 0;  // the inserts' part of cache_seconds
  double infer_seconds = 0;         // wall-clock seconds in Infer (model + caches)
};

// What caches see of a batch, for warming and calibrating them offline: features[j] holds the
// batch's features at layers[j] (batch x widths[j], row-major, exactly as the serving path passes
// them to LayerCache), classes the full model's answers.
struct LayerFeatures {
  std::vector<int> layers;
  std::vector<int> widths;
  std::vector<std::vector<float>> features;
  std::vector<int64_t> classes;
};

class InferenceBackend {
 public:
  virtual ~InferenceBackend() = default;
  virtual const ServedModelInfo& info() const = 0;
  virtual InferResult Infer(const InferRequest& request) = 0;
  virtual BackendStats stats() const = 0;
  // Runs the full model without any cache; layers in [0, blocks). Same threading rule as Infer.
  virtual LayerFeatures ComputeLayerFeatures(const InferRequest& request,
                                             const std::vector<int>& layers) = 0;
  // Seconds each block takes on `request` (mean of `repeats` runs after one warm-up), without
  // any cache. Same threading rule as Infer.
  virtual std::vector<double> MeasureBlockSeconds(const InferRequest& request, int repeats) = 0;
  // Installs the cache consulted from the next Infer on (null: none); not while Infer runs.
  virtual void SetCache(std::shared_ptr<LayerCache> cache) = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_BACKEND_H_
