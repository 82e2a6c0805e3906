#include "net/flow_file.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/limits.h"
#include "core/rng.h"
#include "net/packet.h"

namespace jigsaw::net {
namespace {

// Web search (DCTCP, Alizadeh et al., SIGCOMM 2010), as HPCC's
// traffic_gen/WebSearch_distribution.txt gives it: (bytes, cumulative percent).
const std::vector<std::pair<double, double>> kWebSearch = {
    {0, 0},       {10000, 15},   {20000, 20},   {30000, 30},   {50000, 40},    {80000, 53},
    {200000, 60}, {1000000, 70}, {2000000, 80}, {5000000, 90}, {10000000, 97}, {30000000, 100}};

// Data mining (VL2, Greenberg et al., SIGCOMM 2009, Fig. 2), as digitised in the Opera
// simulator's Figure1_traffic/datamining.csv (TritonNetworking/opera-sim).
const std::vector<std::pair<double, double>> kDataMining = {
    {100, 0},          {180, 8.5},       {250, 14},      {560, 33},      {900, 47},
    {1100, 55},        {1870, 65},       {3160, 70},     {10000, 80},    {100001, 87.4},
    {400000, 90},      {1850000, 95},    {10000000, 97}, {30000000, 98}, {100000000, 99},
    {250000000, 99.5}, {1000000000, 100}};

}  // namespace

std::vector<FlowSpec> ParseFlowFile(TextFile& file, const Topology& topology) {
  std::vector<uint32_t> rank(topology.num_nodes(), UINT32_MAX);
  {
    uint32_t next = 0;
    for (uint32_t node = 0; node < topology.num_nodes(); ++node) {
      if (!topology.is_switch[node]) rank[node] = next++;
    }
  }
  std::string_view line;
  auto next_line = [&]() {
    while (file.NextLine(&line)) {
      if (!Trim(line).empty()) return true;
    }
    return false;
  };
  if (!next_line()) file.Fail("empty flow file: expected the number of flows on the first line");
  const auto header = SplitOnBlanks(line);
  if (header.size() != 1) file.Fail("expected the number of flows alone on the first line");
  const long long count = file.ParseIntInRange(header[0], "the number of flows", 0,
                                               static_cast<long long>(kMaxNetFlowFileFlows));
  std::vector<FlowSpec> flows;
  flows.reserve(static_cast<size_t>(count));
  auto host = [&](std::string_view field, std::string_view what) {
    const long long node =
        file.ParseIntInRange(field, what, 0, static_cast<long long>(topology.num_nodes()) - 1);
    if (rank[node] == UINT32_MAX) {
      file.Fail(std::string(what) + ": node " + std::to_string(node) + " is a switch in " +
                topology.name + ", expected a host");
    }
    return rank[node];
  };
  while (next_line()) {
    if (static_cast<long long>(flows.size()) == count) {
      file.Fail("the first line says " + std::to_string(count) +
                " flows, but more lines follow (fix the count or remove the extra lines)");
    }
    const auto fields = SplitOnBlanks(line);
    if (fields.size() != 6) {
      file.Fail("expected 6 blank-separated columns: src dst priority dport size start_time_s");
    }
    FlowSpec flow;
    flow.src_host = host(fields[0], "column 1 (src node)");
    flow.dst_host = host(fields[1], "column 2 (dst node)");
    if (flow.src_host == flow.dst_host) file.Fail("src and dst are the same node");
    flow.priority = static_cast<uint8_t>(
        file.ParseIntInRange(fields[2], "column 3 (priority)", 0, kNumPriorities - 1));
    file.ParseIntInRange(fields[3], "column 4 (dport)", 0, 65535);
    flow.bytes = static_cast<uint64_t>(file.ParseIntInRange(
        fields[4], "column 5 (size, bytes)", 1, static_cast<long long>(kMaxCollectiveBytes)));
    const double start = file.ParseDoubleInRange(fields[5], "column 6 (start time, seconds)", 0,
                                                 ToMicroseconds(kMaxTime) * 1e-6 / 2);
    flow.start = SaturatingTime(std::round(start * 1e12));
    flows.push_back(flow);
  }
  if (static_cast<long long>(flows.size()) != count) {
    throw InputError(file.name(), 1,
                     "the first line says " + std::to_string(count) + " flows, but " +
                         std::to_string(flows.size()) + " follow");
  }
  return flows;
}

std::vector<FlowSpec> ReadFlowFile(const std::string& path, const Topology& topology) {
  TextFile file(path);
  return ParseFlowFile(file, topology);
}

SizeCdf SizeCdf::Parse(TextFile& file) {
  SizeCdf cdf;
  cdf.name_ = file.name();
  std::string_view line;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const auto fields = SplitOnBlanks(line);
    if (fields.size() != 2) file.Fail("expected 2 blank-separated columns: size_bytes percent");
    const double bytes = file.ParseDoubleInRange(fields[0], "column 1 (size, bytes)", 0,
                                                 static_cast<double>(kMaxCollectiveBytes));
    const double percent = file.ParseDoubleInRange(fields[1], "column 2 (percent)", 0, 100);
    if (cdf.points_.empty() && percent != 0) file.Fail("the first point must have percent 0");
    if (!cdf.points_.empty() &&
        (bytes <= cdf.points_.back().first || percent <= cdf.points_.back().second)) {
      file.Fail("sizes and percents must both increase strictly from line to line");
    }
    cdf.points_.push_back({bytes, percent});
  }
  if (cdf.points_.size() < 2 || cdf.points_.back().second != 100) {
    throw InputError(file.name(), file.line_number(),
                     "expected at least two points, the last with percent 100");
  }
  return cdf;
}

