// An InferenceBackend running a `jigsaw train` checkpoint (lenet, resnet20, resnet18, ... any
// MakeModel name) with LibTorch on the CPU, in eval mode (batch norm uses its running statistics),
// block by block, consulting an optional LayerCache (layer_cache.h) for each sample at the
// cache's layers: a sample that hits leaves the batch, the rest go on; samples the full model
// answered are inserted into the cache at every cached layer.
//
// LoadTorchBackend throws InputError(path, 0, ...) when the file is missing, is not a torch
// archive, has no model spec (written before model_spec.h) or its weights do not fit the model
// the spec names.
#ifndef JIGSAW_SERVE_TORCH_BACKEND_H_
#define JIGSAW_SERVE_TORCH_BACKEND_H_

#include <memory>
#include <string>

#include "serve/backend.h"
#include "serve/layer_cache.h"

namespace jigsaw {

struct TorchBackendOptions {
  std::string checkpoint;
  std::string name;  // the served model's name; "" = the spec's model name
  int max_batch = 64;
  int threads = 1;                    // intra-op threads
  std::shared_ptr<LayerCache> cache;  // null = no cache
};

std::unique_ptr<InferenceBackend> LoadTorchBackend(const TorchBackendOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_TORCH_BACKEND_H_
