// Shockwave policy: remaining-time predictor, finish-time targets, the planner against CBC, config
// parsing, and fidelity to the published 120-job simulation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>

#include "cluster/policies/prefix_order.h"
#include "cluster/policies/shockwave_job.h"
#include "cluster/policies/shockwave_options.h"
#include "cluster/policies/shockwave_plan.h"
#include "cluster/policy.h"
#include "cluster/sim_output.h"
#include "cluster/simulator.h"
#include "core/error.h"
#include "model/trace_readers.h"

namespace jigsaw {
namespace {

TEST(ShockwaveJob, DirichletPredictorMatchesHandComputation) {
  // Two batch sizes, two epochs each: prior 2 per batch size.
  ShockwaveJob job(7, 1, {32, 32, 64, 64}, {10, 10, 5, 5}, 1000, 120, 0);
  // Posterior {32: 3, 64: 2} -> rebased {2.4, 1.6} -> minus the observed epoch {1.4, 1.6};
  // 4 inflated and 4 remaining epochs: 1.4 * 10 + 1.6 * 5.
  EXPECT_NEAR(job.RemainingRuntime(), 22.0, 1e-12);
  job.SetProgress(2);
  // Posterior {4, 3} -> rebased {16/7, 12/7} -> minus observed {2/7, 5/7}; 2 and 2 epochs.
  EXPECT_NEAR(job.RemainingRuntime(), 45.0 / 7.0, 1e-12);
  EXPECT_NEAR(job.InterpolatedEpochDuration(), 25.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(job.CompletedRuntime(), 20.0);
  job.SetProgress(4);
  EXPECT_DOUBLE_EQ(job.RemainingRuntime(), 1.0);
  job.SetProgress(9);
  EXPECT_EQ(job.progress(), 4);
}

TEST(ShockwaveJob, CalibratesOnlyWhenMeasurementsDisagreeByOver40Percent) {
  // 3 epochs of 100 s, 1000 samples each at batch 10: profiled 1 iteration/s.
  ShockwaveJob slow(1, 1, {10, 10, 10}, {100, 100, 100}, 1000, 120, 0);
  slow.RecordThroughput(1, 1.1, 10);  // 1320 samples measured vs 1000 + 1000 * 20/100 profiled
  slow.Calibrate();
  EXPECT_DOUBLE_EQ(slow.EpochDuration(0), 100);
  // Prior 3, posterior 4, rebased 3 - 1 = 2 epochs of 100 s; 3 inflated and 3 remaining.
  EXPECT_NEAR(slow.RemainingRuntime(), 200, 1e-9);

  ShockwaveJob fast(2, 1, {10, 10, 10}, {100, 100, 100}, 1000, 120, 0);
  fast.RecordThroughput(1, 2.0, 10);  // 2400 vs 1200 samples: durations scaled by 1/2
  fast.Calibrate();
  EXPECT_DOUBLE_EQ(fast.EpochDuration(2), 50);
  EXPECT_NEAR(fast.RemainingRuntime(), 100, 1e-9);
}

TEST(ShockwaveJob, MomentumFinishTimeWeightsEstimatesByRoundsCurrent) {
  EXPECT_DOUBLE_EQ(MomentumFinishTime({{0, 100}}, 0), 100);
  EXPECT_DOUBLE_EQ(MomentumFinishTime({{0, 100}}, 5), 100);
  // Weights 2/6 and 4/6: 0.9 * (100/3 + 400/3) + 0.1 * 200.
  EXPECT_NEAR(MomentumFinishTime({{0, 100}, {2, 200}}, 6), 170, 1e-9);
}

// The reference's per-epoch JobMetaData arithmetic, written out loop by loop: the oracle the
// run-based ShockwaveJob must match bit for bit.
struct PerEpochJob {
  std::vector<int> batches;
  std::vector<double> profiled, durations;
  double samples_per_epoch, round_s;
  int progress = 0;
  std::map<int, std::pair<double, int>> measurements;

  void Calibrate() {
    if (measurements.empty()) return;
    int previous_key = 0;
    double measured = 0;
    for (const auto& [key, m] : measurements) {
      measured += m.first * round_s * (key - previous_key) * m.second;
      previous_key = key;
    }
    const double span_s = round_s * measurements.rbegin()->first;
    double profiled_span = 0, profiled_samples = 0;
    size_t epoch = 0;
    for (; epoch < profiled.size(); ++epoch) {
      if (profiled_span + profiled[epoch] > span_s) break;
      profiled_span += profiled[epoch];
      profiled_samples += samples_per_epoch;
    }
    epoch = std::min(epoch, profiled.size() - 1);
    const double partial_s = span_s - profiled_span;
    if (partial_s > 0) profiled_samples += samples_per_epoch * partial_s / durations[epoch];
    if (measured <= 0 || profiled_samples <= 0 ||
        std::abs(measured - profiled_samples) / profiled_samples <= 0.4) {
      return;
    }
    const double amplification = profiled_samples / measured;
    for (size_t e = 0; e < durations.size(); ++e) durations[e] = profiled[e] * amplification;
  }

  double Remaining() const {
    const int epochs = static_cast<int>(batches.size());
    std::map<int, int> distinct;
    for (int b : batches) ++distinct[b];
    std::map<int, double> posterior;
    for (const auto& [b, unused] : distinct) posterior[b] = 1.0 * epochs / distinct.size();
    const int observed = std::min(progress + 1, epochs);
    for (int e = 0; e < observed; ++e) posterior[batches[e]] += 1;
    double concentration = 0;
    for (const auto& [b, alpha] : posterior) concentration += alpha;
    std::map<int, double> rebased;
    for (const auto& [b, alpha] : posterior) rebased[b] = epochs * alpha / concentration;
    for (int e = 0; e < observed; ++e) {
      double& left = rebased[batches[e]];
      if (left >= 1) left -= 1;
    }
    double rebased_total = 0;
    for (const auto& [b, left] : rebased) rebased_total += left;
    const int remaining = epochs - progress;
    const int inflated = std::max(static_cast<int>(rebased_total + 1), remaining);
    if (inflated <= 0 || remaining <= 0) return 1.0;
    std::map<int, std::pair<double, int>> per_batch;
    for (int e = 0; e < epochs; ++e) {
      per_batch[batches[e]].first += durations[e];
      ++per_batch[batches[e]].second;
    }
    double runtime = 0;
    for (const auto& [b, left] : rebased) {
      runtime += left * per_batch.at(b).first / per_batch.at(b).second;
    }
    return runtime * remaining / inflated;
  }
  double Prefix(int count) const {
    double sum = 0;
    for (int e = 0; e < count; ++e) sum += durations[e];
    return sum;
  }
};

TEST(ShockwaveJob, RunsMatchThePerEpochReferenceBitForBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  int calibrated = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PerEpochJob reference;
    reference.samples_per_epoch = trial % 9 == 0 ? 0 : 1000 + std::floor(unit(rng) * 50000);
    reference.round_s = 120;
    std::vector<EpochRun> runs;
    const int n_runs = 1 + static_cast<int>(unit(rng) * 5);
    for (int r = 0; r < n_runs; ++r) {
      const int batch = 16 << static_cast<int>(unit(rng) * 4);
      // Whole seconds, as profiles are, or fractional (pseudo-epochs of type-less jobs).
      const double duration =
          trial % 4 == 0 ? 1 + unit(rng) * 300 : std::max(1.0, std::round(unit(rng) * 400));
      const long long epochs = 1 + static_cast<long long>(unit(rng) * (trial % 5 == 0 ? 3000 : 40));
      runs.push_back({batch, duration, epochs});
      for (long long e = 0; e < epochs; ++e) {
        reference.batches.push_back(batch);
        reference.profiled.push_back(duration);
      }
    }
    reference.durations = reference.profiled;
    ShockwaveJob job(trial, 1, runs, reference.samples_per_epoch, 120, 0);
    const int epochs = static_cast<int>(reference.batches.size());
    ASSERT_EQ(job.epochs(), epochs);
    int key = 1 + static_cast<int>(unit(rng) * 50);
    for (int step = 0; step < 25; ++step) {
      const int progress = std::min(epochs, reference.progress + static_cast<int>(unit(rng) * 8));
      reference.progress = progress;
      job.SetProgress(progress);
      const double rate = 0.2 + unit(rng) * 5;
      const int batch = reference.batches[std::min(progress, epochs - 1)];
      reference.measurements[key] = {rate, batch};
      job.RecordThroughput(key, rate, batch);
      if (unit(rng) < 0.7) key += 1 + static_cast<int>(unit(rng) * 30);
      reference.Calibrate();
      job.Calibrate();
      ASSERT_EQ(job.RemainingRuntime(), reference.Remaining()) << "trial " << trial;
      ASSERT_EQ(job.CompletedRuntime(), reference.Prefix(progress)) << "trial " << trial;
      const int observed = std::min(progress + 1, epochs);
      ASSERT_EQ(job.InterpolatedEpochDuration(), reference.Prefix(observed) / observed);
      ASSERT_EQ(job.EpochDuration(epochs - 1), reference.durations.back());
    }
    calibrated += reference.durations != reference.profiled;
  }
  EXPECT_GT(calibrated, 100);  // the comparison covers calibrated durations too
}

// Calibrate's walk: the most repeats of a term that fit under a limit, against a plain loop of
// additions, on random sums, terms, counts and limits (limits on a sum's exact value included).
TEST(ShockwaveJob, MostRepeatsWithinMatchesAPlainLoopOfAdditions) {
  std::mt19937_64 rng(1313);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int below_count = 0, exact_hits = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const double term = trial % 3 == 0 ? 0.1 * (1 + static_cast<int>(unit(rng) * 30))
                                       : std::exp(unit(rng) * 12 - 4);
    const double sum = trial % 5 == 0 ? 0.0 : unit(rng) * term * 50;
    const long long count = trial % 7 == 0 ? 0 : 1 + static_cast<long long>(unit(rng) * 1500);
    std::vector<double> sums(1, sum);  // sums[n]: n additions
    for (long long n = 0; n < count; ++n) sums.push_back(sums.back() + term);
    double limit;
    if (trial % 4 == 0 && count > 0) {
      limit = sums[static_cast<size_t>(unit(rng) * static_cast<double>(count + 1))];
    } else {
      limit = sum + unit(rng) * term * static_cast<double>(count) * 1.2;
    }
    long long expected = 0;
    for (long long n = 1; n <= count; ++n) {
      if (sums[n] <= limit) expected = n;
    }
    ASSERT_EQ(MostRepeatsWithin(sum, term, count, limit), expected)
        << "trial " << trial << " sum " << sum << " term " << term << " count " << count;
    below_count += expected < count;
    exact_hits += expected > 0 && expected < count && sums[expected] == limit;
  }
  EXPECT_GT(below_count, 1000);
  EXPECT_GT(exact_hits, 100);
}

TEST(ShockwaveJob, MeasurementKeysMustNotGoBack) {
  ShockwaveJob job(1, 1, {10}, {100}, 1000, 120, 0);
  job.RecordThroughput(5, 1, 10);
  job.RecordThroughput(5, 2, 10);  // replaces
  EXPECT_THROW(job.RecordThroughput(4, 1, 10), std::logic_error);
}

TEST(ShockwaveJob, FinishTimeTargetSwitchesToRunningSumsWithoutAJump) {
  // Past kTermByTermEstimates the average comes from running sums: the same value up to rounding.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  FinishTimeTarget target;
  std::vector<std::pair<int, double>> series;
  int round = 0;
  for (int i = 0; i < 3 * FinishTimeTarget::kTermByTermEstimates; ++i) {
    round += static_cast<int>(unit(rng) * 3);
    const double finish = 1e5 + 1e4 * unit(rng);
    target.Add(round, finish);
    series.push_back({round, finish});
    double total = 0, weighted = 0;
    for (size_t j = 0; j < series.size(); ++j) {
      const int next = j + 1 < series.size() ? series[j + 1].first : round + 2;
      total += next - series[j].first;
      weighted += (next - series[j].first) * series[j].second;
    }
    const double expected = 0.9 * (total > 0 ? weighted / total : 0) + 0.1 * series.back().second;
    if (total > 0) {
      EXPECT_NEAR(target.Value(round + 2), expected, 1e-9 * expected);
    }
  }
  EXPECT_DOUBLE_EQ(MomentumFinishTime(series, round + 2), target.Value(round + 2));
}

ShockwavePlanJob PlanJob(int gpus, double epochs, double epoch_s, double remaining_s,
                         double weight = 1) {
  ShockwavePlanJob job;
  job.gpus = gpus;
  job.epochs = epochs;
  job.epoch_s = epoch_s;
  job.remaining_s = remaining_s;
  job.weight = weight;
  return job;
}

TEST(ShockwavePlan, TinyInstanceHasTheKnownOptimum) {
  // 2 GPUs x 2 rounds. A (2 GPUs, 2 epochs) or B and C (1 GPU, 1 epoch each): running A alone
  // leaves B and C at log(1e-6); the optimum runs each job once: A reaches u = 1/2.
  ShockwavePlanProblem problem;
  problem.gpus = 2;
  problem.rounds = 2;
  problem.round_s = 100;
  problem.bases = {0, 0.5, 1};
  problem.jobs = {PlanJob(2, 2, 100, 200), PlanJob(1, 1, 100, 100), PlanJob(1, 1, 100, 100)};
  const double optimum = std::log(0.5) / 6 - 1e-3 * 100;
  ShockwavePlan plan = SolveShockwavePlan(problem);
  ASSERT_TRUE(plan.feasible);
  EXPECT_EQ(plan.rounds, (std::vector<int>{1, 1, 1}));
  EXPECT_NEAR(plan.objective, optimum, 1e-12);
  std::vector<std::vector<int>> schedule;
  ShockwavePlan exact = SolveShockwaveMilpWithCbc(problem, 10, 1e-9, &schedule);
  ASSERT_TRUE(exact.feasible);
  EXPECT_NEAR(exact.objective, optimum, 1e-9);

  // Capping A's remaining time at 0 forces both rounds to A.
  problem.jobs[0].max_remaining_s = 0;
  plan = SolveShockwavePlan(problem);
  ASSERT_TRUE(plan.feasible);
  EXPECT_EQ(plan.rounds, (std::vector<int>{2, 0, 0}));
  problem.jobs[1].max_remaining_s = 0;  // and B's too: infeasible
  EXPECT_FALSE(SolveShockwavePlan(problem).feasible);
  EXPECT_FALSE(SolveShockwaveMilpWithCbc(problem, 10, 1e-9, nullptr).feasible);
}

TEST(ShockwavePlan, RankRoundsPutsUrgentJobsFirstAndKeepsEveryCopy) {
  // Job 0 must run every round; job 2 is the most urgent.
  const std::vector<int> rounds = {4, 2, 2, 2};
  const std::vector<double> priorities = {1, 1, 100, 1};
  const std::vector<int> gpus = {2, 1, 1, 2};
  auto schedule = RankRounds(rounds, priorities, gpus, 4, 4);
  std::vector<int> placed(4, 0);
  for (int t = 0; t < 4; ++t) {
    int load = 0;
    for (int i : schedule[t]) {
      ++placed[i];
      load += gpus[i];
    }
    EXPECT_LE(load, 4);
  }
  EXPECT_EQ(placed, rounds);
  EXPECT_NE(std::find(schedule[0].begin(), schedule[0].end(), 2), schedule[0].end());
  EXPECT_NE(std::find(schedule[1].begin(), schedule[1].end(), 2), schedule[1].end());
}

// The straightforward ranking (a full packing check of the remaining jobs for every job): the
// oracle for RankRounds' shortcuts.
std::vector<int> ReferenceMostRoom(const std::vector<int>& free_gpus, int gpus, int count) {
  std::vector<int> rounds(free_gpus.size());
  for (size_t t = 0; t < rounds.size(); ++t) rounds[t] = static_cast<int>(t);
  std::stable_sort(rounds.begin(), rounds.end(),
                   [&](int a, int b) { return free_gpus[a] > free_gpus[b]; });
  std::vector<int> chosen;
  for (int t : rounds) {
    if (static_cast<int>(chosen.size()) == count || free_gpus[t] < gpus) break;
    chosen.push_back(t);
  }
  return chosen;
}

bool ReferencePackInto(std::vector<size_t> jobs, const std::vector<int>& gpus,
                       std::vector<int>* counts, std::vector<int>* free_gpus, bool drop) {
  std::stable_sort(jobs.begin(), jobs.end(), [&](size_t a, size_t b) { return gpus[a] > gpus[b]; });
  bool all = true;
  for (size_t i : jobs) {
    if ((*counts)[i] == 0) continue;
    const std::vector<int> chosen = ReferenceMostRoom(*free_gpus, gpus[i], (*counts)[i]);
    for (int t : chosen) (*free_gpus)[t] -= gpus[i];
    if (static_cast<int>(chosen.size()) < (*counts)[i]) {
      all = false;
      if (!drop) return false;
      (*counts)[i] = static_cast<int>(chosen.size());
    }
  }
  return all;
}

std::vector<std::vector<int>> ReferenceRankRounds(const std::vector<int>& rounds,
                                                  const std::vector<double>& priorities,
                                                  const std::vector<int>& gpus, int capacity,
                                                  int horizon) {
  const size_t n = rounds.size();
  std::vector<int> counts(n);
  std::vector<int> free_gpus(horizon, capacity);
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i, counts[i] = std::min(rounds[i], horizon);
  ReferencePackInto(all, gpus, &counts, &free_gpus, true);
  std::vector<size_t> order = all;
  auto urgency = [&](size_t i) {
    return priorities[i] / (std::max(1, counts[i]) * static_cast<double>(gpus[i]));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return urgency(a) > urgency(b); });
  std::vector<std::vector<int>> schedule(horizon);
  free_gpus.assign(horizon, capacity);
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    if (counts[i] == 0) continue;
    std::vector<int> chosen;
    for (int t = 0; t < horizon && static_cast<int>(chosen.size()) < counts[i]; ++t) {
      if (free_gpus[t] >= gpus[i]) chosen.push_back(t);
    }
    std::vector<int> trial = free_gpus;
    for (int t : chosen) trial[t] -= gpus[i];
    std::vector<size_t> rest(order.begin() + k + 1, order.end());
    std::vector<int> rest_counts = counts;
    if (static_cast<int>(chosen.size()) < counts[i] ||
        !ReferencePackInto(rest, gpus, &rest_counts, &trial, false)) {
      chosen = ReferenceMostRoom(free_gpus, gpus[i], counts[i]);
    }
    for (int t : chosen) {
      free_gpus[t] -= gpus[i];
      schedule[t].push_back(static_cast<int>(i));
    }
  }
  for (auto& round : schedule) std::sort(round.begin(), round.end());
  return schedule;
}

