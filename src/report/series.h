// Turning result columns into chart data of bounded size.
//
// A Series is the points to draw plus how many the source had, so a chart can say it was
// downsampled. EmpiricalCdf: the values sorted, point i at (v_i, (i + 1) / n), non-finite values
// dropped; beyond max_points it keeps ranks evenly spaced over [0, n - 1], the first and last
// always. Downsample (a time series in x order): beyond max_points it cuts the points into
// max_points / 2 runs of equal count and keeps each run's lowest and highest y, in x order, so
// spikes (a queue's peak) survive. StepCount: the number of [start, end) intervals covering each
// moment, as a step series (PFC pauses in force over time).
#ifndef JIGSAW_REPORT_SERIES_H_
#define JIGSAW_REPORT_SERIES_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace jigsaw::report {

struct Point {
  double x = 0;
  double y = 0;
};

struct Series {
  std::vector<Point> points;
  size_t source_points = 0;
  bool downsampled() const { return points.size() < source_points; }
};

// The default bound on the points of one line of a chart.
inline constexpr size_t kMaxPointsPerLine = 1000;

Series EmpiricalCdf(std::vector<double> values, size_t max_points);
Series Downsample(const std::vector<Point>& points, size_t max_points);
std::vector<Point> StepCount(const std::vector<std::pair<double, double>>& intervals);

// " (downsampled to at most N points per line)" when any of `series` was, else "".
std::string DownsampleNote(const std::vector<const Series*>& series, size_t max_points);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_SERIES_H_
