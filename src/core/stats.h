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
// Percentiles and quantiles share one definition of where they sit: percentile p (in
// [0, 100]) and quantile q (in [0, 1]) are at rank p / 100 x (n - 1), respectively q x (n - 1), of
// the n samples sorted ascending (rank 0 the smallest; NumPy's default method).
// Percentile interpolates linearly between the two samples around that rank.
double Percentile(std::vector<double> values, double p);
// SampleQuantile returns the sample nearest to that rank (a half rounds up), so it is always an
// observed value; `sorted` must be sorted ascending. Empty input yields 0.
double SampleQuantile(const std::vector<double>& sorted, double q);
// Fraction of values strictly greater than threshold.
double FractionAbove(const std::vector<double>& values, double threshold);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_STATS_H_