TEST(ShockwavePlan, RankRoundsMatchesTheFullCheckOnRandomInstances) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  // Instances 400-699 are mostly single-GPU jobs (as on Philly), for the counting check that
  // replaces the greedy for them; the last 60 have more than 64 rounds (the check's bit masks
  // cover up to 64).
  for (int instance = 0; instance < 760; ++instance) {
    const bool mostly_single = instance >= 400 && instance < 700;
    const bool long_horizon = instance >= 700;
    const int capacity = 4 << (instance % 4);
    const int horizon = long_horizon ? 65 + static_cast<int>(unit(rng) * 16)
                                     : 1 + static_cast<int>(unit(rng) * (mostly_single ? 20 : 12));
    const size_t n = 1 + static_cast<size_t>(unit(rng) * (mostly_single ? 120 : 40));
    std::vector<int> rounds(n), gpus(n);
    std::vector<double> priorities(n);
    for (size_t i = 0; i < n; ++i) {
      gpus[i] = mostly_single && unit(rng) < 0.8
                    ? 1
                    : std::min(capacity, 1 << static_cast<int>(unit(rng) * 4));
      rounds[i] = static_cast<int>(unit(rng) * (horizon + 2));
      // Ties in urgency are common in practice (weight 1 for every job on time).
      priorities[i] = unit(rng) < 0.5 ? 1 : std::pow(1 + unit(rng), 12);
    }
    EXPECT_EQ(RankRounds(rounds, priorities, gpus, capacity, horizon),
              ReferenceRankRounds(rounds, priorities, gpus, capacity, horizon))
        << "instance " << instance;
  }
}

