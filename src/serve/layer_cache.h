// The interface every inference cache implements (exact-match response cache, GATI learned
// caches, Freeze approximate caches, BranchyNet-style exits), so the serving path treats them
// alike.
//
// The server runs a model block by block. Before block 0 and after each block b it may consult
// the cache at "layer" b + 1 (layer 0 = the raw input, layer L = after the last block) with that
// sample's features there: the raw input at layer 0, the activation pooled to one value per
// channel (global average) at later layers, or the activation as is where a block's output is
// already flat (LeNet's second block ends flattened: 400 values). Lookup returns an answer (a hit:
// the request returns with it, the remaining blocks are skipped) or nothing (a miss). Once the base
// model has answered a sample, Insert gives the cache its features at every layer the cache asked
// for (layers()) with the base model's class and logits, for online updates.
//
// Unless an implementation says otherwise, calls come from one thread at a time.
#ifndef JIGSAW_SERVE_LAYER_CACHE_H_
#define JIGSAW_SERVE_LAYER_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jigsaw {

struct CacheAnswer {
  int64_t label = 0;
  // Class scores to return as the response's logits: the base model's logits for an exact
  // match, a predictor's scores for learned caches; empty = one-hot on `label`.
  std::vector<float> scores;
};

class LayerCache {
 public:
  virtual ~LayerCache() = default;

  virtual std::string kind() const = 0;
  // The layers this cache looks up (ascending); features are computed only there.
  virtual const std::vector<int>& layers() const = 0;
  virtual std::optional<CacheAnswer> Lookup(int layer, std::span<const float> features) = 0;
  virtual void Insert(int layer, std::span<const float> features, int64_t label,
                      std::span<const float> logits) = 0;
  // Bytes held by the cache's entries or predictors (the memory it costs the server).
  virtual size_t MemoryBytes() const = 0;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_LAYER_CACHE_H_
