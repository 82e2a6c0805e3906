#include "solver/linear_program.h"

#include <ClpSimplex.hpp>

#include "solver/coin_model.h"

namespace jigsaw {

LinearProgram::Status LinearProgram::Solve() {
  const CoinModel coin = ToCoinModel(*this);
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(coin.matrix, coin.column_lower.data(), coin.column_upper.data(),
                    coin.objective.data(), coin.row_lower.data(), coin.row_upper.data());
  model.setOptimizationDirection(sense_ == Sense::kMaximize ? -1.0 : 1.0);
  model.dual();
  values_.assign(model.primalColumnSolution(), model.primalColumnSolution() + variable_count());
  objective_value_ = model.objectiveValue();
  if (model.isProvenOptimal()) return Status::kOptimal;
  if (model.isProvenPrimalInfeasible()) return Status::kInfeasible;
  if (model.isProvenDualInfeasible()) return Status::kUnbounded;
  return Status::kFailed;
}

const char* StatusName(LinearProgram::Status status) {
  switch (status) {
    case LinearProgram::Status::kOptimal:
      return "optimal";
    case LinearProgram::Status::kInfeasible:
      return "infeasible";
    case LinearProgram::Status::kUnbounded:
      return "unbounded";
    case LinearProgram::Status::kFailed:
      return "failed";
  }
  return "failed";
}

}  // namespace jigsaw