// Checks that the plan's schedule is a packing of its counts.
void ExpectValidPacking(const ShockwavePlanProblem& problem, const ShockwavePlan& plan) {
  ASSERT_EQ(static_cast<int>(plan.schedule.size()), problem.rounds);
  std::vector<int> placed(problem.jobs.size(), 0);
  for (const auto& round : plan.schedule) {
    int load = 0;
    for (int i : round) {
      ++placed[i];
      load += problem.jobs[i].gpus;
    }
    EXPECT_LE(load, problem.gpus);
  }
  EXPECT_EQ(placed, plan.rounds);
}

TEST(ShockwavePlan, PlannerMatchesCbcOnRandomInstances) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  double worst = 0, total = 0;
  const int instances = 30;
  for (int instance = 0; instance < instances; ++instance) {
    ShockwavePlanProblem problem;
    problem.gpus = 8;
    problem.rounds = 6;
    problem.k = instance % 2 == 0 ? 1e-3 : 1e-5;
    const int n_jobs = 6 + instance % 8;
    for (int i = 0; i < n_jobs; ++i) {
      const double epochs = 1 + std::floor(unit(rng) * 20);
      const double epoch_s = 20 + unit(rng) * 200;
      const double u = unit(rng);
      ShockwavePlanJob job = PlanJob(u < 0.6 ? 1 : (u < 0.9 ? 2 : 4), epochs, epoch_s, 0,
                                     1 + std::floor(unit(rng) * 3) * 10);
      job.epochs_done = std::floor(unit(rng) * epochs * 0.8);
      job.remaining_s = (epochs - job.epochs_done) * epoch_s * (0.7 + 0.6 * unit(rng));
      problem.jobs.push_back(job);
    }
    ShockwavePlan exact = SolveShockwaveMilpWithCbc(problem, 20, 1e-7, nullptr);
    ShockwavePlan plan = SolveShockwavePlan(problem);
    ASSERT_TRUE(exact.feasible);
    ASSERT_TRUE(plan.feasible);
    ExpectValidPacking(problem, plan);
    const double shortfall = (exact.objective - plan.objective) / std::abs(exact.objective);
    worst = std::max(worst, shortfall);
    total += std::max(0.0, shortfall);
    // Small clusters fragment badly; the gap is measured in docs/shockwave.md.
    EXPECT_LE(shortfall, 0.12) << "instance " << instance;
  }
  EXPECT_LE(total / instances, 0.03);
  std::printf("planner vs CBC: worst relative shortfall %.3g, mean %.3g\n", worst,
              total / instances);
}

