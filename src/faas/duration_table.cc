#include "faas/duration_table.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw::faas {

Time DurationQuantiles::Sample(double u) const {
  if (empty()) return 0;
  u = std::clamp(u, 0.0, 1.0);
  const auto upper = std::upper_bound(quantiles.begin(), quantiles.end(), u);
  if (upper == quantiles.end()) return durations.back();
  const size_t hi = static_cast<size_t>(upper - quantiles.begin());
  const size_t lo = hi - 1;  // quantiles[0] == 0 <= u
  const double span = quantiles[hi] - quantiles[lo];
  const double f = span > 0 ? (u - quantiles[lo]) / span : 0;
  return durations[lo] +
         static_cast<Time>(std::llround(f * static_cast<double>(durations[hi] - durations[lo])));
}

Time DurationQuantiles::Mean() const {
  double mean = 0;
  for (size_t i = 1; i < quantiles.size(); ++i) {
    mean += (quantiles[i] - quantiles[i - 1]) * 0.5 *
            (static_cast<double>(durations[i]) + static_cast<double>(durations[i - 1]));
  }
  return static_cast<Time>(std::llround(mean));
}

std::vector<DurationQuantiles> ReadDurationFile(const std::string& path, const Catalog& catalog) {
  return ParseDurationText(path, ReadWholeFile(path), catalog);
}

std::vector<DurationQuantiles> ParseDurationText(const std::string& name, const std::string& text,
                                                 const Catalog& catalog) {
  std::map<std::pair<std::string, std::string>, FunctionId> ids;
  for (FunctionId f = 0; f < catalog.functions.size(); ++f) {
    const Function& function = catalog.functions[f];
    ids[{catalog.dags[function.dag].name, function.name}] = f;
  }
  struct Row {
    double quantile;
    Time duration;
    int line;
  };
  std::vector<std::vector<Row>> rows(catalog.functions.size());
  TextFile file(name, text);
  std::string_view line;
  bool header = false;
  while (file.NextLine(&line)) {
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    if (!header) {
      if (trimmed != "dag,function,quantile,duration") {
        file.Fail("expected the header 'dag,function,quantile,duration'");
      }
      header = true;
      continue;
    }
    const std::vector<std::string_view> fields = SplitFields(trimmed, ',');
    file.RequireColumns(fields, 4, "dag,function,quantile,duration");
    const std::string dag(Trim(fields[0])), function(Trim(fields[1]));
    const auto found = ids.find({dag, function});
    if (found == ids.end()) {
      file.Fail("no function '" + Excerpt(function) + "' in a DAG '" + Excerpt(dag) +
                "' of the catalog");
    }
    const double quantile = file.ParseDoubleInRange(Trim(fields[2]), "column 3 (quantile)", 0, 1);
    Time duration = 0;
    const std::string duration_text(Trim(fields[3]));
    if (!net::ParseDuration(duration_text, &duration) || duration < 0 ||
        duration > 3600 * net::kSecond) {
      file.Fail("column 4 (duration): expected a duration up to 3600s like 12.5ms, got '" +
                Excerpt(duration_text) + "'");
    }
    for (const Row& row : rows[found->second]) {
      if (row.quantile == quantile) {
        file.Fail("quantile " + std::string(Trim(fields[2])) +
                  " of this function given twice (first on line " + std::to_string(row.line) + ")");
      }
    }
    rows[found->second].push_back({quantile, duration, file.line_number()});
  }
  if (!header) throw InputError(name, 1, "expected the header 'dag,function,quantile,duration'");
  std::vector<DurationQuantiles> table(catalog.functions.size());
  for (FunctionId f = 0; f < catalog.functions.size(); ++f) {
    std::vector<Row>& r = rows[f];
    if (r.empty()) continue;
    const std::string what = "function '" + catalog.dags[catalog.functions[f].dag].name + "," +
                             catalog.functions[f].name + "'";
    std::sort(r.begin(), r.end(),
              [](const Row& a, const Row& b) { return a.quantile < b.quantile; });
    if (r.front().quantile != 0 || r.back().quantile != 1) {
      throw InputError(name, r.front().line,
                       what +
                           ": expected rows at quantile 0 and at quantile 1 (the fastest and "
                           "the slowest run)");
    }
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i].duration < r[i - 1].duration) {
        throw InputError(name, r[i].line,
                         what + ": duration at quantile " + FormatNumber(r[i].quantile) +
                             " is below the one at quantile " + FormatNumber(r[i - 1].quantile) +
                             " (line " + std::to_string(r[i - 1].line) +
                             "): durations must not decrease as the quantile grows");
      }
    }
    DurationQuantiles& q = table[f];
    q.line = r.front().line;
    for (const Row& row : r) {
      q.quantiles.push_back(row.quantile);
      q.durations.push_back(row.duration);
    }
  }
  return table;
}

RecentDurations::RecentDurations(size_t functions, size_t capacity)
    : capacity_(capacity), ring_(functions), seen_(functions, 0) {}

void RecentDurations::Add(FunctionId function, Time duration) {
  std::vector<Time>& ring = ring_[function];
  if (ring.size() < capacity_) {
    ring.push_back(duration);
  } else {
    ring[seen_[function] % capacity_] = duration;
  }
  ++seen_[function];
}

std::vector<Time> RecentDurations::Quantiles(FunctionId function,
                                             const std::vector<double>& quantiles) const {
  std::vector<Time> sorted = ring_[function];
  if (sorted.empty()) return {};
  std::sort(sorted.begin(), sorted.end());
  std::vector<Time> result;
  for (double q : quantiles) {
    const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    result.push_back(sorted[static_cast<size_t>(std::llround(rank))]);
  }
  return result;
}

}  // namespace jigsaw::faas
