// LinearProgram: a small modelling layer over COIN-OR CLP (Debian's coinor-libclp-dev).
//
// Build variables with bounds and objective coefficients, add sparse rows with bounds, then
// Solve() for a maximum or minimum. Solve returns the status; values are valid only when the
// status is kOptimal. No commercial solver is involved anywhere.
#ifndef JIGSAW_SOLVER_LINEAR_PROGRAM_H_
#define JIGSAW_SOLVER_LINEAR_PROGRAM_H_

#include <string>
#include <vector>

#include "solver/sparse_model.h"

namespace jigsaw {

class LinearProgram : public SparseModel {
 public:
  enum class Sense { kMinimize, kMaximize };
  enum class Status { kOptimal, kInfeasible, kUnbounded, kFailed };

  explicit LinearProgram(Sense sense) : sense_(sense) {}

  Status Solve();
  double value(int variable) const { return values_[variable]; }
  const std::vector<double>& values() const { return values_; }
  double objective_value() const { return objective_value_; }

 private:
  Sense sense_;
  std::vector<double> values_;
  double objective_value_ = 0;
};

const char* StatusName(LinearProgram::Status status);

}  // namespace jigsaw

#endif  // JIGSAW_SOLVER_LINEAR_PROGRAM_H_