// The planner's default limit is work, not wall-clock time, so a plan never
// depends on the machine's speed or load. A binding work limit stops the search at the same
// point on every run.
TEST(ShockwavePlan, TheWorkLimitIsDeterministicAndBinding) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  ShockwavePlanProblem problem;
  problem.gpus = 32;
  problem.rounds = 20;
  for (int i = 0; i < 40; ++i) {
    const double epochs = 5 + std::floor(unit(rng) * 50);
    const double epoch_s = 30 + unit(rng) * 300;
    ShockwavePlanJob job = PlanJob(unit(rng) < 0.7 ? 1 : 4, epochs, epoch_s, 0);
    job.epochs_done = std::floor(unit(rng) * epochs * 0.5);
    job.remaining_s = (epochs - job.epochs_done) * job.epoch_s;
    problem.jobs.push_back(job);
  }
  const ShockwavePlan full = SolveShockwavePlan(problem);
  ASSERT_TRUE(full.feasible);
  EXPECT_FALSE(full.limited);
  ASSERT_GT(full.work, 2000);
  const ShockwavePlanLimits tight{full.work / 2, 0};
  const ShockwavePlan first = SolveShockwavePlan(problem, tight);
  const ShockwavePlan second = SolveShockwavePlan(problem, tight);
  EXPECT_TRUE(first.limited);
  EXPECT_TRUE(first.feasible);
  EXPECT_EQ(first.work, second.work);
  EXPECT_EQ(first.rounds, second.rounds);
  EXPECT_EQ(first.schedule, second.schedule);
  EXPECT_LE(first.objective, full.objective);
  ExpectValidPacking(problem, first);
}

