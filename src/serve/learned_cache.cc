#include "serve/learned_cache.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/error.h"

namespace jigsaw {

std::vector<float> Predictor::Probabilities(std::span<const float> features) const {
  const int width = hidden > 0 ? hidden : inputs;
  if (inputs < 1 || classes < 1 || static_cast<int>(features.size()) != inputs ||
      mean.size() != static_cast<size_t>(inputs) || inv_std.size() != mean.size() ||
      w2.size() != static_cast<size_t>(classes) * width ||
      b2.size() != static_cast<size_t>(classes) ||
      (hidden > 0 && (w1.size() != static_cast<size_t>(hidden) * inputs ||
                      b1.size() != static_cast<size_t>(hidden)))) {
    throw std::invalid_argument("learned cache: predictor and features do not fit");
  }
  std::vector<float> x(inputs);
  for (int i = 0; i < inputs; ++i) x[i] = (features[i] - mean[i]) * inv_std[i];
  if (hidden > 0) {
    std::vector<float> h(hidden);
    for (int j = 0; j < hidden; ++j) {
      float sum = b1[j];
      const float* row = w1.data() + static_cast<size_t>(j) * inputs;
      for (int i = 0; i < inputs; ++i) sum += row[i] * x[i];
      h[j] = std::max(sum, 0.0f);
    }
    x = std::move(h);
  }
  std::vector<float> p(classes);
  float top = -INFINITY;
  for (int c = 0; c < classes; ++c) {
    float sum = b2[c];
    const float* row = w2.data() + static_cast<size_t>(c) * width;
    for (int i = 0; i < width; ++i) sum += row[i] * x[i];
    p[c] = sum;
    top = std::max(top, sum);
  }
  double total = 0;
  for (float& v : p) {
    v = std::exp(v - top);
    total += v;
  }
  for (float& v : p) v = static_cast<float>(v / total);
  return p;
}

size_t Predictor::MemoryBytes() const {
  return (mean.size() + inv_std.size() + w1.size() + b1.size() + w2.size() + b2.size()) *
         sizeof(float);
}

double Score(HitScore kind, std::span<const float> probabilities) {
  if (kind == HitScore::kConfidence) {
    return 1.0 - *std::max_element(probabilities.begin(), probabilities.end());
  }
  double entropy = 0;
  for (float p : probabilities) {
    if (p > 0) entropy -= p * std::log(static_cast<double>(p));
  }
  return entropy;
}

LearnedCache::LearnedCache(LearnedCacheOptions options, PredictorTrainer trainer)
    : options_(std::move(options)), trainer_(std::move(trainer)) {
  auto snapshot = std::make_shared<Snapshot>();
  for (size_t i = 0; i < options_.layers.size(); ++i) {
    const LearnedLayer& layer = options_.layers[i];
    if (layer.layer < 0 || (i > 0 && layer.layer <= options_.layers[i - 1].layer)) {
      throw UsageError(options_.kind + " cache: layers must be ascending and >= 0");
    }
    layer_ids_.push_back(layer.layer);
    snapshot->predictors.push_back(layer.predictor);
    snapshot->bounds.push_back(layer.bound);
  }
  if (options_.online && !trainer_) {
    throw UsageError(options_.kind + " cache: online updates need a trainer");
  }
  if (options_.window < 1 || options_.retrain_every < 1) {
    throw UsageError(options_.kind + " cache: window and retrain interval must be >= 1");
  }
  snapshot_ = std::move(snapshot);
  windows_.resize(options_.layers.size());
  for (size_t i = 0; i < windows_.size(); ++i) {
    windows_[i].holdout = options_.layers[i].holdout;
    windows_[i].recent.width = options_.layers[i].predictor.inputs;
    windows_[i].holdout.width = options_.layers[i].predictor.inputs;
  }
  if (options_.online) updater_ = std::thread([this] { UpdateLoop(); });
}

LearnedCache::~LearnedCache() {
  {
    std::lock_guard<std::mutex> lock(window_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (updater_.joinable()) updater_.join();
}

int LearnedCache::Slot(int layer) const {
  const auto it = std::lower_bound(layer_ids_.begin(), layer_ids_.end(), layer);
  if (it == layer_ids_.end() || *it != layer) return -1;
  return static_cast<int>(it - layer_ids_.begin());
}

std::shared_ptr<const LearnedCache::Snapshot> LearnedCache::Current() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

std::optional<CacheAnswer> LearnedCache::Lookup(int layer, std::span<const float> features) {
  const int slot = Slot(layer);
  if (slot < 0) return std::nullopt;
  const std::shared_ptr<const Snapshot> snapshot = Current();
  const Predictor& predictor = snapshot->predictors[slot];
  if (static_cast<int>(features.size()) != predictor.inputs) return std::nullopt;
  std::vector<float> p = predictor.Probabilities(features);
  if (Score(options_.score, p) > snapshot->bounds[slot]) return std::nullopt;
  const int64_t label = std::max_element(p.begin(), p.end()) - p.begin();
  return CacheAnswer{label, std::move(p)};
}

void LearnedCache::Insert(int layer, std::span<const float> features, int64_t label,
                          std::span<const float> /*logits*/) {
  const int slot = Slot(layer);
  if (!options_.online || slot < 0 ||
      static_cast<int>(features.size()) != options_.layers[slot].predictor.inputs) {
    return;
  }
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(window_mutex_);
    Window& w = windows_[slot];
    const size_t width = features.size();
    const size_t window = static_cast<size_t>(options_.window);
    ++w.inserts;
    LabelledFeatures& into = w.inserts % 5 == 0 ? w.holdout : w.recent;
    if (&into == &w.holdout && w.holdout.size() >= window + options_.layers[slot].holdout.size()) {
      return;
    }
    if (&into == &w.recent && w.recent.size() >= window) {
      std::copy(features.begin(), features.end(), w.recent.rows.begin() + w.next * width);
      w.recent.labels[w.next] = label;
      w.next = (w.next + 1) % window;
    } else {
      into.rows.insert(into.rows.end(), features.begin(), features.end());
      into.labels.push_back(label);
    }
    if (w.inserts % options_.retrain_every == 0) {
      w.pending = true;
      wake = true;
    }
  }
  if (wake) wake_.notify_one();
}

bool LearnedCache::Retrain(int slot) {
  LabelledFeatures recent, holdout;
  {
    std::lock_guard<std::mutex> lock(window_mutex_);
    windows_[slot].pending = false;
    recent = windows_[slot].recent;
    holdout = windows_[slot].holdout;
  }
  if (recent.size() == 0) return false;
  const std::shared_ptr<const Snapshot> before = Current();
  Predictor trained = trainer_(before->predictors[slot], recent);
  std::vector<CalibrationPoint> points;
  for (size_t i = 0; i < holdout.size(); ++i) {
    const std::vector<float> p = trained.Probabilities(std::span<const float>(
        holdout.rows.data() + i * holdout.width, static_cast<size_t>(holdout.width)));
    const int64_t label = std::max_element(p.begin(), p.end()) - p.begin();
    points.push_back({Score(options_.score, p), label == holdout.labels[i]});
  }
  const std::optional<CalibratedBound> bound =
      CalibrateBound(std::move(points), options_.target_agreement, options_.min_hits);
  if (!bound) return false;
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  auto next = std::make_shared<Snapshot>(*snapshot_);
  next->predictors[slot] = std::move(trained);
  next->bounds[slot] = bound->bound;
  snapshot_ = std::move(next);
  ++updates_;
  return true;
}

int LearnedCache::RetrainNow() {
  if (!trainer_) return 0;
  int swapped = 0;
  for (size_t slot = 0; slot < windows_.size(); ++slot) swapped += Retrain(slot) ? 1 : 0;
  return swapped;
}

void LearnedCache::UpdateLoop() {
  std::unique_lock<std::mutex> lock(window_mutex_);
  while (true) {
    wake_.wait(lock, [this] {
      if (stopping_) return true;
      for (const Window& w : windows_) {
        if (w.pending) return true;
      }
      return false;
    });
    if (stopping_) return;
    for (size_t slot = 0; slot < windows_.size() && !stopping_; ++slot) {
      if (!windows_[slot].pending) continue;
      lock.unlock();
      Retrain(static_cast<int>(slot));
      lock.lock();
    }
  }
}

int64_t LearnedCache::updates() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return updates_;
}

double LearnedCache::bound(int layer) const {
  const int slot = Slot(layer);
  if (slot < 0)
    throw UsageError(options_.kind + " cache: layer " + std::to_string(layer) + " is not cached");
  return Current()->bounds[slot];
}

size_t LearnedCache::MemoryBytes() const {
  size_t bytes = 0;
  for (const Predictor& p : Current()->predictors) bytes += p.MemoryBytes();
  std::lock_guard<std::mutex> lock(window_mutex_);
  for (const Window& w : windows_) {
    bytes += (w.recent.rows.size() + w.holdout.rows.size()) * sizeof(float) +
             (w.recent.labels.size() + w.holdout.labels.size()) * sizeof(int64_t);
  }
  return bytes;
}

}  // namespace jigsaw
