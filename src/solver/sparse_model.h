// SparseModel: the variables (bounds, objective coefficients) and sparse constraint rows (bounds)
// of a linear or mixed-integer program, independent of the solver that will solve it.
// LinearProgram (CLP) and MixedIntegerProgram (CBC) build on it.
#ifndef JIGSAW_SOLVER_SPARSE_MODEL_H_
#define JIGSAW_SOLVER_SPARSE_MODEL_H_

#include <limits>
#include <utility>
#include <vector>

namespace jigsaw {

class SparseModel {
 public:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  // Returns the variable's index.
  int AddVariable(double lower, double upper, double objective);
  // lower <= sum(coef * x[var]) <= upper; returns the row index.
  int AddRow(const std::vector<std::pair<int, double>>& terms, double lower, double upper);

  int variable_count() const { return static_cast<int>(lower_.size()); }
  int row_count() const { return static_cast<int>(row_lower_.size()); }
  const std::vector<double>& variable_lower() const { return lower_; }
  const std::vector<double>& variable_upper() const { return upper_; }
  const std::vector<double>& objective() const { return objective_; }
  const std::vector<double>& row_lower() const { return row_lower_; }
  const std::vector<double>& row_upper() const { return row_upper_; }
  // Row-major sparse matrix: row r's entries are [row_starts()[r], row_starts()[r + 1]).
  std::vector<int> row_starts() const;
  const std::vector<int>& columns() const { return columns_; }
  const std::vector<double>& coefficients() const { return coefficients_; }

 private:
  std::vector<double> lower_, upper_, objective_;
  std::vector<int> row_starts_, columns_;
  std::vector<double> coefficients_, row_lower_, row_upper_;
};

}  // namespace jigsaw

#endif  // JIGSAW_SOLVER_SPARSE_MODEL_H_