// The local level scan (a bound on planning work for plans with many jobs) does what its contract
// says on random loaded instances (the full scan's first two levels, then from the lowest
// feasible level upwards while the objective does not drop), and where that finds the best
// level and so does the full scan, it gives the full scan's plan.
TEST(ShockwavePlan, LocalLevelScanClimbsFromTheLowestLevelAndMatchesUnimodalScans) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  int unimodal = 0, multimodal = 0;
  for (int instance = 0; instance < 40; ++instance) {
    ShockwavePlanProblem problem;
    problem.gpus = 16;
    problem.rounds = 20;
    problem.k = instance % 3 == 0 ? 1e-5 : 1e-3;
    const int n_jobs = 60 + instance * 3;  // above the local search's limit: the scan alone
    for (int i = 0; i < n_jobs; ++i) {
      const double epochs = 1 + std::floor(unit(rng) * 60);
      const double epoch_s = 20 + unit(rng) * 400;
      const double u = unit(rng);
      ShockwavePlanJob job = PlanJob(u < 0.7 ? 1 : (u < 0.9 ? 2 : 4), epochs, epoch_s, 0,
                                     1 + std::floor(unit(rng) * 30));
      job.epochs_done = std::floor(unit(rng) * epochs * 0.8);
      job.remaining_s = (epochs - job.epochs_done) * epoch_s * (0.7 + 0.6 * unit(rng));
      problem.jobs.push_back(job);
    }
    const std::vector<ShockwaveLevel> levels = ShockwaveLevelObjectives(problem);
    ASSERT_FALSE(levels.empty()) << "instance " << instance;
    // The contract: the full scan's first two levels with its stopping rule, then the climb.
    const double lowest = levels.back().level;
    const double none = -std::numeric_limits<double>::infinity();
    double expected = none;
    bool stopped = false;
    size_t probed = 0;
    for (; probed < levels.size() && probed < 2 && !stopped; ++probed) {
      if (!levels[probed].packed) {
        stopped = true;
        break;
      }
      expected = std::max(expected, levels[probed].objective);
      stopped = levels[probed].utility - problem.k * lowest <= expected;
    }
    double climbed = none;
    for (size_t l = levels.size(); !stopped && l-- > probed;) {
      if (!levels[l].packed) {
        if (climbed > none) break;
        continue;
      }
      if (levels[l].objective < climbed) break;
      climbed = levels[l].objective;
    }
    expected = std::max(expected, climbed);
    ShockwavePlanLimits local;
    local.local_level_scan = true;
    const ShockwavePlan plan = SolveShockwavePlan(problem, local);
    ASSERT_TRUE(plan.feasible) << "instance " << instance;
    ExpectValidPacking(problem, plan);
    EXPECT_EQ(plan.objective, expected) << "instance " << instance;
    EXPECT_NEAR(plan.objective, ShockwaveObjective(problem, plan.rounds),
                1e-9 * std::abs(plan.objective));

    double best = none;
    for (const ShockwaveLevel& level : levels) {
      if (level.packed) best = std::max(best, level.objective);
    }
    const ShockwavePlan full = SolveShockwavePlan(problem);
    if (expected == best) {
      ++unimodal;
      if (full.objective == best) {
        EXPECT_EQ(plan.rounds, full.rounds) << "instance " << instance;
        EXPECT_EQ(plan.schedule, full.schedule) << "instance " << instance;
      }
    } else {
      ++multimodal;
      EXPECT_LT(plan.objective, best);
    }
  }
  // Both cases occur among these instances.
  EXPECT_GT(unimodal, 0);
  EXPECT_GT(multimodal, 0);
  std::printf("local level scan: %d of %d instances found the best level\n", unimodal,
              unimodal + multimodal);
}

