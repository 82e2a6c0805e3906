// Freeze's approximate cache: the hit rule (k nearest agree, mean distance within the bound),
// its misses, per-class reservoirs bounding memory, and online inserts changing answers.
#include "serve/knn_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "serve/calibration.h"

namespace jigsaw {
namespace {

KnnCacheOptions Options(int k, double bound, int capacity = 50) {
  KnnCacheOptions options;
  options.layers = {2, 4};
  options.max_distance = {bound, bound};
  options.k = k;
  options.classes = 3;
  options.per_class_capacity = capacity;
  return options;
}

const std::vector<float> kNoLogits;

TEST(KnnCache, HitsWhenTheKNearestAgreeWithinTheBound) {
  KnnCache cache(Options(3, 1.0));
  const std::vector<float> query = {0, 0};
  cache.Insert(2, std::vector<float>{0.1f, 0}, 1, kNoLogits);
  cache.Insert(2, std::vector<float>{0, 0.2f}, 1, kNoLogits);
  EXPECT_FALSE(cache.Lookup(2, query));  // fewer than k entries
  cache.Insert(2, std::vector<float>{-0.3f, 0}, 1, kNoLogits);
  cache.Insert(2, std::vector<float>{5, 5}, 2, kNoLogits);  // far away: not among the 3 nearest
  const auto hit = cache.Lookup(2, query);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 1);
  EXPECT_TRUE(hit->scores.empty());
  EXPECT_FALSE(cache.Lookup(4, query));                        // nothing stored at layer 4
  EXPECT_FALSE(cache.Lookup(3, query));                        // not a cached layer
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{0, 0, 0}));  // another width
  EXPECT_THROW(cache.Insert(2, std::vector<float>{1, 2, 3}, 0, kNoLogits), std::invalid_argument);
}

TEST(KnnCache, MissesOnDisagreementOrDistance) {
  KnnCache cache(Options(2, 0.5));
  cache.Insert(2, std::vector<float>{0.1f, 0}, 0, kNoLogits);
  cache.Insert(2, std::vector<float>{0, 0.1f}, 1, kNoLogits);
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{0, 0}));  // neighbours disagree
  cache.Insert(2, std::vector<float>{0.05f, 0.05f}, 0, kNoLogits);
  const auto hit = cache.Lookup(2, std::vector<float>{0.09f, 0.01f});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 0);
  // Same neighbours, but the query is far from them: mean distance > 0.5.
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{1.5f, -1.5f}));
}

TEST(KnnCache, OnlineInsertsChangeTheAnswer) {
  KnnCache cache(Options(1, 10.0));
  const std::vector<float> query = {1, 1};
  cache.Insert(4, std::vector<float>{2, 2}, 0, kNoLogits);
  ASSERT_TRUE(cache.Lookup(4, query));
  EXPECT_EQ(cache.Lookup(4, query)->label, 0);
  cache.Insert(4, std::vector<float>{1, 1.1f}, 2, kNoLogits);
  EXPECT_EQ(cache.Lookup(4, query)->label, 2);
}

TEST(KnnCache, PerClassReservoirsBoundTheMemory) {
  KnnCache cache(Options(1, 1.0, 10));
  for (int i = 0; i < 100; ++i) {
    cache.Insert(2, std::vector<float>{static_cast<float>(i), 0, 0, 0}, i % 2, kNoLogits);
  }
  EXPECT_EQ(cache.entries(2), 20u);
  EXPECT_EQ(cache.MemoryBytes(), 20u * 4 * sizeof(float));
  // The reservoir kept a sample of everything seen, not just the first 10 of each class.
  int late = 0;
  for (int i = 20; i < 100; ++i) {
    const auto hit = cache.Lookup(2, std::vector<float>{static_cast<float>(i), 0, 0, 0});
    if (hit && hit->label == i % 2) ++late;  // distance 0 only if the entry was kept
  }
  EXPECT_GT(late, 0);
  KnnCache same(Options(1, 1.0, 10));
  for (int i = 0; i < 100; ++i) {
    same.Insert(2, std::vector<float>{static_cast<float>(i), 0, 0, 0}, i % 2, kNoLogits);
  }
  for (int i = 0; i < 100; ++i) {
    const std::vector<float> q = {static_cast<float>(i), 0, 0, 0};
    EXPECT_EQ(cache.Lookup(2, q).has_value(), same.Lookup(2, q).has_value()) << i;
  }
}

