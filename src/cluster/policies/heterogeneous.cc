#include "cluster/policies/heterogeneous.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "solver/linear_program.h"

namespace jigsaw {
namespace {

// The base program: one column per (job, type) with T > 0, the row and capacity constraints.
// `objective(j, k)` is the objective coefficient of X[j][k]; jobs with eligible[j] <= 0 get no
// columns (empty `eligible`: every job).
struct TypedProgram {
  LinearProgram lp;
  std::vector<std::vector<int>> column;  // [job][type], -1 where the job cannot run

  TypedProgram(const PolicyContext& context, const std::vector<PolicyJob>& jobs,
               const std::vector<double>& eligible,
               const std::function<double(size_t, size_t)>& objective)
      : lp(LinearProgram::Sense::kMaximize) {
    const size_t types = context.worker_types.size();
    column.assign(jobs.size(), std::vector<int>(types, -1));
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (!eligible.empty() && eligible[j] <= 0) continue;
      std::vector<std::pair<int, double>> row;
      for (size_t k = 0; k < types; ++k) {
        if (jobs[j].type_throughputs.at(k) <= 0 ||
            jobs[j].scale_factor > context.worker_gpus.at(k)) {
          continue;
        }
        column[j][k] = lp.AddVariable(0, 1, objective(j, k));
        row.push_back({column[j][k], 1.0});
      }
      if (!row.empty()) lp.AddRow(row, -SparseModel::kInfinity, 1);
    }
    for (size_t k = 0; k < types; ++k) {
      std::vector<std::pair<int, double>> row;
      for (size_t j = 0; j < jobs.size(); ++j) {
        if (column[j][k] >= 0) row.push_back({column[j][k], 1.0 * jobs[j].scale_factor});
      }
      if (!row.empty()) lp.AddRow(row, -SparseModel::kInfinity, context.worker_gpus[k]);
    }
  }

  void Solve(const char* what) {
    const LinearProgram::Status status = lp.Solve();
    if (status != LinearProgram::Status::kOptimal) {
      throw std::runtime_error(std::string(what) + ": CLP returned " + StatusName(status) +
                               " for a feasible allocation program (X = 0 is feasible)");
    }
  }

  TypedAllocation Values() const {
    TypedAllocation x(column.size());
    for (size_t j = 0; j < column.size(); ++j) {
      for (int c : column[j]) x[j].push_back(c < 0 ? 0.0 : std::clamp(lp.value(c), 0.0, 1.0));
    }
    return x;
  }
};

}  // namespace

TypedAllocation OneTypeAllocation(Policy& homogeneous, const PolicyContext& context,
                                  const std::vector<PolicyJob>& jobs) {
  TypedAllocation x;
  for (double f : homogeneous.Allocate(context, jobs)) x.push_back({f});
  return x;
}

double EqualShareThroughput(const PolicyContext& context, const PolicyJob& job) {
  double total = 0, gpus = 0;
  for (size_t k = 0; k < context.worker_types.size(); ++k) {
    total += job.type_throughputs.at(k) * context.worker_gpus.at(k);
    gpus += context.worker_gpus[k];
  }
  return gpus > 0 ? total / gpus : 0;
}

TypedAllocation MaxMinFairnessByType(const PolicyContext& context,
                                     const std::vector<PolicyJob>& jobs) {
  if (jobs.empty()) return {};
  // coefficient[j][k]: sf_j / w_j x T[j][k] / equal-share throughput.
  std::vector<std::vector<double>> coefficient(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const double share = EqualShareThroughput(context, jobs[j]);
    const double weight = jobs[j].priority_weight > 0 ? jobs[j].priority_weight : 1.0;
    for (double t : jobs[j].type_throughputs) {
      coefficient[j].push_back(share > 0 ? jobs[j].scale_factor * t / share / weight : 0.0);
    }
  }
  auto build = [&](double level_lower, bool maximise_level) {
    auto program = std::make_unique<TypedProgram>(
        context, jobs, std::vector<double>{},
        [&](size_t j, size_t k) { return maximise_level ? 0.0 : coefficient[j][k]; });
    const int level =
        program->lp.AddVariable(level_lower, SparseModel::kInfinity, maximise_level ? 1.0 : 0.0);
    for (size_t j = 0; j < jobs.size(); ++j) {
      std::vector<std::pair<int, double>> row;
      for (size_t k = 0; k < coefficient[j].size(); ++k) {
        const int c = program->column[j][k];
        if (c < 0) continue;
        row.push_back({c, coefficient[j][k]});
      }
      if (row.empty()) continue;  // runs nowhere: not part of the minimum
      row.push_back({level, -1.0});
      program->lp.AddRow(row, 0, SparseModel::kInfinity);
    }
    return program;
  };
  auto first = build(0, true);
  first->Solve("max_min_fairness_perf");
  const double level = first->lp.objective_value();
  auto second = build(std::max(0.0, level * (1 - 1e-6)), false);
  second->Solve("max_min_fairness_perf (second stage)");
  return second->Values();
}

TypedAllocation MaxSumThroughputByType(const PolicyContext& context,
                                       const std::vector<PolicyJob>& jobs) {
  if (jobs.empty()) return {};
  TypedProgram program(context, jobs, {},
                       [&](size_t j, size_t k) { return jobs[j].type_throughputs[k]; });
  program.Solve("max_sum_throughput");
  return program.Values();
}

TypedAllocation AssignTypesByNormalisedThroughput(const PolicyContext& context,
                                                  const std::vector<PolicyJob>& jobs,
                                                  const std::vector<double>& selected) {
  TypedAllocation x(jobs.size(), std::vector<double>(context.worker_types.size(), 0.0));
  bool any = false;
  for (double s : selected) any = any || s > 0;
  if (!any) return x;
  std::vector<double> share(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) share[j] = EqualShareThroughput(context, jobs[j]);
  TypedProgram program(context, jobs, selected, [&](size_t j, size_t k) {
    return share[j] > 0 ? jobs[j].type_throughputs[k] / share[j] : 0.0;
  });
  program.Solve("las_perf");
  const TypedAllocation shares = program.Values();
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (selected[j] <= 0) continue;
    size_t best = 0;
    for (size_t k = 1; k < shares[j].size(); ++k) {
      if (shares[j][k] > shares[j][best]) best = k;
    }
    // A chosen job the LP left out (its gang fits nowhere with room) still asks for its fastest
    // type; the simulator places it wherever it fits.
    if (shares[j][best] <= 0) {
      for (size_t k = 0; k < shares[j].size(); ++k) {
        if (jobs[j].type_throughputs[k] > jobs[j].type_throughputs[best]) best = k;
      }
    }
    x[j][best] = 1.0;
  }
  return x;
}

}  // namespace jigsaw