TEST(ShockwaveOptions, ParsesShockwaveConfigs) {
  ShockwaveOptions options = ParseShockwaveOptions(
      "c.json", R"({"future_rounds": 10, "k": 10, "lambda": 5.0, "rhomax": 1.5,
                    "log_approximation_bases": [0, 0.5, 1], "solver_timeout": 3})");
  EXPECT_EQ(options.future_rounds, 10);
  EXPECT_DOUBLE_EQ(options.k, 10);
  EXPECT_DOUBLE_EQ(options.lambda, 5);
  EXPECT_DOUBLE_EQ(options.rhomax, 1.5);
  EXPECT_EQ(options.log_bases, (std::vector<double>{0, 0.5, 1}));
  EXPECT_DOUBLE_EQ(options.solver_timeout_s, 3);
  EXPECT_EQ(ParseShockwaveOptions("d.json", "{}").future_rounds, 20);
  const std::string shared = JIGSAW_SHARED_DATA;
  const std::string tacc = shared + "/configs/shockwave/tacc_32gpus.json";
  if (std::filesystem::exists(tacc)) {
    ShockwaveOptions loaded = LoadShockwaveOptions(tacc);
    EXPECT_DOUBLE_EQ(loaded.k, 1e-3);
    EXPECT_DOUBLE_EQ(loaded.lambda, 12);
  }
}