// Probe + CalibrateBound: on two well separated classes plus one mislabelled point, the
// calibrated bound admits the clean lookups and keeps out the one near the wrong label.
TEST(KnnCache, ProbeAndCalibrationSetABoundForTheTarget) {
  KnnCache cache(Options(1, 0.0));
  for (int i = 0; i < 10; ++i) {
    cache.Insert(2, std::vector<float>{0.1f * i, 0}, 0, kNoLogits);
    cache.Insert(2, std::vector<float>{0.1f * i, 10}, 1, kNoLogits);
  }
  cache.Insert(2, std::vector<float>{5, 5}, 0, kNoLogits);      // an outlier labelled 0
  EXPECT_FALSE(cache.Lookup(2, std::vector<float>{0.05f, 0}));  // bound 0: no hits yet
  // Calibration split: (features, base label); the last one sits nearest the outlier but the
  // base model calls it 1.
  const std::vector<std::pair<std::vector<float>, int>> split = {{{0.05f, 0.2f}, 0},
                                                                 {{0.42f, -0.3f}, 0},
                                                                 {{0.71f, 9.6f}, 1},
                                                                 {{0.2f, 10.4f}, 1},
                                                                 {{5.0f, 6.5f}, 1}};
  std::vector<CalibrationPoint> points;
  for (const auto& [features, base] : split) {
    const auto probed = cache.Probe(2, features);
    ASSERT_TRUE(probed);
    points.push_back({probed->mean_distance, probed->label == base});
  }
  const auto bound = CalibrateBound(points, 1.0, 1);
  ASSERT_TRUE(bound);
  EXPECT_EQ(bound->hits, 4);
  EXPECT_LT(bound->bound, 1.5);
  cache.set_max_distance(2, bound->bound);
  for (size_t i = 0; i < 4; ++i) {
    const auto hit = cache.Lookup(2, split[i].first);
    ASSERT_TRUE(hit) << i;
    EXPECT_EQ(hit->label, split[i].second);
  }
  EXPECT_FALSE(cache.Lookup(2, split[4].first));
  EXPECT_THROW(cache.set_max_distance(3, 1.0), UsageError);
}

// Lookup abandons rows beyond k times the bound; its answers must stay those of the plain rule
// (Probe's k nearest, hit iff they agree and average within the bound), whatever the bound.
TEST(KnnCache, PrunedLookupAnswersAsTheFullSearch) {
  Rng rng(7);
  KnnCache cache(Options(3, 0.0, 40));
  for (int i = 0; i < 120; ++i) {
    const int64_t label = static_cast<int64_t>(rng.UniformInt(3));
    const std::vector<float> row = {static_cast<float>(label + rng.Uniform(-0.6, 0.6)),
                                    static_cast<float>(rng.Uniform(-1, 1)),
                                    static_cast<float>(rng.Uniform(-1, 1))};
    cache.Insert(2, row, label, kNoLogits);
  }
  int hits = 0, misses = 0;
  for (const double bound : {0.05, 0.2, 0.4, 0.8, 3.0}) {
    cache.set_max_distance(2, bound);
    for (int q = 0; q < 200; ++q) {
      const std::vector<float> query = {static_cast<float>(rng.Uniform(-1, 3)),
                                        static_cast<float>(rng.Uniform(-1.5, 1.5)),
                                        static_cast<float>(rng.Uniform(-1.5, 1.5))};
      const std::optional<KnnCache::Probed> probed = cache.Probe(2, query);
      const bool expect_hit = probed && probed->mean_distance <= bound;
      const std::optional<CacheAnswer> answer = cache.Lookup(2, query);
      ASSERT_EQ(answer.has_value(), expect_hit) << "bound " << bound << " query " << q;
      if (answer) {
        EXPECT_EQ(answer->label, probed->label);
        ++hits;
      } else {
        ++misses;
      }
    }
  }
  EXPECT_GT(hits, 50);  // both outcomes exercised
  EXPECT_GT(misses, 50);
}

