#include "net/topology.h"

#include <string_view>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw::net {
namespace {

uint32_t ParseNodeId(const TextFile& file, std::string_view field, std::string_view what,
                     uint32_t num_nodes) {
  long long id = file.ParseInt(field, what);
  if (id < 0 || id >= num_nodes) {
    file.Fail(std::string(what) + ": node id " + std::to_string(id) + " out of range 0.." +
              std::to_string(num_nodes - 1));
  }
  return static_cast<uint32_t>(id);
}

Topology ParseTopology(TextFile& file) {
  std::string_view line;
  if (!file.NextLine(&line)) file.Fail("empty file: expected '<nodes> <switches> <links>'");
  auto header = SplitOnBlanks(line);
  if (header.size() != 3) file.Fail("expected '<nodes> <switches> <links>' on the first line");
  long long nodes = file.ParseInt(header[0], "nodes");
  long long switches = file.ParseInt(header[1], "switches");
  long long links = file.ParseInt(header[2], "links");
  if (nodes < 2 || nodes > kMaxTopologyNodes) {
    file.Fail("expected 2.." + std::to_string(kMaxTopologyNodes) + " nodes (docs/limits.md)");
  }
  if (switches < 0 || switches >= nodes) file.Fail("expected 0 <= switches < nodes");
  if (links < 1 || links > kMaxTopologyLinks) {
    file.Fail("expected 1.." + std::to_string(kMaxTopologyLinks) + " links (docs/limits.md)");
  }

  Topology topology;
  topology.name = file.name();
  topology.is_switch.assign(static_cast<size_t>(nodes), 0);
  const uint32_t num_nodes = static_cast<uint32_t>(nodes);

  if (!file.NextLine(&line)) file.Fail("missing line 2: the switch ids");
  auto ids = SplitOnBlanks(line);
  if (static_cast<long long>(ids.size()) != switches) {
    file.Fail("expected " + std::to_string(switches) + " switch ids, found " +
              std::to_string(ids.size()));
  }
  for (std::string_view field : ids) {
    uint32_t id = ParseNodeId(file, field, "switch id", num_nodes);
    if (topology.is_switch[id]) file.Fail("switch id " + std::to_string(id) + " listed twice");
    topology.is_switch[id] = 1;
  }

  while (file.NextLine(&line)) {
    auto fields = SplitOnBlanks(line);
    if (fields.empty()) continue;
    if (static_cast<long long>(topology.links.size()) == links) {
      file.Fail("more link lines than the " + std::to_string(links) + " announced on line 1");
    }
    if (fields.size() != 5) file.Fail("expected '<a> <b> <rate> <delay> <error_rate>'");
    Link link;
    link.a = ParseNodeId(file, fields[0], "column 1 (a)", num_nodes);
    link.b = ParseNodeId(file, fields[1], "column 2 (b)", num_nodes);
    if (link.a == link.b) file.Fail("a link from node " + std::to_string(link.a) + " to itself");
    if (!ParseRate(fields[2], &link.rate_bps)) {
      file.Fail("column 3 (rate): expected a rate like 200Gbps, got '" + Excerpt(fields[2]) + "'");
    }
    if (!ParseDuration(fields[3], &link.delay) || link.delay > kMaxLinkDelayPs) {
      file.Fail(
          "column 4 (delay): expected a duration of at most 1s like 0.005ms or 1000ns "
          "(docs/limits.md), got '" +
          Excerpt(fields[3]) + "'");
    }
    link.error_rate = file.ParseDouble(fields[4], "column 5 (error_rate)");
    if (link.error_rate < 0 || link.error_rate >= 1) {
      file.Fail("column 5 (error_rate): expected a probability in [0, 1)");
    }
    topology.links.push_back(link);
  }
  if (static_cast<long long>(topology.links.size()) != links) {
    throw InputError(file.name(), file.line_number(),
                     "expected " + std::to_string(links) + " link lines, found " +
                         std::to_string(topology.links.size()));
  }
  return topology;
}

struct SpecReader {
  std::string spec;
  std::vector<std::pair<std::string, std::string>> pairs;

