// Freeze Inference's approximate cache: at each chosen layer, the pooled activations of samples
// the base model answered, with its labels; a lookup finds the k nearest stored activations (L2,
// brute force) and hits when all k carry the same label and their mean distance is at most the
// layer's bound. The hit answers with that label (scores empty: one-hot).
//
// Size reduction (Freeze discusses it): each layer keeps at most `per_class_capacity` entries per
// class, a uniform reservoir sample of the inserts of that class (seeded, so runs repeat).
// Fewer than k stored entries at a layer is a miss. Lookup abandons rows farther than k times the
// bound (none of them can be among a hit's neighbours), so misses on far-away inputs are cheap. A
// layer's feature width is fixed by its first insert; a lookup of another width is a miss, an
// insert of another width throws std::invalid_argument (a serving-path bug, not user input).
//
// Cheaper lookups, same answers: each row also keeps its projection onto a few orthonormal
// directions. Projection never lengthens a vector, so the squared distance of two rows'
// projections is a lower bound of their squared L2 distance. The directions start as
// `lower_bound_groups` normalised block indicators (each value the sum of a contiguous block
// divided by the square root of its size; LeNet's 16x5x5 map gives the channel average pools);
// FitLowerBound replaces them by the stored rows' `principal_dims` principal directions, which
// hold most of the rows' spread, so the bound is far tighter. Lookup bounds every row by the
// first 8 projected values, measures the k rows with the smallest of those first, then skips
// every row whose bound (first by 8 values, then by all) exceeds the k-th nearest so far (or k
// times the bound), with a margin for float rounding, and measures the rest nearest bound first.
// Ties are broken by row index in class order, so the k kept rows are the full search's. Probe
// (calibration) scans every row in full and is the reference.
//
// Calibration (calibration.h): Probe gives the score of a would-be hit ignoring the bound (the k
// neighbours' common label and mean distance); set_max_distance installs a calibrated bound.
#ifndef JIGSAW_SERVE_KNN_CACHE_H_
#define JIGSAW_SERVE_KNN_CACHE_H_

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "serve/layer_cache.h"

namespace jigsaw {

struct KnnCacheOptions {
  std::vector<int> layers;           // ascending, >= 0
  std::vector<double> max_distance;  // per layer: bound on the k neighbours' mean L2 distance
  int k = 5;
  int classes = 10;
  int per_class_capacity = 200;
  // Block sums per row for Lookup's lower bound; used on layers at least 4 x this wide, 0: never.
  int lower_bound_groups = 16;
  // Directions FitLowerBound fits per bounded layer (at most half its width), 0: keep the blocks.
  int principal_dims = 32;
  // Layers at least this wide keep and compare only their `lower_bound_groups` group sums
  // (approximate, unlike the bound: a cheaper distance the calibration then sees); 0: never.
  size_t pool_width = 0;
  uint64_t seed = 1;
};

class KnnCache : public LayerCache {
 public:
  explicit KnnCache(KnnCacheOptions options);  // throws UsageError on inconsistent options

  std::string kind() const override { return "freeze"; }
  const std::vector<int>& layers() const override { return options_.layers; }
  std::optional<CacheAnswer> Lookup(int layer, std::span<const float> features) override;
  void Insert(int layer, std::span<const float> features, int64_t label,
              std::span<const float> logits) override;
  size_t MemoryBytes() const override;

  struct Probed {
    int64_t label = 0;
    double mean_distance = 0;
  };
  // The k nearest entries' common label and mean distance, whatever the bound; nullopt when
  // fewer than k are stored, the width differs or they disagree.
  std::optional<Probed> Probe(int layer, std::span<const float> features) const;
  // Throws UsageError if `layer` is not cached.
  void set_max_distance(int layer, double bound);

  // Entries stored at `layer` (all classes).
  size_t entries(int layer) const;
  // On every layer that keeps a lower bound and holds at least 2 x principal_dims rows: the
  // bound's directions become the stored rows' principal directions (subspace iteration on
  // their covariance, seeded; orthonormal in double precision) and every stored row is
  // projected again; later inserts use them. Answers do not change, only the work per lookup.
  // Returns the number of layers fitted.
  int FitLowerBound();
  // Values per row of `layer`'s lower bound (0: none).
  size_t lower_bound_dims(int layer) const;

 private:
  struct Store {
    size_t width = 0;                      // values compared per row (the group sums when pooled)
    size_t input_width = 0;                // features' width at this layer
    size_t pool_size = 0;                  // values per group sum of a pooled layer, 0: not pooled
    std::vector<std::vector<float>> rows;  // per class: row-major entries
    size_t group_size = 0;                 // values per block sum (until fitted), 0: no bound kept
    size_t groups = 0;                     // values per row's projection (the bound's directions)
    std::vector<double> basis;             // groups x width, orthonormal rows; empty: block sums
    double max_norm = 0;                   // largest L2 norm of any row stored so far
    std::vector<std::vector<float>> sums;  // per class: row-major projections, as `rows`
    std::vector<int64_t> seen;             // per class: inserts so far (reservoir sampling)
  };
  int Slot(int layer) const;  // index into stores_, -1 if not a cached layer
  // Probe at stores_[slot], ignoring rows whose squared distance exceeds `limit`; with
  // `use_lower_bound`, rows whose group-sum bound exceeds the current k-th nearest are skipped.
  std::optional<Probed> Nearest(int slot, std::span<const float> features, float limit,
                                bool use_lower_bound) const;
  // The projection of `features` onto the store's bound directions into `out` (store.groups
  // values).
  static void GroupSums(const Store& store, const float* features, float* out);
  // Principal directions of `store`'s rows (dims x width, orthonormal); empty if not finite.
  std::vector<double> PrincipalDirections(const Store& store, size_t dims) const;
  // Sums of consecutive blocks of `block` values of a width-long row, each divided by the square
  // root of its block's size, into `out`.
  static void BlockSums(const float* values, size_t width, size_t block, float* out);
  // What the store at `slot` compares: `features` itself, or its group sums (in `buffer`) on a
  // pooled layer; empty when the width does not match the layer's.
  std::span<const float> Compared(int slot, std::span<const float> features,
                                  std::vector<float>* buffer) const;

  KnnCacheOptions options_;
  std::vector<Store> stores_;
  Rng rng_;
};

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_KNN_CACHE_H_
