#include "solver/coin_model.h"

namespace jigsaw {
namespace {

std::vector<double> ClampInfinity(const std::vector<double>& values) {
  std::vector<double> clamped(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == SparseModel::kInfinity) {
      clamped[i] = COIN_DBL_MAX;
    } else if (values[i] == -SparseModel::kInfinity) {
      clamped[i] = -COIN_DBL_MAX;
    } else {
      clamped[i] = values[i];
    }
  }
  return clamped;
}

}  // namespace

CoinModel ToCoinModel(const SparseModel& model) {
  const int rows = model.row_count();
  const std::vector<int> starts = model.row_starts();
  std::vector<int> lengths(rows);
  for (int r = 0; r < rows; ++r) lengths[r] = starts[r + 1] - starts[r];
  CoinModel coin;
  coin.matrix = CoinPackedMatrix(
      false, model.variable_count(), rows, static_cast<CoinBigIndex>(model.columns().size()),
      model.coefficients().data(), model.columns().data(), starts.data(), lengths.data());
  coin.column_lower = ClampInfinity(model.variable_lower());
  coin.column_upper = ClampInfinity(model.variable_upper());
  coin.objective = model.objective();
  coin.row_lower = ClampInfinity(model.row_lower());
  coin.row_upper = ClampInfinity(model.row_upper());
  return coin;
}

}  // namespace jigsaw
