#include "net/chakra_job.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/error.h"
#include "core/limits.h"

namespace jigsaw::net {
namespace {

std::string Label(const ChakraNode& node) {
  return "node " + std::to_string(node.id) + " (#" + std::to_string(node.index) + ")";
}

[[noreturn]] void Fail(const ChakraTrace& trace, const ChakraNode& node, const std::string& what) {
  throw InputError(trace.file, 0, Label(node) + ": " + what);
}

bool IsModelledCollective(uint64_t type) {
  return type == static_cast<uint64_t>(ChakraCollective::kAllReduce) ||
         type == static_cast<uint64_t>(ChakraCollective::kAllGather) ||
         type == static_cast<uint64_t>(ChakraCollective::kReduceScatter) ||
         type == static_cast<uint64_t>(ChakraCollective::kAllToAll);
}

// Per-node checks of one rank: required attributes, ranks in range, compute timing.
void CheckRankNodes(const ChakraTrace& trace, int rank, int ranks, double npu_tflops) {
  const auto check_rank = [&](const ChakraNode& node, const char* name, uint64_t value) {
    if (value >= static_cast<uint64_t>(ranks)) {
      Fail(trace, node,
           std::string(name) + " " + std::to_string(value) + ", but the job has " +
               std::to_string(ranks) + " ranks (files .0.et .. ." + std::to_string(ranks - 1) +
               ".et); expected a rank of 0.." + std::to_string(ranks - 1));
    }
  };
  for (const ChakraNode& node : trace.nodes) {
    if (node.comm_size.value_or(0) > kMaxCollectiveBytes) {
      Fail(trace, node,
           "comm_size " + std::to_string(*node.comm_size) + ": expected at most " +
               std::to_string(kMaxCollectiveBytes) + " bytes (docs/limits.md)");
    }
    if (node.duration_micros > kMaxChakraMicros) {
      Fail(trace, node,
           "duration_micros " + std::to_string(node.duration_micros) + ": expected at most " +
               std::to_string(kMaxChakraMicros) + " (docs/limits.md)");
    }
    switch (node.type) {
      case ChakraNodeType::kComp:
        if (node.duration_micros == 0 && node.num_ops.value_or(0) > 0 && !(npu_tflops > 0)) {
          Fail(trace, node,
               "a compute node with num_ops and no duration_micros; give --npu-tflops to turn "
               "FLOPs into time");
        }
        break;
      case ChakraNodeType::kCommColl:
        if (!node.comm_type) Fail(trace, node, "a collective without a comm_type attribute");
        if (*node.comm_type >= kChakraCollectiveCount) {
          Fail(trace, node,
               "comm_type " + std::to_string(*node.comm_type) +
                   ": expected a CollectiveCommType of 0..9");
        }
        if (!node.comm_size && IsModelledCollective(*node.comm_type)) {
          Fail(trace, node, "a collective without a comm_size attribute (bytes)");
        }
        break;
      case ChakraNodeType::kCommSend:
        if (!node.comm_dst) Fail(trace, node, "a send without a comm_dst attribute");
        if (!node.comm_size) Fail(trace, node, "a send without a comm_size attribute (bytes)");
        check_rank(node, "comm_dst", *node.comm_dst);
        if (node.comm_src && *node.comm_src != static_cast<uint64_t>(rank)) {
          Fail(trace, node,
               "comm_src " + std::to_string(*node.comm_src) + " in the file of rank " +
                   std::to_string(rank) + "; expected its own rank");
        }
        break;
      case ChakraNodeType::kCommRecv:
        if (!node.comm_src) Fail(trace, node, "a receive without a comm_src attribute");
        check_rank(node, "comm_src", *node.comm_src);
        if (node.comm_dst && *node.comm_dst != static_cast<uint64_t>(rank)) {
          Fail(trace, node,
               "comm_dst " + std::to_string(*node.comm_dst) + " in the file of rank " +
                   std::to_string(rank) + "; expected its own rank");
        }
        break;
      default:
        break;
    }
  }
}

std::vector<size_t> CollectivesInIdOrder(const ChakraTrace& trace) {
  std::vector<size_t> list;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.nodes[i].type == ChakraNodeType::kCommColl) list.push_back(i);
  }
  std::sort(list.begin(), list.end(),
            [&](size_t a, size_t b) { return trace.nodes[a].id < trace.nodes[b].id; });
  return list;
}

std::string Describe(const ChakraNode& node) {
  return std::string(ChakraCollectiveName(*node.comm_type)) + " of " +
         std::to_string(node.comm_size.value_or(0)) + " bytes";
}

