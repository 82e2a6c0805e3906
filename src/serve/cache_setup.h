// Building a warmed and calibrated cache for `jigsaw serve --cache freeze|gati|branchy` from
// held-out data (LibTorch: the predictors are trained with it).
//
// The held-out data are the first `calibration_samples` images of the data set's test split
// (`jigsaw serve-bench --first` should start after them so the served stream is disjoint): the
// first half warms the cache (Freeze: inserted entries; GATI: the predictors' training data,
// labelled with the base model's classes; BranchyNet: the exits' training data, labelled with
// the true classes), the second half calibrates each layer's hit rule (calibration.h) to
// `target_agreement` with the base model. Candidate layers are 1 .. blocks - 1; a layer without a
// bound meeting the target gets no cache.
//
// GATI then picks the layers with the lowest expected latency on the calibration half from the
// measured per-block costs (batch of one) and per-lookup costs, under `memory_budget_bytes` (the
// predictors' bytes) and `lookup_budget_seconds` (the lookups a request that misses everywhere
// pays), keeping the cascade's agreement at or above the target (exhaustive over the calibrated
// layers, at most 16). BranchyNet keeps every calibrated exit; Freeze every calibrated layer.
//
// Progress and the per-layer outcome go to `log`.
#ifndef JIGSAW_SERVE_CACHE_SETUP_H_
#define JIGSAW_SERVE_CACHE_SETUP_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "runtime/runtime.h"
#include "serve/backend.h"
#include "serve/layer_cache.h"
#include "serve/learned_cache.h"

namespace jigsaw {

struct CacheSetupOptions {
  std::string kind = "gati";  // freeze, gati or branchy
  DataOptions data;
  int calibration_samples = 5000;
  double target_agreement = 0.99;
  int min_hits = 0;  // 0: 1% of the calibration half
  // Freeze
  int k = 5;
  int per_class = 200;
  // freeze: layers at least this wide compare 16 group sums instead of all values (approximate,
  // calibrated as such); 0: never.
  int pool_width = 0;
  // freeze: principal directions of the exact lookup bound per layer (0: block sums only).
  int bound_dims = 32;
  // GATI / BranchyNet predictors
  int hidden = 64;
  int train_epochs = 30;
  double memory_budget_bytes = 64 << 20;
  double lookup_budget_seconds = 1.0;
  bool online = true;
  int window = 2048;
  int retrain_every = 512;
  uint64_t seed = 1;
};

std::shared_ptr<LayerCache> BuildCache(InferenceBackend& backend, const CacheSetupOptions& options,
                                       std::ostream& log);

// Trains a predictor (LibTorch, Adam, cross-entropy) on `data` for `epochs`, starting from
// `start` when it fits the data's width (else from a seeded random init with `hidden` units and
// the data's standardisation).
Predictor TrainPredictor(const Predictor& start, const LabelledFeatures& data, int hidden,
                         int classes, int epochs, uint64_t seed);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_CACHE_SETUP_H_
