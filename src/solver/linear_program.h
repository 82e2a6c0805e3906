// LinearProgram: a small modelling layer over COIN-OR CLP (Debian's coinor-libclp-dev).
//
// Build variables with bounds and objective coefficients, add sparse rows with bounds, then
// Solve() for a maximum or minimum. Solve returns the status; values are valid only when the
// status is kOptimal. No commercial solver is involved anywhere.
#ifndef JIGSAW_SOLVER_LINEAR_PROGRAM_H_
#define JIGSAW_SOLVER_LINEAR_PROGRAM_H_

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace jigsaw {

class LinearProgram {
 public:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
  enum class Sense { kMinimize, kMaximize };
  enum class Status { kOptimal, kInfeasible, kUnbounded, kFailed };

  explicit LinearProgram(Sense sense) : sense_(sense) {}

  // Returns the variable's index.
  int AddVariable(double lower, double upper, double objective);
  // lower <= sum(coef * x[var]) <= upper; returns the row index.
  int AddRow(const std::vector<std::pair<int, double>>& terms, double lower, double upper);

  Status Solve();
  double value(int variable) const { return values_[variable]; }
  const std::vector<double>& values() const { return values_; }
  double objective_value() const { return objective_value_; }
  int variable_count() const { return static_cast<int>(lower_.size()); }

 private:
  Sense sense_;
  std::vector<double> lower_, upper_, objective_;
  std::vector<int> row_starts_, columns_;
  std::vector<double> coefficients_, row_lower_, row_upper_;
  std::vector<double> values_;
  double objective_value_ = 0;
};

const char* StatusName(LinearProgram::Status status);

}  // namespace jigsaw

#endif  // JIGSAW_SOLVER_LINEAR_PROGRAM_H_
