// GATI / BranchyNet learned caches: the hit rule with fixed predictor weights, and online updates
// (a retrained predictor is swapped in and changes the answers). No assertion depends on timing.
#include "serve/learned_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "core/error.h"
#include "serve/cache_setup.h"

namespace jigsaw {
namespace {

// Linear predictor over two inputs: class c's score is scale * x[c].
Predictor Diagonal(float scale) {
  Predictor p;
  p.inputs = 2;
  p.classes = 2;
  p.mean = {0, 0};
  p.inv_std = {1, 1};
  p.w2 = {scale, 0, 0, scale};
  p.b2 = {0, 0};
  return p;
}

LearnedCacheOptions OneLayer(HitScore score, double bound) {
  LearnedCacheOptions options;
  options.kind = score == HitScore::kConfidence ? "gati" : "branchy";
  options.score = score;
  options.layers.push_back({2, Diagonal(10), bound, {}});
  return options;
}

TEST(LearnedCacheTest, PredictorComputesSoftmaxOfItsLayers) {
  const std::vector<float> p = Diagonal(10).Probabilities(std::vector<float>{1, 0});
  EXPECT_NEAR(p[0], 1 / (1 + std::exp(-10.0)), 1e-6);
  EXPECT_NEAR(p[0] + p[1], 1.0, 1e-6);
  Predictor hidden;
  hidden.inputs = 1;
  hidden.hidden = 1;
  hidden.classes = 2;
  hidden.mean = {1};
  hidden.inv_std = {0.5};
  hidden.w1 = {1};
  hidden.b1 = {0};
  hidden.w2 = {1, -1};
  hidden.b2 = {0, 0};
  // x = (3 - 1) * 0.5 = 1, relu(1) = 1, logits (1, -1).
  const std::vector<float> q = hidden.Probabilities(std::vector<float>{3});
  EXPECT_NEAR(q[0], 1 / (1 + std::exp(-2.0)), 1e-6);
  // Negative pre-activation: relu gives 0, logits (0, 0).
  EXPECT_NEAR(hidden.Probabilities(std::vector<float>{-5})[0], 0.5, 1e-6);
  EXPECT_THROW(hidden.Probabilities(std::vector<float>{1, 2}), std::invalid_argument);
}

TEST(LearnedCacheTest, ConfidenceHitRule) {
  LearnedCache cache(OneLayer(HitScore::kConfidence, 0.01), {});
  // Confident (1 - p = 4.5e-5): a hit with the predictor's class and probabilities.
  const std::optional<CacheAnswer> hit = cache.Lookup(2, std::vector<float>{0, 1});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 1);
  ASSERT_EQ(hit->scores.size(), 2u);
  EXPECT_GT(hit->scores[1], 0.99);
  // 1 - p = 1 - softmax(1, 0) = 0.27 > 0.01: a miss.
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{0.1f, 0}));
  // Another layer, another width: misses.
  EXPECT_FALSE(cache.Lookup(1, std::vector<float>{0, 1}));
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{0, 1, 2}));
  EXPECT_EQ(cache.layers(), std::vector<int>{2});
  EXPECT_EQ(cache.MemoryBytes(), Diagonal(10).MemoryBytes());
}

TEST(LearnedCacheTest, EntropyHitRule) {
  // Entropy of softmax(10 * 0.5, 0) = softmax(5, 0): about 0.040 nats.
  const std::vector<float> p = Diagonal(10).Probabilities(std::vector<float>{0.5f, 0});
  const double entropy = -(p[0] * std::log(p[0]) + p[1] * std::log(p[1]));
  EXPECT_NEAR(Score(HitScore::kEntropy, p), entropy, 1e-6);
  LearnedCache tight(OneLayer(HitScore::kEntropy, entropy * 0.9), {});
  EXPECT_FALSE(tight.Lookup(2, std::vector<float>{0.5f, 0}));
  LearnedCache loose(OneLayer(HitScore::kEntropy, entropy * 1.1), {});
  const std::optional<CacheAnswer> hit = loose.Lookup(2, std::vector<float>{0.5f, 0});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 0);
  // Uniform probabilities have the largest entropy, log 2.
  EXPECT_NEAR(Score(HitScore::kEntropy, std::vector<float>{0.5f, 0.5f}), std::log(2.0), 1e-6);
}

