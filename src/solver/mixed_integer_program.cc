#include "solver/mixed_integer_program.h"

#include <CbcModel.hpp>
#include <OsiClpSolverInterface.hpp>
#include <string>

#include "solver/coin_model.h"

namespace jigsaw {

int MixedIntegerProgram::AddVariable(double lower, double upper, double objective, bool integer) {
  const int index = SparseModel::AddVariable(lower, upper, objective);
  if (integer) integers_.push_back(index);
  return index;
}

MixedIntegerProgram::Status MixedIntegerProgram::Solve(double time_limit_s, double relative_gap) {
  const int cols = variable_count();
  const CoinModel coin = ToCoinModel(*this);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(coin.matrix, coin.column_lower.data(), coin.column_upper.data(),
                     coin.objective.data(), coin.row_lower.data(), coin.row_upper.data());
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
  for (int c = 0; c < cols; ++c) objective_value_ += objective()[c] * values_[c];
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