// Answers of `cache` against the full search (Probe + bound rule) and a cache without any
// lower bound, over queries from `query`; counts hits and misses.
template <typename Query>
void ExpectFullSearchAnswers(KnnCache& cache, KnnCache& plain, const std::vector<double>& bounds,
                             int queries, Query query, int* hits, int* misses) {
  for (const double bound : bounds) {
    cache.set_max_distance(2, bound);
    plain.set_max_distance(2, bound);
    for (int q = 0; q < queries; ++q) {
      const std::vector<float> row = query();
      const std::optional<KnnCache::Probed> probed = cache.Probe(2, row);
      const bool expect_hit = probed && probed->mean_distance <= bound;
      const std::optional<CacheAnswer> answer = cache.Lookup(2, row);
      const std::optional<CacheAnswer> reference = plain.Lookup(2, row);
      ASSERT_EQ(answer.has_value(), expect_hit) << "bound " << bound << " query " << q;
      ASSERT_EQ(answer.has_value(), reference.has_value()) << "bound " << bound << " query " << q;
      if (answer) {
        EXPECT_EQ(answer->label, probed->label);
        EXPECT_EQ(answer->label, reference->label);
        ++*hits;
      } else {
        ++*misses;
      }
    }
  }
}

// Wide rows (16 groups of 25, as LeNet's 16x5x5 map) engage the group-sum lower bound; Lookup
// must answer exactly as the full search (Probe + bound rule) and as a cache without the bound.
TEST(KnnCache, GroupSumLowerBoundAnswersAsTheFullSearch) {
  constexpr int kWidth = 400;
  KnnCacheOptions options = Options(5, 0.0, 60);
  KnnCacheOptions plain_options = options;
  plain_options.lower_bound_groups = 0;
  KnnCache cache(options);
  KnnCache plain(plain_options);
  Rng rng(11);
  auto sample = [&](double centre, double spread) {
    std::vector<float> row(kWidth);
    for (int i = 0; i < kWidth; ++i) {
      const int channel = i / 25;
      row[i] =
          static_cast<float>(centre * ((channel % 4) + 1) * 0.25 + rng.Uniform(-spread, spread));
    }
    return row;
  };
  for (int i = 0; i < 240; ++i) {
    const int64_t label = static_cast<int64_t>(rng.UniformInt(3));
    const std::vector<float> row = sample(static_cast<double>(label), 0.5);
    cache.Insert(2, row, label, kNoLogits);
    plain.Insert(2, row, label, kNoLogits);
  }
  EXPECT_GT(cache.MemoryBytes(), plain.MemoryBytes());  // the group sums are stored
  int hits = 0, misses = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectFullSearchAnswers(
      cache, plain, {3.0, 4.5, 5.5, 7.0, 20.0}, 150,
      [&] { return sample(rng.Uniform(-0.5, 2.5), rng.Uniform(0.3, 0.8)); }, &hits, &misses));
  EXPECT_GT(hits, 50);  // both outcomes exercised
  EXPECT_GT(misses, 50);
}

