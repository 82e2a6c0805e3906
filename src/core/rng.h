// Seeded, platform-independent pseudo-random numbers.
//
// The standard <random> distributions are implementation-defined, so outputs would differ between
// standard libraries; Rng implements xoshiro256** and its own distributions so the same seed gives
// byte-identical results everywhere.
#ifndef JIGSAW_CORE_RNG_H_
#define JIGSAW_CORE_RNG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jigsaw {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t NextU64();
  // Uniform in [0, 1).
  double Uniform();
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi);
  // Uniform integer in [0, n); n > 0.
  uint64_t UniformInt(uint64_t n);
  // Exponential with the given mean (> 0).
  double Exponential(double mean);
  // Index i drawn with probability weights[i] / sum(weights); weights non-negative, sum > 0.
  size_t WeightedIndex(const std::vector<double>& weights);

 private:
  uint64_t state_[4];
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_RNG_H_