void ExpectInputError(const std::string& text, int line, const std::string& fragment) {
  try {
    ParseShockwaveOptions("bad.json", text);
    ADD_FAILURE() << "no error for " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ShockwaveOptions, MalformedFilesNameFileLineAndExpectation) {
  ExpectInputError("{\n  \"k\": 1e-3,\n  \"lambda\": \n}", 4, "malformed JSON");
  ExpectInputError("{\n  \"k\": 1e-3,\n  \"lamda\": 12\n}", 3, "unknown Shockwave option");
  ExpectInputError("{\n  \"future_rounds\": -2\n}", 2, "positive integer");
  ExpectInputError("{\n  \"k\": \"big\"\n}", 2, "positive number");
  ExpectInputError("{\n\n  \"log_approximation_bases\": [0.2, 1.0]\n}", 3, "starting at 0");
  ExpectInputError("[1, 2]", 1, "JSON object");
}

TEST(PrefixOrder, EveryPrefixIsTheStableSortsOnRandomInputs) {
  std::mt19937 rng(23);
  for (int instance = 0; instance < 200; ++instance) {
    const int n = static_cast<int>(rng() % 700);
    std::vector<double> key(n);
    // Few distinct keys: many ties, broken by index.
    for (double& k : key) k = static_cast<double>(rng() % (1 + instance % 9));
    std::vector<int> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int a, int b) { return key[a] > key[b]; });
    PrefixOrder order(n,
                      [&](int a, int b) { return key[a] > key[b] || (key[a] == key[b] && a < b); });
    ASSERT_EQ(order.size(), n);
    // Read in a random pattern: short prefixes first, then jumps, then everything.
    int k = 0;
    while (k < n) {
      const int step = 1 + static_cast<int>(rng() % (instance % 2 == 0 ? 5 : 300));
      const int until = std::min(n, k + step);
      for (; k < until; ++k) ASSERT_EQ(order.At(k), expected[k]) << "instance " << instance;
    }
  }
}

struct Outcome {
  double makespan_s = 0;
  double avg_jct_s = 0;
  double worst_rho = 0;
  int finished = 0;
  std::vector<double> jct_s;
};

Outcome Simulate(const Trace& trace, const ThroughputTable& table, const std::string& policy,
                 const ShockwaveOptions* shockwave = nullptr) {
  PolicyOptions options;
  options.throughputs = &table;
  options.shockwave = shockwave;
  auto p = MakePolicy(policy, options);
  SimConfig config;
  config.gpus = 32;
  config.round_s = 120;
  config.isolated_time = IsolatedTime::kReferenceEpochs;  // the published runs' rho
  Simulator simulator(trace, &table, p.get(), config);
  SimResult result = simulator.Run();
  SummarizeSimulation(&result, Json::object());  // fills rho
  Outcome outcome;
  outcome.makespan_s = result.makespan_s;
  for (const JobRecord& job : result.jobs) {
    outcome.avg_jct_s += job.jct_s / result.jobs.size();
    outcome.worst_rho = std::max(outcome.worst_rho, job.rho);
    outcome.finished += job.finish_s >= 0;
    outcome.jct_s.push_back(job.jct_s);
  }
  return outcome;
}

