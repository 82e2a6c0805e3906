#include "report/series.h"

#include <algorithm>
#include <cmath>

namespace jigsaw::report {

Series EmpiricalCdf(std::vector<double> values, size_t max_points) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  std::sort(values.begin(), values.end());
  Series series;
  const size_t n = values.size();
  series.source_points = n;
  if (n == 0) return series;
  auto point = [&](size_t i) {
    return Point{values[i], static_cast<double>(i + 1) / static_cast<double>(n)};
  };
  if (n <= max_points || max_points < 2) {
    for (size_t i = 0; i < n; ++i) series.points.push_back(point(i));
    return series;
  }
  for (size_t k = 0; k < max_points; ++k) {
    const size_t i = static_cast<size_t>(
        std::llround(static_cast<double>(k) * (n - 1) / static_cast<double>(max_points - 1)));
    series.points.push_back(point(i));
  }
  return series;
}

Series Downsample(const std::vector<Point>& points, size_t max_points) {
  Series series;
  series.source_points = points.size();
  if (points.size() <= max_points || max_points < 2) {
    series.points = points;
    return series;
  }
  const size_t buckets = max_points / 2;
  const size_t n = points.size();
  for (size_t b = 0; b < buckets; ++b) {
    const size_t begin = b * n / buckets;
    const size_t end = (b + 1) * n / buckets;
    if (begin >= end) continue;
    size_t low = begin, high = begin;
    for (size_t i = begin; i < end; ++i) {
      if (points[i].y < points[low].y) low = i;
      if (points[i].y > points[high].y) high = i;
    }
    series.points.push_back(points[std::min(low, high)]);
    if (low != high) series.points.push_back(points[std::max(low, high)]);
  }
  return series;
}

std::vector<Point> StepCount(const std::vector<std::pair<double, double>>& intervals) {
  std::vector<std::pair<double, int>> edges;
  for (const auto& [start, end] : intervals) {
    if (!(end > start)) continue;
    edges.push_back({start, +1});
    edges.push_back({end, -1});
  }
  std::sort(edges.begin(), edges.end());
  std::vector<Point> steps;
  int count = 0;
  for (size_t i = 0; i < edges.size();) {
    const double x = edges[i].first;
    const int before = count;
    while (i < edges.size() && edges[i].first == x) count += edges[i++].second;
    steps.push_back({x, static_cast<double>(before)});
    steps.push_back({x, static_cast<double>(count)});
  }
  return steps;
}

std::string DownsampleNote(const std::vector<const Series*>& series, size_t max_points) {
  for (const Series* s : series) {
    if (s->downsampled()) {
      return " (downsampled to at most " + std::to_string(max_points) + " points per line)";
    }
  }
  return "";
}

}  // namespace jigsaw::report
