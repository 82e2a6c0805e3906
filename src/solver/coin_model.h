// Internal to src/solver: a SparseModel in the arrays COIN-OR solvers load (infinite bounds
// mapped to COIN_DBL_MAX).
#ifndef JIGSAW_SOLVER_COIN_MODEL_H_
#define JIGSAW_SOLVER_COIN_MODEL_H_

#include <CoinFinite.hpp>
#include <CoinPackedMatrix.hpp>
#include <vector>

#include "solver/sparse_model.h"

namespace jigsaw {

struct CoinModel {
  CoinPackedMatrix matrix;
  std::vector<double> column_lower, column_upper, objective, row_lower, row_upper;
};

CoinModel ToCoinModel(const SparseModel& model);

}  // namespace jigsaw

#endif  // JIGSAW_SOLVER_COIN_MODEL_H_
