// Learned caches: GATI's per-layer predictors and BranchyNet-style early exits share this cache.
//
// At each cached layer a small predictor (Predictor: standardise the pooled features, then
// linear -> ReLU -> linear, or linear only when hidden = 0) gives class probabilities (softmax).
// A lookup hits when the layer's score is at most its calibrated bound (calibration.h); the
// score is 1 - max probability (HitScore::kConfidence, GATI) or the probabilities' entropy in
// nats (HitScore::kEntropy, BranchyNet). A hit answers with the most probable class and the
// probabilities as scores.
//
// Online updates (GATI; options.online): Insert keeps the most recent `window` (features, base
// label) pairs per layer; every `retrain_every` inserts at a layer a background thread trains a
// copy of that layer's predictor with `trainer` on the window, recalibrates its bound on
// `holdout` (a fixed calibration split, plus every fifth insert, which training never sees) and
// swaps the pair in under a mutex; a lookup uses the snapshot it found. A retrained predictor
// whose recalibrated bound does not exist is discarded (the old one stays). RetrainNow does one
// update synchronously (tests, benchmarks).
//
// Lookup and Insert come from one thread at a time (the inference thread); the background thread
// only swaps snapshots. The destructor stops and joins it.
#ifndef JIGSAW_SERVE_LEARNED_CACHE_H_
#define JIGSAW_SERVE_LEARNED_CACHE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "serve/calibration.h"
#include "serve/layer_cache.h"

namespace jigsaw {

struct Predictor {
  int inputs = 0;
  int hidden = 0;  // 0: linear
  int classes = 0;
  std::vector<float> mean, inv_std;  // per input
  std::vector<float> w1, b1;         // hidden x inputs, hidden (unused when hidden = 0)
  std::vector<float> w2, b2;         // classes x (hidden or inputs), classes

  // Softmax probabilities; throws std::invalid_argument on a width mismatch or a malformed
  // predictor.
  std::vector<float> Probabilities(std::span<const float> features) const;
  size_t MemoryBytes() const;
};

enum class HitScore { kConfidence, kEntropy };
double Score(HitScore kind, std::span<const float> probabilities);

// Labelled features at one layer, row-major.
struct LabelledFeatures {
  int width = 0;
  std::vector<float> rows;
  std::vector<int64_t> labels;
  size_t size() const { return labels.size(); }
};

// Trains a predictor for the data, starting from `start` (fine-tuning); must not touch the cache.
using PredictorTrainer =
    std::function<Predictor(const Predictor& start, const LabelledFeatures& data)>;

struct LearnedLayer {
  int layer = 0;
  Predictor predictor;
  double bound = 0;
  LabelledFeatures holdout;  // base labels; for recalibration after online updates
};

struct LearnedCacheOptions {
  std::string kind = "gati";
  std::vector<LearnedLayer> layers;  // ascending layer
  HitScore score = HitScore::kConfidence;
  double target_agreement = 0.99;
  int min_hits = 1;
  bool online = false;
  int window = 2048;
  int retrain_every = 512;
};

class LearnedCache : public LayerCache {
 public:
  // Throws UsageError on inconsistent options (unsorted layers, online without a trainer).
  LearnedCache(LearnedCacheOptions options, PredictorTrainer trainer);
  ~LearnedCache() override;

  std::string kind() const override { return options_.kind; }
  const std::vector<int>& layers() const override { return layer_ids_; }
  std::optional<CacheAnswer> Lookup(int layer, std::span<const float> features) override;
  void Insert(int layer, std::span<const float> features, int64_t label,
              std::span<const float> logits) override;
  size_t MemoryBytes() const override;

  // Retrains every layer with a non-empty window now, on the calling thread. Returns the number
  // of predictors swapped in.
  int RetrainNow();
  int64_t updates() const;
  double bound(int layer) const;

 private:
  struct Snapshot {
    std::vector<Predictor> predictors;
    std::vector<double> bounds;
  };
  struct Window {
    LabelledFeatures recent;  // ring of `window` rows
    size_t next = 0;
    LabelledFeatures holdout;  // fixed split plus every fifth insert (bounded by `window`)
    int64_t inserts = 0;
    bool pending = false;
  };
  int Slot(int layer) const;
  std::shared_ptr<const Snapshot> Current() const;
  bool Retrain(int slot);
  void UpdateLoop();

  LearnedCacheOptions options_;
  PredictorTrainer trainer_;
  std::vector<int> layer_ids_;
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
  mutable std::mutex window_mutex_;
  std::condition_variable wake_;
  std::vector<Window> windows_;
  bool stopping_ = false;
  int64_t updates_ = 0;
  std::thread updater_;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_LEARNED_CACHE_H_