// Shockwave's 120-job trace and the TACC throughputs from the shared data (skipped when absent).
class Shockwave120Trace : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string shared = JIGSAW_SHARED_DATA;
    const std::string trace_path = shared + "/traces/shockwave/shockwave_120.trace";
    const std::string table_path = shared + "/throughputs/shockwave_tacc_throughputs.json";
    if (!std::filesystem::exists(trace_path) || !std::filesystem::exists(table_path)) {
      GTEST_SKIP() << "shared data not found under " << shared;
    }
    trace = ReadTrace(trace_path);
    table = ThroughputTable::Load(table_path);
  }

  Trace trace;
  ThroughputTable table;
};
class ShockwaveFidelity : public Shockwave120Trace {};
class ShockwaveBounds : public Shockwave120Trace {};

TEST_F(ShockwaveFidelity, ReproducesThePublished120JobSimulation) {
  const Outcome shockwave = Simulate(trace, table, "shockwave");
  EXPECT_NEAR(shockwave.makespan_s, 24197, 0.1 * 24197);
  EXPECT_NEAR(shockwave.avg_jct_s, 9958, 0.1 * 9958);
  EXPECT_NEAR(shockwave.worst_rho, 1.78, 0.1 * 1.78);
  for (const char* baseline : {"max_min_fairness", "finish_time_fairness"}) {
    const Outcome other = Simulate(trace, table, baseline);
    EXPECT_LT(shockwave.makespan_s, other.makespan_s) << baseline;
    EXPECT_LT(shockwave.avg_jct_s, other.avg_jct_s) << baseline;
    EXPECT_LT(shockwave.worst_rho, other.worst_rho) << baseline;
  }
}

// The bounds on planning work for overloaded clusters: at their defaults they never bind on
// Shockwave's traces (the run equals the unbounded one job for job); when they bind, every job
// still finishes and runs stay deterministic.
TEST_F(ShockwaveBounds, DefaultsDoNotBindOnTheTraceAndBindingBoundsStillFinishEveryJob) {
  ShockwaveOptions unbounded;
  unbounded.max_planned_jobs = 0;
  unbounded.event_replan_max_jobs = 0;
  unbounded.full_scan_max_jobs = 0;
  const Outcome reference = Simulate(trace, table, "shockwave", &unbounded);
  const ShockwaveOptions defaults;
  EXPECT_EQ(Simulate(trace, table, "shockwave", &defaults).jct_s, reference.jct_s);

  for (auto [planned, event] : {std::pair{10, 0}, std::pair{0, 10}, std::pair{10, 10}}) {
    ShockwaveOptions bounded;
    bounded.max_planned_jobs = planned;
    bounded.event_replan_max_jobs = event;
    const Outcome first = Simulate(trace, table, "shockwave", &bounded);
    EXPECT_EQ(first.finished, 120) << planned << " " << event;
    EXPECT_NE(first.jct_s, reference.jct_s) << "the bound should bind: " << planned << " " << event;
    EXPECT_EQ(Simulate(trace, table, "shockwave", &bounded).jct_s, first.jct_s);
  }
  // The local level scan and a longer re-plan period while events wait.
  ShockwaveOptions local_scan;
  local_scan.full_scan_max_jobs = 10;
  ShockwaveOptions busy;
  busy.event_replan_max_jobs = 10;
  busy.busy_reopt_rounds = 20;
  ShockwaveOptions event_only;
  event_only.event_replan_max_jobs = 10;
  event_only.busy_reopt_rounds = event_only.reopt_rounds;
  const Outcome event_outcome = Simulate(trace, table, "shockwave", &event_only);
  for (const ShockwaveOptions* bounded : {&local_scan, &busy}) {
    const Outcome first = Simulate(trace, table, "shockwave", bounded);
    EXPECT_EQ(first.finished, 120);
    EXPECT_NE(first.jct_s, reference.jct_s) << "the bound should bind";
    EXPECT_EQ(Simulate(trace, table, "shockwave", bounded).jct_s, first.jct_s);
  }
  EXPECT_NE(Simulate(trace, table, "shockwave", &busy).jct_s, event_outcome.jct_s)
      << "the busy period should change the event bound's run";
}

}  // namespace
}  // namespace jigsaw
