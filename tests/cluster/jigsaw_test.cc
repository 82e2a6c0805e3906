// The co-locating planners' guest search (src/cluster/policies/jigsaw.cc) against its plain
// form: every waiting job searching every host group (MakeReferenceScanColocationPolicy).
#include "cluster/policies/jigsaw.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cluster/policies/jigsaw_warm_order.h"
#include "cluster/policy.h"
#include "cluster/spb_cost_model.h"
#include "cluster/spb_phase_model.h"
#include "core/error.h"
#include "model/job_spec.h"
#include "model/throughput_table.h"

namespace jigsaw {
namespace {

const std::vector<std::pair<std::string, int>>& Types() {
  static const std::vector<std::pair<std::string, int>> kTypes = {
      {"LM", 5},           {"LM", 20},      {"ResNet-18", 32},        {"ResNet-50", 64},
      {"Transformer", 64}, {"CycleGAN", 2}, {"Recommendation", 2048}, {"A3C", 4}};
  return kTypes;
}
const int kScales[] = {1, 1, 1, 2, 4, 8};

// Isolated and pairwise co-located throughputs for every type and scale, drawn at random.
ThroughputTable PairTable(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> isolated(1, 10), share(0.3, 0.95);
  std::string json = R"({"v100": {)";
  bool first = true;
  for (int scale : {1, 2, 4, 8}) {
    for (const auto& [model, batch] : Types()) {
      const std::string type = MakeJobType(model, batch);
      const double alone = isolated(rng);
      json += std::string(first ? "" : ",") + "\"('" + type + "', " + std::to_string(scale) +
              ")\": {\"null\": " + std::to_string(alone);
      first = false;
      for (const auto& [other_model, other_batch] : Types()) {
        json += ", \"('" + MakeJobType(other_model, other_batch) + "', " + std::to_string(scale) +
                ")\": [" + std::to_string(alone * share(rng)) + ", " +
                std::to_string(isolated(rng) * share(rng)) + "]";
      }
      json += "}";
    }
  }
  json += "}}";
  return ThroughputTable::Parse("pairs.json", json);
}

struct Instance {
  std::vector<JobSpec> specs;  // one per type, never resized after the jobs point into it
  std::vector<PolicyJob> jobs;
  PolicyContext context;
};

// A cluster's waiting and running jobs: few distinct classes (so classes repeat), ties in the
// least-served order, hosts that the critical-path guard or the warm-up rule keeps alone.
Instance RandomInstance(std::mt19937_64& rng) {
  Instance instance;
  for (const auto& [model, batch] : Types()) {
    JobSpec spec;
    spec.model = model;
    spec.job_type = MakeJobType(model, batch);
    spec.batch_size = batch;
    instance.specs.push_back(spec);
  }
  std::uniform_int_distribution<int> type(0, static_cast<int>(Types().size()) - 1);
  std::uniform_int_distribution<int> scale(0, 5), coin(0, 1), few(0, 3);
  std::uniform_real_distribution<double> unit(0, 1);
  // Half the clusters have hundreds of waiting jobs: keys fail and come back in later epochs
  // deep in the order, and the order carried from round to round is long.
  const bool large = coin(rng);
  const int n = std::uniform_int_distribution<int>(5, large ? 500 : 160)(rng);
  instance.context.gpus = std::uniform_int_distribution<int>(4, large ? 96 : 64)(rng);
  // A quarter of the clusters run one gang size only: same-size pairs, where a guest that has
  // not warmed up cannot interleave but one that has can.
  const int only_scale = coin(rng) && coin(rng) ? kScales[scale(rng)] : 0;
  for (int j = 0; j < n; ++j) {
    PolicyJob job;
    job.id = j;
    const JobSpec& spec = instance.specs[type(rng)];
    job.spec = &spec;
    job.batch_size = spec.batch_size;
    job.scale_factor = only_scale > 0 ? only_scale : kScales[scale(rng)];
    job.throughput = coin(rng) ? 1.0 : 2.0;
    job.arrival_s = 10.0 * few(rng);
    job.elapsed_s = 100 + 10.0 * few(rng);
    job.attained_s = coin(rng) ? 0.0 : 5.0 * few(rng);  // ties on the served share
    job.total_steps = 1000;
    job.steps_run = 250.0 * few(rng);
    job.remaining_isolated_s = unit(rng) < 0.1 ? 5000 * unit(rng) : 1000 * unit(rng);
    instance.jobs.push_back(job);
  }
  return instance;
}

ColocationTunables RandomTunables(std::mt19937_64& rng) {
  const double gains[] = {0.1, 0.0, -0.5, 0.3};
  const double rates[] = {0.5, 0.3, 0.8};
  const int guests[] = {4, 1, 2, 8};
  std::uniform_int_distribution<int> pick(0, 3), pick3(0, 2), coin(0, 1);
  ColocationTunables tunables;
  tunables.min_gain = gains[pick(rng)];
  tunables.min_host_rate = rates[pick3(rng)];
  tunables.critical_path_guard = pick(rng) != 0;
  tunables.max_guests = guests[pick(rng)];
  tunables.spb_guests = pick(rng) != 0;
  tunables.interleave = pick(rng) != 0;
  tunables.spb_memory = pick(rng) != 0;
  tunables.sharing_overhead = coin(rng) ? 0.0 : 0.1;
  tunables.spb_warmup = coin(rng) ? 0.0 : 0.3;
  return tunables;
}

// Who runs where at what rate, exactly.
void ExpectSamePlacements(const std::vector<Policy::Placement>& expected,
                          const std::vector<Policy::Placement>& actual, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t p = 0; p < expected.size(); ++p) {
    EXPECT_EQ(actual[p].job_id, expected[p].job_id) << what << " host " << p;
    EXPECT_EQ(actual[p].rate, expected[p].rate) << what << " host " << p;
    ASSERT_EQ(actual[p].guests.size(), expected[p].guests.size()) << what << " host " << p;
    for (size_t g = 0; g < expected[p].guests.size(); ++g) {
      EXPECT_EQ(actual[p].guests[g].job_id, expected[p].guests[g].job_id) << what;
      EXPECT_EQ(actual[p].guests[g].rate, expected[p].guests[g].rate) << what;
    }
  }
}

// A phase plan (warm-up to 0.4 of the run, then 3 of 5 blocks frozen), the proxy of every type.
SpbPhaseModel PhasePlans() {
  const auto path = std::filesystem::temp_directory_path() /
                    ("jigsaw_guest_search_phases_" + std::to_string(getpid()) + ".csv");
  std::ofstream(path) << kPhasePlanFormatLine << "\n"
                      << kPhasePlanHeader << "\n"
                      << "lenet,1,32,adaptive,warmup,0.4,0,5,1,1,1,1,1,1,1,t\n"
                      << "lenet,1,32,adaptive,frozen,0.6,3,5,0.5,0.4,0.2,0.1,0.85,0.8,0.9,t\n";
  SpbPhaseModelOptions options;
  options.file = path.string();
  SpbPhaseModel model(options);
  std::filesystem::remove(path);
  return model;
}

TEST(JigsawGuestSearch, MatchesThePlainSearchOnRandomClusters) {
  std::mt19937_64 rng(20261124);
  const SpbPhaseModel phases = PhasePlans();
  int guests = 0, hosts_with_several = 0, instances_with_guests = 0, slowed_by_nics = 0;
  const int kInstances = 300;
  for (int i = 0; i < kInstances; ++i) {
    const ThroughputTable pairs = PairTable(rng);
    SpbCostModelOptions spb_options;
    spb_options.fixed_efficiency = std::uniform_int_distribution<int>(0, 1)(rng) ? 1.0 : 0.9;
    SpbCostModel spb(spb_options);
    PolicyOptions options;
    options.colocation_base = "least_served";
    options.throughputs = &pairs;
    options.spb = &spb;
    options.colocation = RandomTunables(rng);
    options.gpus_per_node = std::uniform_int_distribution<int>(0, 1)(rng) ? 2 : 4;
    options.nic_gbps = std::uniform_int_distribution<int>(0, 1)(rng) ? 1e-3 : 1e6;
    // Half the instances with phase plans: lone hosts in a frozen phase and guests in their
    // freed capacity; the jobs change phase between rounds.
    if (i % 4 >= 2) options.spb_phases = &phases;
    const char* name = std::vector<const char*>{"jigsaw", "packing", "spb_only"}[i % 3];
    auto policy = MakePolicy(name, options);
    auto reference = MakeReferenceScanColocationPolicy(name, options);
    Instance instance = RandomInstance(rng);
    // A few rounds on the same planners (their per-job class cache carries over), the jobs
    // progressing and one changing its batch size.
    for (int round = 0; round < 3; ++round) {
      instance.context.round = round;
      const std::string what =
          std::string(name) + " instance " + std::to_string(i) + " round " + std::to_string(round);
      const auto expected = reference->PlanPlacements(instance.context, instance.jobs);
      const auto actual = policy->PlanPlacements(instance.context, instance.jobs);
      ExpectSamePlacements(expected, actual, what);
      if (HasFailure()) return;
      bool any = false;
      for (const Policy::Placement& p : expected) {
        guests += static_cast<int>(p.guests.size());
        hosts_with_several += p.guests.size() > 1;
        any |= !p.guests.empty();
        const double keep = 1.0 - options.colocation.sharing_overhead;
        slowed_by_nics += !p.guests.empty() && p.rate < keep * 0.999 && options.nic_gbps < 1;
      }
      instances_with_guests += any;
      for (PolicyJob& job : instance.jobs) {
        job.attained_s += std::uniform_int_distribution<int>(0, 2)(rng) * 5.0;
        job.elapsed_s += 120;
        job.steps_run += 100;
        job.remaining_isolated_s *= 0.9;
      }
      PolicyJob& changed = instance.jobs[round % instance.jobs.size()];
      changed.batch_size = changed.spec->model == "LM" ? 20 : changed.batch_size;
    }
  }
  // The instances exercise what the search's shortcuts depend on: many guests, SPB hosts taking
  // several (hosts re-entering the groups), hosts whose rates differ within a group (NICs).
  EXPECT_GT(instances_with_guests, kInstances);
  EXPECT_GT(guests, 10 * kInstances);
  EXPECT_GT(hosts_with_several, kInstances / 2);
  EXPECT_GT(slowed_by_nics, 10);
}

TEST(JigsawWarmSort, GivesTheFullSortWhateverTheStartingOrder) {
  // Values with ties (index as tie-break: a strict total order); `kept` starts sorted, nearly
  // sorted (a few adjacent swaps and a few far moves), or in random or reversed order (past the
  // insertion budget); `moved` in random order. The result must be the full sort.
  std::mt19937_64 rng(13);
  int past_budget = 0, nearly = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int n = std::uniform_int_distribution<int>(0, trial % 10 == 0 ? 5000 : 700)(rng);
    std::vector<int> value(n);
    for (int& v : value) v = std::uniform_int_distribution<int>(0, n / 3 + 1)(rng);
    auto before = [&](int a, int b) { return value[a] != value[b] ? value[a] < value[b] : a < b; };
    std::vector<int> all(n);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    const int split = std::uniform_int_distribution<int>(0, n)(rng);
    std::vector<int> kept(all.begin(), all.begin() + split), moved(all.begin() + split, all.end());
    std::sort(kept.begin(), kept.end(), before);
    const int shape = trial % 4;
    if (shape == 1 && !kept.empty()) {
      ++nearly;
      std::uniform_int_distribution<size_t> at(0, kept.size() - 1);
      for (int s = 0; s < 20; ++s) {
        const size_t i = at(rng);
        if (i + 1 < kept.size()) std::swap(kept[i], kept[i + 1]);
      }
      for (int s = 0; s < 3; ++s) std::swap(kept[at(rng)], kept[at(rng)]);
    } else if (shape == 2) {
      std::shuffle(kept.begin(), kept.end(), rng);
    } else if (shape == 3) {
      std::reverse(kept.begin(), kept.end());
      past_budget += kept.size() > 200;
    }
    std::vector<int> expected(n);
    std::iota(expected.begin(), expected.end(), 0);
    std::sort(expected.begin(), expected.end(), before);
    std::vector<int> out = {42};  // overwritten
    WarmSort(&kept, &moved, before, &out);
    ASSERT_EQ(out, expected) << "trial " << trial << " shape " << shape;
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(), before));
    EXPECT_TRUE(std::is_sorted(moved.begin(), moved.end(), before));
  }
  EXPECT_GT(past_budget, 20);
  EXPECT_GT(nearly, 100);
}

TEST(JigsawGuestSearch, ReferenceFormIsOnlyForTheCoLocatingPlanners) {
  EXPECT_THROW(MakeReferenceScanColocationPolicy("fifo", PolicyOptions()), UsageError);
  EXPECT_EQ(MakeReferenceScanColocationPolicy("packing", PolicyOptions())->name(), "packing");
}

}  // namespace
}  // namespace jigsaw