// A pooled layer compares 16 group sums (blocks of 25 of a 400-wide row, each sum / 5): the
// same answers as a plain cache fed those sums, and a sixteenth of the memory.
TEST(KnnCache, PooledLayersCompareGroupSums) {
  KnnCacheOptions options = Options(3, 2.0, 100);
  options.pool_width = 256;
  KnnCache pooled(options);
  KnnCache plain(Options(3, 2.0, 100));
  Rng rng(5);
  auto pool = [](const std::vector<float>& row) {
    std::vector<float> sums(16);
    for (size_t g = 0; g < 16; ++g) {
      double sum = 0;
      for (size_t i = 0; i < 25; ++i) sum += row[g * 25 + i];
      sums[g] = static_cast<float>(sum / 5.0);
    }
    return sums;
  };
  auto sample = [&](double centre) {
    std::vector<float> row(400);
    for (float& value : row) value = static_cast<float>(centre + rng.Uniform(-0.5, 0.5));
    return row;
  };
  for (int i = 0; i < 90; ++i) {
    const int64_t label = static_cast<int64_t>(rng.UniformInt(3));
    const std::vector<float> row = sample(0.2 * static_cast<double>(label));
    pooled.Insert(2, row, label, kNoLogits);
    plain.Insert(2, pool(row), label, kNoLogits);
  }
  EXPECT_EQ(pooled.entries(2), 90u);
  EXPECT_EQ(pooled.MemoryBytes(), 90u * 16 * sizeof(float));
  int hits = 0, misses = 0;
  for (int q = 0; q < 200; ++q) {
    const std::vector<float> query = sample(rng.Uniform(-0.3, 0.7));
    const auto answer = pooled.Lookup(2, query);
    const auto reference = plain.Lookup(2, pool(query));
    ASSERT_EQ(answer.has_value(), reference.has_value()) << q;
    if (answer) {
      EXPECT_EQ(answer->label, reference->label);
      ++hits;
    } else {
      ++misses;
    }
    const auto probed = pooled.Probe(2, query);
    const auto probed_reference = plain.Probe(2, pool(query));
    ASSERT_EQ(probed.has_value(), probed_reference.has_value());
    if (probed) {
      EXPECT_NEAR(probed->mean_distance, probed_reference->mean_distance, 1e-4);
    }
  }
  EXPECT_GT(hits, 20);
  EXPECT_GT(misses, 20);
  EXPECT_FALSE(pooled.Lookup(2, std::vector<float>(16, 0.0f)));  // the input width is 400
  EXPECT_THROW(pooled.Insert(2, std::vector<float>(16, 0.0f), 0, kNoLogits), std::invalid_argument);
}

// FitLowerBound swaps the block sums for the rows' principal directions (a much tighter bound
// on correlated rows); Lookup must still answer exactly as the full search, also after online
// inserts (projected with the fitted directions, some replacing reservoir entries). The rows
// spread over 24 latent directions, more than the 8 the first pass bounds by, so the first
// measured rows are often not the nearest and the skipping decides the answer.
TEST(KnnCache, FittedLowerBoundAnswersAsTheFullSearch) {
  constexpr int kWidth = 400;
  constexpr int kLatent = 24;
  KnnCacheOptions options = Options(5, 0.0, 60);
  KnnCacheOptions plain_options = options;
  plain_options.lower_bound_groups = 0;
  KnnCache cache(options);
  KnnCache plain(plain_options);
  Rng rng(13);
  std::vector<std::vector<float>> directions(kLatent, std::vector<float>(kWidth));
  for (auto& direction : directions) {
    for (float& value : direction) value = static_cast<float>(rng.Uniform(-0.1, 0.1));
  }
  auto sample = [&](int64_t* label) {
    std::vector<double> latent(kLatent);
    for (int d = 0; d < kLatent; ++d) latent[d] = rng.Uniform(-1, 1) * (1.0 - 0.03 * d);
    latent[0] *= 4;  // the label's direction
    *label = latent[0] < -1.3 ? 0 : (latent[0] < 1.3 ? 1 : 2);
    std::vector<float> row(kWidth);
    for (int i = 0; i < kWidth; ++i) {
      double value = rng.Uniform(-0.01, 0.01);
      for (int d = 0; d < kLatent; ++d) value += latent[d] * directions[d][i];
      row[i] = static_cast<float>(value);
    }
    return row;
  };
  auto insert = [&](int count) {
    for (int i = 0; i < count; ++i) {
      int64_t label = 0;
      const std::vector<float> row = sample(&label);
      cache.Insert(2, row, label, kNoLogits);
      plain.Insert(2, row, label, kNoLogits);
    }
  };
  insert(150);
  EXPECT_EQ(cache.lower_bound_dims(2), 16u);  // block sums until fitted
  EXPECT_EQ(cache.FitLowerBound(), 1);
  EXPECT_EQ(cache.lower_bound_dims(2), 32u);
  EXPECT_EQ(plain.FitLowerBound(), 0);  // no bound kept there
  EXPECT_EQ(plain.lower_bound_dims(2), 0u);
  // Bounds around the typical k-nearest mean distance, so that both outcomes occur.
  std::vector<double> probed;
  for (int q = 0; q < 40; ++q) {
    int64_t label = 0;
    const std::optional<KnnCache::Probed> p = cache.Probe(2, sample(&label));
    if (p) probed.push_back(p->mean_distance);
  }
  ASSERT_GT(probed.size(), 10u);
  std::sort(probed.begin(), probed.end());
  const double typical = probed[probed.size() / 2];
  const std::vector<double> bounds = {0.6 * typical, 0.9 * typical, 1.1 * typical, 1.5 * typical,
                                      10 * typical};
  auto query = [&] {
    int64_t label = 0;
    return sample(&label);
  };
  int hits = 0, misses = 0;
  ExpectFullSearchAnswers(cache, plain, bounds, 80, query, &hits, &misses);
  insert(150);  // online inserts after the fit: 300 > 3 x 60, so reservoirs replace entries
  EXPECT_EQ(cache.entries(2), 180u);
  ExpectFullSearchAnswers(cache, plain, bounds, 80, query, &hits, &misses);
  EXPECT_GT(hits, 100);  // both outcomes exercised
  EXPECT_GT(misses, 100);
}

