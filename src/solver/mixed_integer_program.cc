#include "solver/mixed_integer_program.h"

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <string>

namespace jigsaw {
namespace {

double ClampInfinity(double value) {
  if (value == MixedIntegerProgram::kInfinity) return COIN_DBL_MAX;
  if (value == -MixedIntegerProgram::kInfinity) return -COIN_DBL_MAX;
  return value;
}

}  // namespace

int MixedIntegerProgram::AddVariable(double lower, double upper, double objective, bool integer) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  if (integer) integers_.push_back(static_cast<int>(lower_.size()) - 1);
  return static_cast<int>(lower_.size()) - 1;
}

int MixedIntegerProgram::AddRow(const std::vector<std::pair<int, double>>& terms, double lower,
                                double upper) {
  row_starts_.push_back(static_cast<int>(columns_.size()));
  for (const auto& [column, coefficient] : terms) {
    columns_.push_back(column);
    coefficients_.push_back(coefficient);
  }
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  return static_cast<int>(row_lower_.size()) - 1;
}

MixedIntegerProgram::Status MixedIntegerProgram::Solve(double time_limit_s, double relative_gap) {
  const int rows = static_cast<int>(row_lower_.size());
  const int cols = variable_count();
  std::vector<int> starts = row_starts_;
  starts.push_back(static_cast<int>(columns_.size()));
  std::vector<int> lengths(rows);
  for (int r = 0; r < rows; ++r) lengths[r] = starts[r + 1] - starts[r];
  CoinPackedMatrix matrix(false, cols, rows, static_cast<CoinBigIndex>(columns_.size()),
                          coefficients_.data(), columns_.data(), starts.data(), lengths.data());
  std::vector<double> col_lower(cols), col_upper(cols), row_lower(rows), row_upper(rows);
  for (int c = 0; c < cols; ++c) {
    col_lower[c] = ClampInfinity(lower_[c]);
    col_upper[c] = ClampInfinity(upper_[c]);
  }
  for (int r = 0; r < rows; ++r) {
    row_lower[r] = ClampInfinity(row_lower_[r]);
    row_upper[r] = ClampInfinity(row_upper_[r]);
  }
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(matrix, col_lower.data(), col_upper.data(), objective_.data(),
                     row_lower.data(), row_upper.data());
  for (int column : integers_) solver.setInteger(column);
  solver.setObjSense(sense_ == Sense::kMaximize ? -1.0 : 1.0);

  CbcModel model(solver);
  CbcMain0(model);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  const std::string seconds = std::to_string(time_limit_s);
  const std::string gap = std::to_string(relative_gap);
  const char* argv[] = {"jigsaw", "-log",      "0",      "-sec", seconds.c_str(),
                        "-ratio", gap.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, model);

  const double* best = model.bestSolution();
  if (best == nullptr) {
    values_.clear();
    return model.isProvenInfeasible() || model.isInitialSolveProvenPrimalInfeasible()
               ? Status::kInfeasible
               : (model.isSecondsLimitReached() ? Status::kFailed : Status::kInfeasible);
  }
  values_.assign(best, best + cols);
  objective_value_ = 0;
  for (int c = 0; c < cols; ++c) objective_value_ += objective_[c] * values_[c];
  best_bound_ = model.getBestPossibleObjValue();
  return model.isProvenOptimal() ? Status::kOptimal : Status::kFeasible;
}

const char* StatusName(MixedIntegerProgram::Status status) {
  switch (status) {
    case MixedIntegerProgram::Status::kOptimal:
      return "optimal";
    case MixedIntegerProgram::Status::kFeasible:
      return "feasible";
    case MixedIntegerProgram::Status::kInfeasible:
      return "infeasible";
    case MixedIntegerProgram::Status::kFailed:
      return "failed";
  }
  return "unknown";
}

}  // namespace jigsaw