void CheckCollectivesAgree(const ChakraJob& job) {
  const ChakraTrace& first = job.ranks[0];
  for (size_t r = 1; r < job.ranks.size(); ++r) {
    const ChakraTrace& trace = job.ranks[r];
    const auto& mine = job.collectives[r];
    const auto& theirs = job.collectives[0];
    for (size_t k = 0; k < std::max(mine.size(), theirs.size()); ++k) {
      if (k >= mine.size()) {
        throw InputError(trace.file, 0,
                         "has " + std::to_string(mine.size()) + " collectives, but " + first.file +
                             " has " + std::to_string(theirs.size()) +
                             "; expected the same collectives on every rank");
      }
      const ChakraNode& node = trace.nodes[mine[k]];
      if (k >= theirs.size()) {
        Fail(trace, node,
             "collective #" + std::to_string(k) + ", but " + first.file + " has only " +
                 std::to_string(theirs.size()) + "; expected the same collectives on every rank");
      }
      const ChakraNode& other = first.nodes[theirs[k]];
      if (node.comm_type != other.comm_type || node.comm_size != other.comm_size) {
        Fail(trace, node,
             "collective #" + std::to_string(k) + " is " + Describe(node) + ", but " + first.file +
                 "'s collective #" + std::to_string(k) + " (node " + std::to_string(other.id) +
                 ") is " + Describe(other) + "; expected the same collectives in the same order");
      }
    }
  }
}

// Sends from a to b with tag t must equal receives on b from a with tag t.
void CheckPointToPoint(const ChakraJob& job) {
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::pair<int64_t, const ChakraNode*>> count;
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, int> where;  // a rank holding the example
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    for (const ChakraNode& node : job.ranks[r].nodes) {
      if (node.type == ChakraNodeType::kCommSend) {
        auto key = std::make_tuple(uint64_t{r}, *node.comm_dst, node.comm_tag.value_or(0));
        auto& entry = count[key];
        ++entry.first;
        if (!entry.second) entry.second = &node, where[key] = static_cast<int>(r);
      } else if (node.type == ChakraNodeType::kCommRecv) {
        auto key = std::make_tuple(*node.comm_src, uint64_t{r}, node.comm_tag.value_or(0));
        auto& entry = count[key];
        --entry.first;
        if (!entry.second) entry.second = &node, where[key] = static_cast<int>(r);
      }
    }
  }
  for (const auto& [key, entry] : count) {
    if (entry.first == 0) continue;
    const auto [src, dst, tag] = key;
    const ChakraTrace& trace = job.ranks[static_cast<size_t>(where[key])];
    Fail(trace, *entry.second,
         std::to_string(entry.first > 0 ? entry.first : -entry.first) + " more " +
             (entry.first > 0 ? "send(s)" : "receive(s)") + " from rank " + std::to_string(src) +
             " to rank " + std::to_string(dst) + " with tag " + std::to_string(tag) + " than " +
             (entry.first > 0 ? "receives" : "sends") +
             "; expected every send to have its receive");
  }
}

}  // namespace

std::string ChakraRankFile(const std::string& prefix, int rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

ChakraJob MakeChakraJob(const std::string& prefix, std::vector<ChakraTrace> ranks,
                        double npu_tflops) {
  if (ranks.empty()) throw UsageError("--chakra " + prefix + ": no rank files");
  ChakraJob job;
  job.prefix = prefix;
  job.ranks = std::move(ranks);
  const int count = static_cast<int>(job.ranks.size());
  for (int r = 0; r < count; ++r) {
    CheckRankNodes(job.ranks[static_cast<size_t>(r)], r, count, npu_tflops);
    job.collectives.push_back(CollectivesInIdOrder(job.ranks[static_cast<size_t>(r)]));
  }
  CheckCollectivesAgree(job);
  CheckPointToPoint(job);
  return job;
}

ChakraJob LoadChakraJob(const std::string& prefix, double npu_tflops) {
  std::vector<ChakraTrace> ranks;
  while (static_cast<int>(ranks.size()) < kMaxChakraRanks &&
         std::filesystem::exists(ChakraRankFile(prefix, static_cast<int>(ranks.size())))) {
    ranks.push_back(ReadChakraTrace(ChakraRankFile(prefix, static_cast<int>(ranks.size()))));
  }
  const int found = static_cast<int>(ranks.size());
  if (found == 0) {
    throw InputError(ChakraRankFile(prefix, 0), 0,
                     "cannot open file for reading (--chakra PREFIX reads PREFIX.0.et, "
                     "PREFIX.1.et, ...)");
  }
  // A higher rank beside them means a gap: the job's rank count is ambiguous.
  const std::filesystem::path base(prefix);
  const std::filesystem::path dir = base.has_parent_path() ? base.parent_path() : ".";
  const std::string stem = base.filename().string() + ".";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= stem.size() + 3 || name.compare(0, stem.size(), stem) != 0 ||
        name.compare(name.size() - 3, 3, ".et") != 0) {
      continue;
    }
    const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 3);
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    if (std::stoi(digits) >= found) {
      throw InputError(entry.path().string(), 0,
                       "rank " + digits + ", but " + ChakraRankFile(prefix, found) +
                           " is missing; expected rank files numbered 0.." +
                           std::to_string(found - 1) + " without gaps");
    }
  }
  return MakeChakraJob(prefix, std::move(ranks), npu_tflops);
}

}  // namespace jigsaw::net
