// Screening of one cohort's local updates before FedAvg. An update is rejected when its weights or
// its training loss are not finite, or when its distance from the cohort's model (the L2 norm of
// local - global) is more than `max_norm_ratio` times the round's median distance: the lower
// median over the cohort's finite updates that moved at all (clients without samples return the
// model unchanged). A rejected update is treated like a straggler's: left out of the average and
// of the cohort table, counted as dropped. With one update only the finiteness checks apply;
// max_norm_ratio <= 0 disables the distance test.
#ifndef JIGSAW_FL_UPDATE_GUARD_H_
#define JIGSAW_FL_UPDATE_GUARD_H_

#include <torch/torch.h>

#include <vector>

#include "fl/local_training.h"

namespace jigsaw {

struct RejectedUpdate {
  int cohort = 0;
  int client = 0;
  double loss = 0.0;
  double norm = 0.0;         // ||local - global||; NaN or inf for non-finite weights
  double median_norm = 0.0;  // the round's median distance in the cohort
};

struct ScreenedUpdates {
  std::vector<int> kept;  // positions in the screened updates, ascending
  std::vector<RejectedUpdate> rejected;
};

// `clients[i]` is whose `updates[i]` is (reported in `rejected`, with `cohort`).
ScreenedUpdates ScreenUpdates(const torch::Tensor& global, const std::vector<LocalUpdate>& updates,
                              const std::vector<int>& clients, int cohort, double max_norm_ratio);

}  // namespace jigsaw

#endif  // JIGSAW_FL_UPDATE_GUARD_H_
