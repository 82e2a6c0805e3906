// Screening of one cohort's local updates before FedAvg. An update is rejected when its weights or
// its training loss are not finite, or when its distance from the cohort's model (the L2 norm of
// local - global) is more than `max_norm_ratio` times the reference distance: the round's median
// distance (the lower median over the cohort's finite updates that moved at all; clients without
// samples return the model unchanged), or the cohort's previous median where that is smaller, so
// that a round in which every client's training blew up from the same model is rejected whole.
// A rejected update is treated like a straggler's: left out of the average and of the cohort
// table, counted as dropped. max_norm_ratio <= 0 disables the distance test; so does having
// neither a previous median nor two moved updates this round.
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
  double norm = 0.0;            // ||local - global||; NaN or inf for non-finite weights
  double reference_norm = 0.0;  // the distance the test compared with (0: none)
};

struct ScreenedUpdates {
  std::vector<int> kept;  // positions in the screened updates, ascending
  std::vector<RejectedUpdate> rejected;
  double kept_median_norm = 0.0;  // lower median distance of the kept updates that moved (0: none)
};

// `clients[i]` is whose `updates[i]` is (reported in `rejected`, with `cohort`).
// `previous_median_norm`: the cohort's last kept_median_norm (0: none yet).
ScreenedUpdates ScreenUpdates(const torch::Tensor& global, const std::vector<LocalUpdate>& updates,
                              const std::vector<int>& clients, int cohort, double max_norm_ratio,
                              double previous_median_norm = 0.0);

}  // namespace jigsaw

#endif  // JIGSAW_FL_UPDATE_GUARD_H_