// Rows of rank 2 (the covariance annihilates most directions) with exact duplicates (ties,
// broken by row index): the fitted directions stay orthonormal and the answers exact.
TEST(KnnCache, FittedLowerBoundStaysExactOnDegenerateRows) {
  constexpr int kWidth = 128;
  KnnCacheOptions options = Options(3, 0.0, 80);
  KnnCacheOptions plain_options = options;
  plain_options.lower_bound_groups = 0;
  KnnCache cache(options);
  KnnCache plain(plain_options);
  Rng rng(17);
  auto sample = [&](int a, int b) {
    std::vector<float> row(kWidth, 0.5f);
    for (int i = 0; i < kWidth; i += 2) row[i] += 0.25f * static_cast<float>(a);
    row[1] += 0.5f * static_cast<float>(b);
    return row;
  };
  for (int i = 0; i < 150; ++i) {
    const int a = static_cast<int>(rng.UniformInt(4));
    const int b = static_cast<int>(rng.UniformInt(3));
    const int64_t label = (a + b) % 3;
    cache.Insert(2, sample(a, b), label, kNoLogits);
    plain.Insert(2, sample(a, b), label, kNoLogits);
  }
  EXPECT_EQ(cache.FitLowerBound(), 1);
  EXPECT_EQ(cache.lower_bound_dims(2), 32u);
  int hits = 0, misses = 0;
  auto query = [&] {
    return sample(static_cast<int>(rng.UniformInt(5)), static_cast<int>(rng.UniformInt(4)));
  };
  ExpectFullSearchAnswers(cache, plain, {0.0, 0.5, 1.0, 2.0, 8.0}, 60, query, &hits, &misses);
  EXPECT_GT(hits, 20);
  EXPECT_GT(misses, 20);
}

TEST(KnnCache, FitNeedsTwiceItsDirectionsInRows) {
  KnnCache cache(Options(1, 1.0));
  for (int i = 0; i < 63; ++i) {
    cache.Insert(2, std::vector<float>(100, static_cast<float>(i)), i % 3, kNoLogits);
  }
  EXPECT_EQ(cache.FitLowerBound(), 0);        // 63 rows < 2 x 32 directions
  EXPECT_EQ(cache.lower_bound_dims(2), 15u);  // blocks of 7 (a width of 100 in <= 16 groups)
  cache.Insert(2, std::vector<float>(100, 63.0f), 0, kNoLogits);
  EXPECT_EQ(cache.FitLowerBound(), 1);
  EXPECT_EQ(cache.lower_bound_dims(2), 32u);
  const auto hit = cache.Lookup(2, std::vector<float>(100, 63.05f));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->label, 0);
}

TEST(KnnCache, RefusesInconsistentOptions) {
  KnnCacheOptions options = Options(1, 1.0);
  options.max_distance = {1.0};
  EXPECT_THROW(KnnCache{options}, UsageError);
  options = Options(0, 1.0);
  EXPECT_THROW(KnnCache{options}, UsageError);
  options = Options(1, 1.0);
  options.layers = {4, 2};
  EXPECT_THROW(KnnCache{options}, UsageError);
  options = Options(1, 1.0);
  options.lower_bound_groups = -1;
  EXPECT_THROW(KnnCache{options}, UsageError);
  options = Options(1, 1.0);
  options.principal_dims = -1;
  EXPECT_THROW(KnnCache{options}, UsageError);
}

}  // namespace
}  // namespace jigsaw
