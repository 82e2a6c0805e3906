// Summary statistics over samples. Empty input yields 0 (callers report counts separately).
#ifndef JIGSAW_CORE_STATS_H_
#define JIGSAW_CORE_STATS_H_

#include <vector>

namespace jigsaw {

double Mean(const std::vector<double>& values);
// exp(mean(log(v))); values must be positive.
double GeometricMean(const std::vector<double>& values);
double HarmonicMean(const std::vector<double>& values);
double Max(const std::vector<double>& values);
// Linear-interpolated percentile, p in [0, 100].
double Percentile(std::vector<double> values, double p);
// Fraction of values strictly greater than threshold.
double FractionAbove(const std::vector<double>& values, double threshold);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_STATS_H_
