// MixedIntegerProgram: a small modelling layer over COIN-OR CBC (Debian's coinor-libcbc-dev).
//
// Build variables (continuous or integer) with bounds and objective coefficients, add sparse rows
// with bounds, then Solve() with a time limit and a relative optimality gap. Values are valid when
// the status is kOptimal (proven within the gap) or kFeasible (time limit hit with a solution in
// hand). No commercial solver is involved anywhere.
#ifndef JIGSAW_SOLVER_MIXED_INTEGER_PROGRAM_H_
#define JIGSAW_SOLVER_MIXED_INTEGER_PROGRAM_H_

#include <vector>

#include "solver/sparse_model.h"

namespace jigsaw {

class MixedIntegerProgram : public SparseModel {
 public:
  enum class Sense { kMinimize, kMaximize };
  enum class Status { kOptimal, kFeasible, kInfeasible, kFailed };

  explicit MixedIntegerProgram(Sense sense) : sense_(sense) {}

  // Returns the variable's index.
  int AddVariable(double lower, double upper, double objective, bool integer = false);
  int AddBinaryVariable(double objective) { return AddVariable(0, 1, objective, true); }

  Status Solve(double time_limit_s, double relative_gap);
  double value(int variable) const { return values_[variable]; }
  const std::vector<double>& values() const { return values_; }
  double objective_value() const { return objective_value_; }
  // Best bound proven by branch and bound (equals objective_value() when optimal).
  double best_bound() const { return best_bound_; }

 private:
  Sense sense_;
  std::vector<int> integers_;
  std::vector<double> values_;
  double objective_value_ = 0;
  double best_bound_ = 0;
};

const char* StatusName(MixedIntegerProgram::Status status);

}  // namespace jigsaw

#endif  // JIGSAW_SOLVER_MIXED_INTEGER_PROGRAM_H_