SizeCdf SizeCdf::Load(const std::string& name_or_path) {
  SizeCdf cdf;
  if (name_or_path == "websearch" || name_or_path == "datamining") {
    cdf.name_ = name_or_path;
    cdf.points_ = name_or_path == "websearch" ? kWebSearch : kDataMining;
    return cdf;
  }
  TextFile file(name_or_path);
  return Parse(file);
}

double SizeCdf::Mean() const {
  double sum = 0;
  for (size_t i = 1; i < points_.size(); ++i) {
    sum +=
        (points_[i].first + points_[i - 1].first) / 2 * (points_[i].second - points_[i - 1].second);
  }
  return sum / 100;
}

uint64_t SizeCdf::SizeAt(double u) const {
  const double percent = std::clamp(u, 0.0, 1.0) * 100;
  size_t i = 1;
  while (i + 1 < points_.size() && percent > points_[i].second) ++i;
  const auto [x0, y0] = points_[i - 1];
  const auto [x1, y1] = points_[i];
  const double bytes = x0 + (x1 - x0) / (y1 - y0) * (percent - y0);
  return std::max<uint64_t>(1, static_cast<uint64_t>(bytes));
}

std::vector<FlowSpec> GenerateBackground(const SizeCdf& cdf, const BackgroundSpec& spec,
                                         const std::vector<uint32_t>& hosts,
                                         const std::vector<uint64_t>& host_rate_bps) {
  if (hosts.size() < 2) throw UsageError("background traffic needs at least 2 hosts");
  if (!(spec.load > 0 && spec.load <= 1)) {
    throw UsageError("background load must be in (0, 1] of the host link rate");
  }
  Rng rng(spec.seed);
  std::vector<FlowSpec> flows;
  const double mean_bytes = cdf.Mean();
  for (size_t h = 0; h < hosts.size(); ++h) {
    // Mean gap so that mean_bytes per gap is `load` of the host's rate, in picoseconds.
    const double gap = mean_bytes * 8 * 1e12 / (spec.load * static_cast<double>(host_rate_bps[h]));
    double t = static_cast<double>(spec.start) + rng.Exponential(gap);
    const double end = static_cast<double>(spec.start) + static_cast<double>(spec.duration);
    while (t < end) {
      FlowSpec flow;
      flow.src_host = hosts[h];
      size_t other = static_cast<size_t>(rng.UniformInt(hosts.size() - 1));
      if (other >= h) ++other;
      flow.dst_host = hosts[other];
      flow.bytes = cdf.SizeAt(rng.Uniform());
      flow.start = static_cast<Time>(t);
      flow.priority = spec.priority;
      flows.push_back(flow);
      if (flows.size() > kMaxNetFlowFileFlows) {
        throw UsageError("background traffic would start more than " +
                         std::to_string(kMaxNetFlowFileFlows) +
                         " flows; lower the load or the duration");
      }
      t += rng.Exponential(gap);
    }
  }
  std::stable_sort(flows.begin(), flows.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return flows;
}

}  // namespace jigsaw::net
