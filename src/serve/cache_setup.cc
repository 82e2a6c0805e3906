#include "serve/cache_setup.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>

#include "core/error.h"
#include "runtime/image_splits.h"
#include "serve/calibration.h"
#include "serve/knn_cache.h"

namespace jigsaw {
namespace {

// The held-out images' features at `layers`, split into the warm and the calibration halves.
struct HeldOut {
  LayerFeatures warm, calibration;
  std::vector<int64_t> warm_truth, calibration_truth;
};

void Append(const LayerFeatures& part, LayerFeatures* into) {
  if (into->features.empty()) {
    *into = part;
    return;
  }
  for (size_t j = 0; j < part.features.size(); ++j) {
    into->features[j].insert(into->features[j].end(), part.features[j].begin(),
                             part.features[j].end());
  }
  into->classes.insert(into->classes.end(), part.classes.begin(), part.classes.end());
}

HeldOut Collect(InferenceBackend& backend, const CacheSetupOptions& options,
                const std::vector<int>& layers, std::ostream& log) {
  const ImageSet set = LoadImageSplit(options.data, false);
  const ServedModelInfo& model = backend.info();
  if (set.channels != model.channels || set.height != model.height || set.width != model.width ||
      set.classes != model.classes) {
    throw UsageError("--data " + options.data.dataset + ": its images (" +
                     std::to_string(set.channels) + "x" + std::to_string(set.height) + "x" +
                     std::to_string(set.width) + ", " + std::to_string(set.classes) +
                     " classes) do not fit the model's input");
  }
  const int n = std::min(options.calibration_samples, set.count);
  if (n < 20) throw UsageError("--calibration-samples: need at least 20 held-out images");
  log << "cache setup: " << n << " held-out test images of " << options.data.dataset
      << " (first half warms, second half calibrates)\n";
  HeldOut out;
  const int half = n / 2;
  for (int part = 0; part < 2; ++part) {
    const int begin = part == 0 ? 0 : half;
    const int end = part == 0 ? half : n;
    for (int start = begin; start < end; start += 256) {
      InferRequest request;
      request.batch = std::min(256, end - start);
      for (int i = start; i < start + request.batch; ++i) {
        NormalizedSample(set, i, &request.input);
        (part == 0 ? out.warm_truth : out.calibration_truth).push_back(set.labels[i]);
      }
      Append(backend.ComputeLayerFeatures(request, layers),
             part == 0 ? &out.warm : &out.calibration);
    }
  }
  return out;
}

LabelledFeatures Slice(const LayerFeatures& f, size_t j, const std::vector<int64_t>& labels) {
  LabelledFeatures out;
  out.width = f.widths[j];
  out.rows = f.features[j];
  out.labels = labels;
  return out;
}

std::span<const float> Row(const LabelledFeatures& data, size_t i) {
  return std::span<const float>(data.rows.data() + i * data.width, static_cast<size_t>(data.width));
}

int MinHits(const CacheSetupOptions& options, size_t calibration) {
  return options.min_hits > 0 ? options.min_hits : std::max(1, static_cast<int>(calibration / 100));
}

// Logs how a cascade over the calibration half would answer: hit[j][i] / agree[j][i] per kept
// layer j and sample i.
void LogCascade(const std::vector<int>& layers, const std::vector<std::vector<char>>& hit,
                const std::vector<std::vector<char>>& agree, int blocks, std::ostream& log) {
  if (hit.empty()) return;
  const size_t n = hit[0].size();
  size_t hits = 0, agreeing = 0, half_or_fewer = 0;
  for (size_t i = 0; i < n; ++i) {
    int answered = blocks;
    bool agrees = true;
    for (size_t j = 0; j < layers.size(); ++j) {
      if (hit[j][i]) {
        answered = layers[j];
        agrees = agree[j][i];
        ++hits;
        break;
      }
    }
    agreeing += agrees ? 1 : 0;
    half_or_fewer += 2 * answered <= blocks ? 1 : 0;
  }
  log << std::fixed << std::setprecision(4)
      << "cache setup: cascade on the calibration half: " << static_cast<double>(hits) / n
      << " hit, agreement " << static_cast<double>(agreeing) / n << ", "
      << static_cast<double>(half_or_fewer) / n << " answered after <= half the blocks\n";
}

std::shared_ptr<LayerCache> BuildFreeze(const HeldOut& held, const std::vector<int>& layers,
                                        const CacheSetupOptions& options, int classes, int blocks,
                                        std::ostream& log) {
  KnnCacheOptions probe_options;
  probe_options.layers = layers;
  probe_options.max_distance.assign(layers.size(), std::numeric_limits<double>::infinity());
  probe_options.k = options.k;
  probe_options.classes = classes;
  probe_options.per_class_capacity = options.per_class;
  probe_options.pool_width = static_cast<size_t>(options.pool_width);
  probe_options.principal_dims = options.bound_dims;
  probe_options.seed = options.seed;
  KnnCache probe(probe_options);
  const size_t warm = held.warm.classes.size();
  const size_t calibration = held.calibration.classes.size();
  for (size_t j = 0; j < layers.size(); ++j) {
    const LabelledFeatures data = Slice(held.warm, j, held.warm.classes);
    for (size_t i = 0; i < warm; ++i) probe.Insert(layers[j], Row(data, i), data.labels[i], {});
  }
  KnnCacheOptions kept = probe_options;
  kept.layers.clear();
  kept.max_distance.clear();
  std::vector<std::vector<char>> hit, agree;
  std::vector<char> answered(calibration, 0);  // by an earlier kept layer
  for (size_t j = 0; j < layers.size(); ++j) {
    const LabelledFeatures data = Slice(held.calibration, j, held.calibration.classes);
    std::vector<CalibrationPoint> points;
    std::vector<double> scores(calibration, std::numeric_limits<double>::infinity());
    std::vector<char> agrees(calibration, 0);
    for (size_t i = 0; i < calibration; ++i) {
      const std::optional<KnnCache::Probed> probed = probe.Probe(layers[j], Row(data, i));
      if (!probed) continue;
      scores[i] = probed->mean_distance;
      agrees[i] = probed->label == data.labels[i];
      // Calibrated on the samples that reach this layer in the cascade (harder than the rest).
      if (!answered[i]) points.push_back({probed->mean_distance, static_cast<bool>(agrees[i])});
    }
    const std::optional<CalibratedBound> bound =
        CalibrateBound(points, options.target_agreement, MinHits(options, calibration));
    log << "cache setup: freeze layer " << layers[j] << " (width " << data.width << "): ";
    if (!bound) {
      log << "no bound meets the target agreement; not cached\n";
      continue;
    }
    log << "mean distance <= " << bound->bound << ", calibration hits " << bound->hits << "/"
        << calibration << " agreeing " << bound->agreement << "\n";
    kept.layers.push_back(layers[j]);
    kept.max_distance.push_back(bound->bound);
    std::vector<char> hits(calibration, 0);
    for (size_t i = 0; i < calibration; ++i) {
      hits[i] = scores[i] <= bound->bound;
      answered[i] = answered[i] || hits[i];
    }
    hit.push_back(std::move(hits));
    agree.push_back(std::move(agrees));
  }
  LogCascade(kept.layers, hit, agree, blocks, log);
  auto cache = std::make_shared<KnnCache>(kept);
  for (size_t j = 0; j < layers.size(); ++j) {
    if (!std::binary_search(kept.layers.begin(), kept.layers.end(), layers[j])) continue;
    const LabelledFeatures data = Slice(held.warm, j, held.warm.classes);
    for (size_t i = 0; i < warm; ++i) cache->Insert(layers[j], Row(data, i), data.labels[i], {});
  }
  const int fitted = cache->FitLowerBound();
  log << "cache setup: freeze lookup bound on " << fitted << " layer(s) fitted to their rows' "
      << options.bound_dims << " principal directions (exact; same answers, fewer rows read)\n";
  return cache;
}

double LookupSeconds(const Predictor& predictor, const LabelledFeatures& data) {
  const int repeats = 200;
  const auto start = std::chrono::steady_clock::now();
  double sink = 0;
  for (int r = 0; r < repeats; ++r) {
    sink += predictor.Probabilities(Row(data, r % data.size()))[0];
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return sink == -1 ? 0 : took.count() / repeats;  // sink keeps the calls alive
}

// The subset of candidate layers (bit j = candidate j) with the lowest mean cost on the
// calibration half under the budgets and the agreement target; 0 = no layer.
uint32_t ChooseLayers(const std::vector<int>& layers, const std::vector<std::vector<char>>& hit,
                      const std::vector<std::vector<char>>& agree,
                      const std::vector<double>& lookup_seconds, const std::vector<size_t>& bytes,
                      const std::vector<double>& block_seconds, const CacheSetupOptions& options,
                      std::ostream& log) {
  const size_t candidates = layers.size();
  const size_t n = hit.empty() ? 0 : hit[0].size();
  std::vector<double> prefix(block_seconds.size() + 1, 0.0);
  for (size_t b = 0; b < block_seconds.size(); ++b) prefix[b + 1] = prefix[b] + block_seconds[b];
  const double full = prefix.back();
  uint32_t best = 0;
  double best_cost = full;
  for (uint32_t mask = 1; mask < (1u << candidates); ++mask) {
    double memory = 0, lookups = 0;
    for (size_t j = 0; j < candidates; ++j) {
      if (mask >> j & 1) {
        memory += bytes[j];
        lookups += lookup_seconds[j];
      }
    }
    if (memory > options.memory_budget_bytes || lookups > options.lookup_budget_seconds) continue;
    double cost = 0;
    size_t agreeing = 0;
    for (size_t i = 0; i < n; ++i) {
      double spent = 0;
      bool answered = false;
      for (size_t j = 0; j < candidates && !answered; ++j) {
        if (!(mask >> j & 1)) continue;
        spent += lookup_seconds[j];
        if (hit[j][i]) {
          spent += prefix[layers[j]];
          agreeing += agree[j][i] ? 1 : 0;
          answered = true;
        }
      }
      if (!answered) {
        spent += full;
        ++agreeing;
      }
      cost += spent;
    }
    cost /= std::max<size_t>(1, n);
    if (static_cast<double>(agreeing) < options.target_agreement * n) continue;
    if (cost < best_cost) {
      best_cost = cost;
      best = mask;
    }
  }
  log << std::setprecision(4) << "cache setup: gati layer choice: expected " << best_cost * 1e3
      << " ms of model + lookups per sample vs " << full * 1e3
      << " ms without a cache (measured block costs, batch of one)\n";
  return best;
}

std::shared_ptr<LayerCache> BuildLearned(InferenceBackend& backend, const HeldOut& held,
                                         const std::vector<int>& layers,
                                         const CacheSetupOptions& options, int classes, int blocks,
                                         std::ostream& log) {
  const bool gati = options.kind == "gati";
  const HitScore score = gati ? HitScore::kConfidence : HitScore::kEntropy;
  const size_t calibration = held.calibration.classes.size();
  std::vector<LearnedLayer> kept;
  std::vector<std::vector<char>> hit, agree;
  std::vector<double> lookup_seconds;
  std::vector<size_t> bytes;
  std::vector<char> answered(calibration, 0);  // by an earlier kept layer
  for (size_t j = 0; j < layers.size(); ++j) {
    // GATI learns the base model's answers; BranchyNet's exits learn the true labels.
    const LabelledFeatures warm = Slice(held.warm, j, gati ? held.warm.classes : held.warm_truth);
    const LabelledFeatures holdout = Slice(held.calibration, j, held.calibration.classes);
    Predictor predictor = TrainPredictor(Predictor{}, warm, options.hidden, classes,
                                         options.train_epochs, options.seed + j);
    std::vector<CalibrationPoint> points;
    std::vector<double> scores(calibration);
    std::vector<char> agrees(calibration);
    for (size_t i = 0; i < calibration; ++i) {
      const std::vector<float> p = predictor.Probabilities(Row(holdout, i));
      scores[i] = Score(score, p);
      agrees[i] = std::max_element(p.begin(), p.end()) - p.begin() == holdout.labels[i];
      // Calibrated on the samples that reach this layer past the earlier kept layers.
      if (!answered[i]) points.push_back({scores[i], static_cast<bool>(agrees[i])});
    }
    const std::optional<CalibratedBound> bound =
        CalibrateBound(points, options.target_agreement, MinHits(options, calibration));
    log << "cache setup: " << options.kind << " layer " << layers[j] << " (width " << warm.width
        << "): ";
    if (!bound) {
      log << "no bound meets the target agreement; not cached\n";
      continue;
    }
    kept.push_back({layers[j], std::move(predictor), bound->bound, holdout});
    lookup_seconds.push_back(LookupSeconds(kept.back().predictor, holdout));
    bytes.push_back(kept.back().predictor.MemoryBytes());
    log << (gati ? "1 - max p" : "entropy") << " <= " << bound->bound << ", calibration hits "
        << bound->hits << "/" << calibration << " agreeing " << bound->agreement << ", lookup "
        << lookup_seconds.back() * 1e6 << " us, " << bytes.back() << " bytes\n";
    std::vector<char> hits(calibration);
    for (size_t i = 0; i < calibration; ++i) {
      hits[i] = scores[i] <= bound->bound;
      answered[i] = answered[i] || hits[i];
    }
    hit.push_back(std::move(hits));
    agree.push_back(std::move(agrees));
  }
  if (gati && kept.size() > 16) throw UsageError("gati: at most 16 candidate layers");
  std::vector<int> kept_layers;
  for (const LearnedLayer& layer : kept) kept_layers.push_back(layer.layer);
  uint32_t mask = (1u << kept.size()) - 1;
  if (gati && !kept.empty()) {
    InferRequest one;
    one.batch = 1;
    const ServedModelInfo& model = backend.info();
    one.input.assign(static_cast<size_t>(model.channels) * model.height * model.width, 0.1f);
    const std::vector<double> block_seconds = backend.MeasureBlockSeconds(one, 50);
    log << std::setprecision(4) << "cache setup: block costs at batch one (ms, mean of 50):";
    for (const double seconds : block_seconds) log << " " << seconds * 1e3;
    log << "\n";
    mask =
        ChooseLayers(kept_layers, hit, agree, lookup_seconds, bytes, block_seconds, options, log);
  }
  LearnedCacheOptions cache_options;
  cache_options.kind = options.kind;
  cache_options.score = score;
  cache_options.target_agreement = options.target_agreement;
  cache_options.min_hits = MinHits(options, calibration);
  cache_options.online = gati && options.online;
  cache_options.window = options.window;
  cache_options.retrain_every = options.retrain_every;
  std::vector<int> chosen;
  std::vector<std::vector<char>> chosen_hit, chosen_agree;
  for (size_t j = 0; j < kept.size(); ++j) {
    if (!(mask >> j & 1)) continue;
    chosen.push_back(kept[j].layer);
    chosen_hit.push_back(hit[j]);
    chosen_agree.push_back(agree[j]);
    cache_options.layers.push_back(std::move(kept[j]));
  }
  log << "cache setup: " << options.kind << " caches at layers";
  for (int layer : chosen) log << " " << layer;
  log << (chosen.empty() ? " (none)" : "") << " of " << blocks << " blocks\n";
  LogCascade(chosen, chosen_hit, chosen_agree, blocks, log);
  PredictorTrainer trainer;
  if (cache_options.online) {
    const int hidden = options.hidden;
    const uint64_t seed = options.seed;
    trainer = [hidden, classes, seed](const Predictor& start, const LabelledFeatures& data) {
      return TrainPredictor(start, data, hidden, classes, 5, seed);
    };
  }
  return std::make_shared<LearnedCache>(std::move(cache_options), std::move(trainer));
}

}  // namespace

Predictor TrainPredictor(const Predictor& start, const LabelledFeatures& data, int hidden,
                         int classes, int epochs, uint64_t seed) {
  torch::NoGradGuard outer_guard;  // re-enabled below for the training steps
  const int64_t n = static_cast<int64_t>(data.size());
  const int width = data.width;
  if (n == 0 || width < 1) throw UsageError("predictor training: no data");
  const bool fine_tune = start.inputs == width && start.classes == classes;
  Predictor p = fine_tune ? start : Predictor{};
  torch::Tensor x =
      torch::from_blob(const_cast<float*>(data.rows.data()), {n, width}, torch::kFloat32).clone();
  if (!fine_tune) {
    p.inputs = width;
    p.hidden = std::max(0, hidden);
    p.classes = classes;
    const torch::Tensor mean = x.mean(0);
    const torch::Tensor inv_std = 1.0 / (x.std(0, /*unbiased=*/false) + 1e-6);
    p.mean.assign(mean.data_ptr<float>(), mean.data_ptr<float>() + width);
    p.inv_std.assign(inv_std.contiguous().data_ptr<float>(),
                     inv_std.contiguous().data_ptr<float>() + width);
  }
  x = (x - torch::from_blob(p.mean.data(), {width}, torch::kFloat32)) *
      torch::from_blob(p.inv_std.data(), {width}, torch::kFloat32);
  const torch::Tensor y =
      torch::from_blob(const_cast<int64_t*>(data.labels.data()), {n}, torch::kInt64).clone();
  torch::manual_seed(seed);
  const int inner = p.hidden > 0 ? p.hidden : width;
  torch::nn::Linear first(width, std::max(1, p.hidden));
  torch::nn::Linear second(inner, classes);
  auto load = [](torch::nn::Linear& layer, std::vector<float>& w, std::vector<float>& b) {
    layer->weight.copy_(torch::from_blob(w.data(), layer->weight.sizes(), torch::kFloat32));
    layer->bias.copy_(torch::from_blob(b.data(), layer->bias.sizes(), torch::kFloat32));
  };
  if (fine_tune) {
    if (p.hidden > 0) load(first, p.w1, p.b1);
    load(second, p.w2, p.b2);
  }
  std::vector<torch::Tensor> parameters = second->parameters();
  if (p.hidden > 0) {
    for (const torch::Tensor& t : first->parameters()) parameters.push_back(t);
  }
  torch::optim::Adam optimizer(parameters, torch::optim::AdamOptions(fine_tune ? 1e-3 : 3e-3));
  {
    torch::AutoGradMode enable(true);
    const int64_t batch = 128;
    for (int epoch = 0; epoch < epochs; ++epoch) {
      const torch::Tensor order = torch::randperm(n, torch::kInt64);
      for (int64_t s = 0; s < n; s += batch) {
        const torch::Tensor index = order.slice(0, s, std::min(n, s + batch));
        torch::Tensor h = x.index_select(0, index);
        if (p.hidden > 0) h = torch::relu(first->forward(h));
        const torch::Tensor loss =
            torch::nn::functional::cross_entropy(second->forward(h), y.index_select(0, index));
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
      }
    }
  }
  auto store = [](const torch::nn::Linear& layer, std::vector<float>* w, std::vector<float>* b) {
    const torch::Tensor weight = layer->weight.detach().contiguous();
    const torch::Tensor bias = layer->bias.detach().contiguous();
    w->assign(weight.data_ptr<float>(), weight.data_ptr<float>() + weight.numel());
    b->assign(bias.data_ptr<float>(), bias.data_ptr<float>() + bias.numel());
  };
  if (p.hidden > 0) store(first, &p.w1, &p.b1);
  store(second, &p.w2, &p.b2);
  return p;
}

std::shared_ptr<LayerCache> BuildCache(InferenceBackend& backend, const CacheSetupOptions& options,
                                       std::ostream& log) {
  if (options.kind != "freeze" && options.kind != "gati" && options.kind != "branchy") {
    throw UsageError("cache setup: expected freeze, gati or branchy");
  }
  if (!(options.target_agreement > 0 && options.target_agreement <= 1)) {
    throw UsageError("--agreement must be in (0, 1]");
  }
  if (options.k < 1 || options.per_class < 1 || options.hidden < 0 || options.train_epochs < 1 ||
      options.pool_width < 0 || options.bound_dims < 0) {
    throw UsageError(
        "--k, --per-class and --train-epochs must be >= 1, --hidden, --pool-width, --bound-dims "
        ">= 0");
  }
  const ServedModelInfo& model = backend.info();
  InferRequest one;
  one.batch = 1;
  one.input.assign(static_cast<size_t>(model.channels) * model.height * model.width, 0.0f);
  const int blocks = static_cast<int>(backend.MeasureBlockSeconds(one, 1).size());
  std::vector<int> layers;
  for (int layer = 1; layer < blocks; ++layer) layers.push_back(layer);
  const HeldOut held = Collect(backend, options, layers, log);
  if (options.kind == "freeze") {
    return BuildFreeze(held, layers, options, model.classes, blocks, log);
  }
  return BuildLearned(backend, held, layers, options, model.classes, blocks, log);
}

}  // namespace jigsaw