TEST(LearnedCacheTest, OnlineRequiresTrainerAndSortedLayers) {
  LearnedCacheOptions online = OneLayer(HitScore::kConfidence, 0.1);
  online.online = true;
  EXPECT_THROW(LearnedCache cache(online, PredictorTrainer{}), UsageError);
  LearnedCacheOptions unsorted = OneLayer(HitScore::kConfidence, 0.1);
  unsorted.layers.push_back({1, Diagonal(1), 0.1, {}});
  EXPECT_THROW(LearnedCache cache(unsorted, PredictorTrainer{}), UsageError);
}

PredictorTrainer Trainer() {
  // Trains afresh on the window (the served cache fine-tunes instead; both are real training).
  return [](const Predictor&, const LabelledFeatures& data) {
    return TrainPredictor(Predictor{}, data, 0, 2, 40, 3);
  };
}

// Served requests whose base answers contradict the predictor (the base model says class 0 where
// the predictor confidently says 1): after an update the cache answers with the base model's
// class.
void InsertContradicting(LearnedCache* cache, int n) {
  for (int i = 0; i < n; ++i) {
    const float jitter = 0.01f * static_cast<float>(i % 7);
    cache->Insert(2, std::vector<float>{0.0f + jitter, 1.0f}, 0, {});
    cache->Insert(2, std::vector<float>{1.0f, 0.0f + jitter}, 1, {});
  }
}

TEST(LearnedCacheTest, OnlineUpdateChangesTheAnswers) {
  LearnedCacheOptions options = OneLayer(HitScore::kConfidence, 0.05);
  options.online = true;
  options.retrain_every = 1000000;  // only RetrainNow
  options.min_hits = 5;
  LearnedCache cache(options, Trainer());
  ASSERT_EQ(cache.Lookup(2, std::vector<float>{0, 1})->label, 1);
  const size_t bytes_before = cache.MemoryBytes();
  InsertContradicting(&cache, 200);
  EXPECT_GT(cache.MemoryBytes(), bytes_before);  // the window holds the served samples
  EXPECT_EQ(cache.RetrainNow(), 1);
  EXPECT_EQ(cache.updates(), 1);
  const std::optional<CacheAnswer> after = cache.Lookup(2, std::vector<float>{0, 1});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->label, 0);
  EXPECT_EQ(cache.Lookup(2, std::vector<float>{1, 0})->label, 1);
}

TEST(LearnedCacheTest, BackgroundThreadSwapsInUpdates) {
  LearnedCacheOptions options = OneLayer(HitScore::kConfidence, 0.05);
  options.online = true;
  options.retrain_every = 100;
  options.min_hits = 5;
  LearnedCache cache(options, Trainer());
  InsertContradicting(&cache, 200);  // 400 inserts: 4 update requests
  // Waits for the background thread (bounded; no assertion on how long it takes).
  for (int i = 0; i < 6000 && cache.updates() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(cache.updates(), 0);
  EXPECT_EQ(cache.Lookup(2, std::vector<float>{0, 1})->label, 0);
}

TEST(LearnedCacheTest, TrainPredictorLearnsSeparableData) {
  LabelledFeatures data;
  data.width = 3;
  for (int i = 0; i < 300; ++i) {
    const int label = i % 3;
    for (int f = 0; f < 3; ++f) data.rows.push_back(f == label ? 5.0f + 0.01f * (i % 11) : 0.0f);
    data.labels.push_back(label);
  }
  const Predictor p = TrainPredictor(Predictor{}, data, 8, 3, 30, 1);
  EXPECT_EQ(p.inputs, 3);
  EXPECT_EQ(p.hidden, 8);
  for (int label = 0; label < 3; ++label) {
    std::vector<float> x(3, 0.0f);
    x[label] = 5.0f;
    const std::vector<float> probabilities = p.Probabilities(x);
    EXPECT_EQ(std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin(),
              label);
  }
}

}  // namespace
}  // namespace jigsaw
