#include "solver/linear_program.h"

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>

namespace jigsaw {
namespace {

double ClampInfinity(double value) {
  if (value == LinearProgram::kInfinity) return COIN_DBL_MAX;
  if (value == -LinearProgram::kInfinity) return -COIN_DBL_MAX;
  return value;
}

}  // namespace

int LinearProgram::AddVariable(double lower, double upper, double objective) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  return static_cast<int>(lower_.size()) - 1;
}

int LinearProgram::AddRow(const std::vector<std::pair<int, double>>& terms, double lower,
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

LinearProgram::Status LinearProgram::Solve() {
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
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(matrix, col_lower.data(), col_upper.data(), objective_.data(),
                    row_lower.data(), row_upper.data());
  model.setOptimizationDirection(sense_ == Sense::kMaximize ? -1.0 : 1.0);
  model.dual();
  values_.assign(model.primalColumnSolution(), model.primalColumnSolution() + cols);
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
