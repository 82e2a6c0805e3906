#include "solver/sparse_model.h"

namespace jigsaw {

int SparseModel::AddVariable(double lower, double upper, double objective) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  return variable_count() - 1;
}

int SparseModel::AddRow(const std::vector<std::pair<int, double>>& terms, double lower,
                        double upper) {
  row_starts_.push_back(static_cast<int>(columns_.size()));
  for (const auto& [column, coefficient] : terms) {
    columns_.push_back(column);
    coefficients_.push_back(coefficient);
  }
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  return row_count() - 1;
}

std::vector<int> SparseModel::row_starts() const {
  std::vector<int> starts = row_starts_;
  starts.push_back(static_cast<int>(columns_.size()));
  return starts;
}

}  // namespace jigsaw