  std::string Take(const std::string& key) {
    for (auto it = pairs.begin(); it != pairs.end(); ++it) {
      if (it->first == key) {
        std::string value = it->second;
        pairs.erase(it);
        return value;
      }
    }
    return "";
  }
  [[noreturn]] void Fail(const std::string& message) const {
    throw UsageError("topology spec '" + Excerpt(spec) + "': " + message);
  }
  int Int(const std::string& key, int fallback) {
    std::string value = Take(key);
    if (value.empty()) return fallback;
    try {
      size_t used = 0;
      int result = std::stoi(value, &used);
      if (used == value.size()) return result;
    } catch (const std::exception&) {
    }
    Fail(key + ": expected an integer, got '" + Excerpt(value) + "'");
  }
  uint64_t Rate(const std::string& key, uint64_t fallback) {
    std::string value = Take(key);
    if (value.empty()) return fallback;
    uint64_t rate;
    if (!ParseRate(value, &rate)) {
      Fail(key + ": expected a rate like 100Gbps, got '" + Excerpt(value) + "'");
    }
    return rate;
  }
  Time Duration(const std::string& key, Time fallback) {
    std::string value = Take(key);
    if (value.empty()) return fallback;
    Time time;
    if (!ParseDuration(value, &time) || time > kMaxLinkDelayPs) {
      Fail(key + ": expected a duration of at most 1s like 1us (docs/limits.md), got '" +
           Excerpt(value) + "'");
    }
    return time;
  }
  uint64_t Bytes(const std::string& key, uint64_t fallback) {
    std::string value = Take(key);
    if (value.empty()) return fallback;
    uint64_t bytes;
    if (!ParseBytes(value, &bytes)) {
      Fail(key + ": expected a size like 16MiB, got '" + Excerpt(value) + "'");
    }
    return bytes;
  }
  void RequireAllUsed() const {
    if (!pairs.empty()) Fail("unknown key '" + Excerpt(pairs.front().first) + "'");
  }
};

SpecReader ReadSpec(const std::string& spec, size_t colon) {
  SpecReader reader{spec, {}};
  for (std::string_view item : SplitFields(std::string_view(spec).substr(colon + 1), ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      reader.Fail("expected key=value, got '" + Excerpt(item) + "'");
    reader.pairs.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
  }
  return reader;
}

}  // namespace

std::vector<uint32_t> Topology::HostNodes() const {
  std::vector<uint32_t> hosts;
  for (uint32_t node = 0; node < num_nodes(); ++node) {
    if (!is_switch[node]) hosts.push_back(node);
  }
  return hosts;
}

uint32_t Topology::num_switches() const {
  uint32_t count = 0;
  for (uint8_t s : is_switch) count += s;
  return count;
}

Topology ReadTopologyFile(const std::string& path) {
  TextFile file(path);
  return ParseTopology(file);
}

Topology ParseTopologyText(const std::string& name, const std::string& text) {
  TextFile file(name, text);
  return ParseTopology(file);
}

Topology MakeFatTree(int k, uint64_t rate_bps, Time delay) {
  if (k < 2 || k % 2 != 0 || k > 64) {
    throw UsageError("fat-tree: k must be even and in 2..64, got " + std::to_string(k));
  }
  const uint32_t half = static_cast<uint32_t>(k / 2);
  const uint32_t pods = static_cast<uint32_t>(k);
  const uint32_t hosts = pods * half * half;
  const uint32_t edge_base = hosts;
  const uint32_t agg_base = edge_base + pods * half;
  const uint32_t core_base = agg_base + pods * half;
  const uint32_t nodes = core_base + half * half;

  Topology topology;
  topology.name = "fattree:k=" + std::to_string(k);
  topology.is_switch.assign(nodes, 1);
  for (uint32_t h = 0; h < hosts; ++h) topology.is_switch[h] = 0;
  auto add = [&](uint32_t a, uint32_t b) { topology.links.push_back({a, b, rate_bps, delay, 0}); };
  for (uint32_t h = 0; h < hosts; ++h) add(h, edge_base + h / half);
  for (uint32_t pod = 0; pod < pods; ++pod) {
    for (uint32_t e = 0; e < half; ++e) {
      for (uint32_t a = 0; a < half; ++a)
        add(edge_base + pod * half + e, agg_base + pod * half + a);
    }
    for (uint32_t a = 0; a < half; ++a) {
      for (uint32_t c = 0; c < half; ++c) add(agg_base + pod * half + a, core_base + a * half + c);
    }
  }
  return topology;
}

Topology MakeClos(const ClosSpec& spec) {
  // In 64 bits: leaves x hosts overflowed int before it was compared with the limit.
  const int64_t leaves = spec.leaves, spines = spec.spines, per_leaf = spec.hosts_per_leaf;
  if (leaves < 1 || spines < 1 || per_leaf < 1 || leaves * per_leaf > 1'000'000 ||
      leaves + spines + leaves * per_leaf > kMaxTopologyNodes ||
      leaves * per_leaf + leaves * spines > kMaxTopologyLinks) {
    throw UsageError(
        "clos: leaves, spines and hosts must be positive, with at most 1000000 hosts "
        "and " +
        std::to_string(kMaxTopologyLinks) +
        " links (docs/limits.md); got leaves=" + std::to_string(leaves) +
        ", spines=" + std::to_string(spines) + ", hosts=" + std::to_string(per_leaf));
  }
  const uint32_t hosts = static_cast<uint32_t>(spec.leaves * spec.hosts_per_leaf);
  const uint32_t leaf_base = hosts;
  const uint32_t spine_base = leaf_base + static_cast<uint32_t>(spec.leaves);
  Topology topology;
  topology.name = "clos:leaves=" + std::to_string(spec.leaves) +
                  ",spines=" + std::to_string(spec.spines) +
                  ",hosts=" + std::to_string(spec.hosts_per_leaf);
  topology.is_switch.assign(spine_base + static_cast<uint32_t>(spec.spines), 1);
  for (uint32_t h = 0; h < hosts; ++h) topology.is_switch[h] = 0;
  for (uint32_t h = 0; h < hosts; ++h) {
    topology.links.push_back(
        {h, leaf_base + h / spec.hosts_per_leaf, spec.host_rate_bps, spec.host_delay, 0});
  }
  for (uint32_t leaf = 0; leaf < static_cast<uint32_t>(spec.leaves); ++leaf) {
    for (uint32_t spine = 0; spine < static_cast<uint32_t>(spec.spines); ++spine) {
      topology.links.push_back(
          {leaf_base + leaf, spine_base + spine, spec.fabric_rate_bps, spec.fabric_delay, 0});
    }
  }
  return topology;
}

Topology MakeRack(const RackSpec& spec) {
  if (spec.hosts < 2 || spec.hosts > 4096) {
    throw UsageError("rack: hosts must be in 2..4096, got " + std::to_string(spec.hosts));
  }
  if (spec.rate_bps < 1'000'000 || spec.rate_bps > 10'000'000'000'000ull) {
    throw UsageError("rack: the link rate must be 1 Mbps..10 Tbps");
  }
  if (spec.buffer_bytes < 65536 || spec.buffer_bytes > (1ull << 34)) {
    throw UsageError("rack: the switch buffer must be 64KiB..16GiB");
  }
  const uint32_t hosts = static_cast<uint32_t>(spec.hosts);
  Topology topology;
  topology.name = "rack:hosts=" + std::to_string(hosts);
  topology.is_switch.assign(hosts + 1, 0);
  topology.is_switch[hosts] = 1;
  for (uint32_t h = 0; h < hosts; ++h) {
    topology.links.push_back({h, hosts, spec.rate_bps, spec.delay, 0});
  }
  topology.switch_buffer_bytes = spec.buffer_bytes;
  return topology;
}

Topology LoadTopology(const std::string& spec_or_path) {
  size_t colon = spec_or_path.find(':');
  std::string kind = colon == std::string::npos ? "" : spec_or_path.substr(0, colon);
  if (kind == "fattree") {
    SpecReader reader = ReadSpec(spec_or_path, colon);
    int k = reader.Int("k", 4);
    uint64_t rate = reader.Rate("rate", 100'000'000'000);
    Time delay = reader.Duration("delay", kMicrosecond);
    reader.RequireAllUsed();
    return MakeFatTree(k, rate, delay);
  }
  if (kind == "clos") {
    SpecReader reader = ReadSpec(spec_or_path, colon);
    ClosSpec spec;
    spec.leaves = reader.Int("leaves", spec.leaves);
    spec.spines = reader.Int("spines", spec.spines);
    spec.hosts_per_leaf = reader.Int("hosts", spec.hosts_per_leaf);
    spec.host_rate_bps = reader.Rate("rate", spec.host_rate_bps);
    spec.fabric_rate_bps = reader.Rate("fabric_rate", spec.host_rate_bps);
    spec.host_delay = reader.Duration("host_delay", spec.host_delay);
    spec.fabric_delay = reader.Duration("fabric_delay", spec.fabric_delay);
    reader.RequireAllUsed();
    return MakeClos(spec);
  }
  if (kind == "rack") {
    SpecReader reader = ReadSpec(spec_or_path, colon);
    RackSpec spec;
    spec.hosts = reader.Int("hosts", spec.hosts);
    // The link rate: gbps=N (whole Gbps) or rate=RATE (any rate, e.g. 200Mbps), not both.
    bool gbps_given = false;
    for (const auto& pair : reader.pairs) gbps_given |= pair.first == "gbps";
    const uint64_t rate = reader.Rate("rate", 0);
    if (rate > 0 && gbps_given) reader.Fail("give the link rate as gbps= or rate=, not both");
    const int gbps = reader.Int("gbps", static_cast<int>(spec.rate_bps / 1'000'000'000));
    if (gbps < 1 || gbps > 10000) reader.Fail("gbps: expected 1..10000");
    spec.rate_bps = rate > 0 ? rate : static_cast<uint64_t>(gbps) * 1'000'000'000;
    spec.delay = reader.Duration("delay", spec.delay);
    spec.buffer_bytes = reader.Bytes("buffer", spec.buffer_bytes);
    reader.RequireAllUsed();
    return MakeRack(spec);
  }
  return ReadTopologyFile(spec_or_path);
}

}  // namespace jigsaw::net
