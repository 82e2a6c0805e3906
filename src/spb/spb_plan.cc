#include "spb/spb_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.h"

namespace jigsaw {
namespace {

[[noreturn]] void BadPlan(const std::string& text, const std::string& why) {
  throw UsageError(
      "--spb '" + text + "': " + why +
      " (expected full, staircase, rotating, freeze:D, adaptive or a depth list d0,d1,...)");
}

int ParseDepth(const std::string& text, const std::string& field) {
  if (field.empty() || field.find_first_not_of("0123456789") != std::string::npos ||
      field.size() > 6) {
    BadPlan(text, "'" + field + "' is not a non-negative integer depth");
  }
  return std::stoi(field);
}

int StaircaseDepth(int blocks, int workers, int index) {
  return static_cast<int>((static_cast<int64_t>(blocks) * (index + 1) + workers - 1) / workers);
}

}  // namespace

SpbPlan ParseSpbPlan(const std::string& text) {
  SpbPlan plan;
  plan.text = text;
  if (text == "full") {
    plan.kind = SpbPlanKind::kFull;
  } else if (text == "staircase") {
    plan.kind = SpbPlanKind::kStaircase;
  } else if (text == "rotating") {
    plan.kind = SpbPlanKind::kRotating;
  } else if (text == "adaptive") {
    plan.kind = SpbPlanKind::kAdaptive;
  } else if (text.rfind("freeze:", 0) == 0) {
    plan.kind = SpbPlanKind::kFreeze;
    plan.freeze_depth = ParseDepth(text, text.substr(7));
  } else {
    std::string list = text.rfind("depths:", 0) == 0 ? text.substr(7) : text;
    if (list.empty() || list.find_first_not_of("0123456789,") != std::string::npos) {
      BadPlan(text, "unknown plan");
    }
    plan.kind = SpbPlanKind::kExplicit;
    size_t start = 0;
    while (true) {
      size_t comma = list.find(',', start);
      plan.depths.push_back(ParseDepth(text, list.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return plan;
}

std::vector<int> WorkerDepths(const SpbPlan& plan, int blocks, int workers, int64_t iteration) {
  if (blocks < 1 || workers < 1) throw UsageError("SPB needs at least one block and one worker");
  std::vector<int> depths(workers, blocks);
  switch (plan.kind) {
    case SpbPlanKind::kFull:
    case SpbPlanKind::kAdaptive:
      break;
    case SpbPlanKind::kStaircase:
      for (int k = 0; k < workers; ++k) depths[k] = StaircaseDepth(blocks, workers, k);
      break;
    case SpbPlanKind::kRotating:
      for (int k = 0; k < workers; ++k) {
        depths[k] = StaircaseDepth(blocks, workers, static_cast<int>((k + iteration) % workers));
      }
      break;
    case SpbPlanKind::kFreeze:
      if (plan.freeze_depth > blocks) {
        BadPlan(plan.text, "depth " + std::to_string(plan.freeze_depth) + " exceeds the model's " +
                               std::to_string(blocks) + " blocks");
      }
      std::fill(depths.begin(), depths.end(), plan.freeze_depth);
      break;
    case SpbPlanKind::kExplicit:
      if (static_cast<int>(plan.depths.size()) != workers) {
        BadPlan(plan.text, std::to_string(plan.depths.size()) + " depths given for " +
                               std::to_string(workers) + " workers");
      }
      for (int k = 0; k < workers; ++k) {
        if (plan.depths[k] > blocks) {
          BadPlan(plan.text, "depth " + std::to_string(plan.depths[k]) + " of worker " +
                                 std::to_string(k) + " exceeds the model's " +
                                 std::to_string(blocks) + " blocks");
        }
      }
      depths = plan.depths;
      break;
  }
  return depths;
}

int PlanPeriod(const SpbPlan& plan, int workers) {
  return plan.kind == SpbPlanKind::kRotating ? workers : 1;
}

std::vector<std::vector<int>> BlockContributors(const std::vector<int>& depths, int blocks) {
  std::vector<std::vector<int>> contributors(blocks);
  for (int b = 0; b < blocks; ++b) {
    for (int k = 0; k < static_cast<int>(depths.size()); ++k) {
      if (b >= blocks - depths[k]) contributors[b].push_back(k);
    }
  }
  return contributors;
}

std::vector<Collective> PlanCollectives(const std::vector<std::vector<int>>& contributors,
                                        int workers) {
  // Blocks sharing a contributor set share one allreduce and one broadcast, ordered by the last
  // block that has that set (backward produces the last blocks' gradients first).
  std::vector<std::vector<int>> sets;
  std::vector<std::vector<int>> blocks_of_set;
  for (int b = static_cast<int>(contributors.size()) - 1; b >= 0; --b) {
    if (contributors[b].empty()) continue;
    auto it = std::find(sets.begin(), sets.end(), contributors[b]);
    if (it == sets.end()) {
      sets.push_back(contributors[b]);
      blocks_of_set.push_back({b});
    } else {
      blocks_of_set[it - sets.begin()].push_back(b);
    }
  }
  std::vector<Collective> collectives;
  for (size_t i = 0; i < sets.size(); ++i) {
    const std::vector<int>& set = sets[i];
    if (set.size() >= 2) {
      collectives.push_back({Collective::Kind::kAllreduce, set, set.front(), blocks_of_set[i]});
    }
    if (static_cast<int>(set.size()) < workers) {
      Collective broadcast{Collective::Kind::kBroadcast, {}, set.front(), blocks_of_set[i]};
      for (int k = 0; k < workers; ++k) {
        if (k == set.front() || !std::binary_search(set.begin(), set.end(), k)) {
          broadcast.members.push_back(k);
        }
      }
      collectives.push_back(broadcast);
    }
  }
  return collectives;
}

std::vector<std::vector<int>> PlanGroups(const SpbPlan& plan, int blocks, int workers) {
  std::set<std::vector<int>> groups;
  for (int t = 0; t < PlanPeriod(plan, workers); ++t) {
    std::vector<int> depths = WorkerDepths(plan, blocks, workers, t);
    for (const Collective& c : PlanCollectives(BlockContributors(depths, blocks), workers)) {
      groups.insert(c.members);
    }
  }
  return {groups.begin(), groups.end()};
}

double EstimatedBytesSent(const Collective& collective, int rank, double bytes) {
  const std::vector<int>& m = collective.members;
  if (!std::binary_search(m.begin(), m.end(), rank)) return 0;
  const double n = static_cast<double>(m.size());
  if (collective.kind == Collective::Kind::kAllreduce) return 2 * (n - 1) / n * bytes;
  return (n - 1) / n * bytes;
}

std::string DescribeGroup(const std::vector<int>& members) {
  std::string text;
  for (int k : members) {
    if (!text.empty()) text += '-';
    text += std::to_string(k);
  }
  return text;
}

}  // namespace jigsaw
