// Auxo's cohort discovery: a per-client, per-cohort reward table grown by bipartitioning cohorts
// (Liu et al., SoCC'23; the algorithm as described in ../shared/research/serving-fl.md 1.4).
//
// Each (client, cohort) entry holds a main reward R (init 1), two sub-rewards (init R/2 each) that
// say which half of the cohort the client belongs to, and how often it trained there. A client
// prefers side s of cohort m when its sub-rewards differ and R >= 0 (PreferredSide; 2 = none).
// Update(m, clients, normalized, centered) is one round of cohort m with its participants'
// signatures (see Signatures):
//  1. Intra-cohort (sub-rewards). The first time for m: 2-means on the normalised signatures (of
//     "known" clients only, when there is more than one cohort: trained in m and R > 1); each
//     client's side gains r0 and the other side loses r0 (with pooled_sides: over the stored
//     signatures of all of m's known clients, see CohortOptions). Later rounds, while splitting
//     is still allowed: if both sides are represented, unlabelled clients get the side of their
//     nearest labelled neighbour (1-NN); if only one side is, the n/4 nearest neighbours of a
//     labelled client inherit its side. Every labelling increments the client's train count.
//  2. Inter-cohort (main rewards, only with more than one cohort): the centroid (or, with
//     median_rewards, the coordinate-wise median) of the known clients' centered signatures;
//     client at distance d gets
//     (R0 - R0 / (mean(d) + std(d)) * d) * known_share; a negative reward resets the sub-rewards
//     and the train count. Needs at least 2 known clients.
//  3. Split test: at fixed cohort epochs (split_epochs; an epoch is one Update of that cohort,
//     children inherit the parent's), or, with split_epochs empty, adaptively: the cohort has at
//     least min_cohort_clients affiliated clients, both sides have more than
//     known_clients * 0.9^(cohorts - 1) clients preferring them, and (after the first split) the
//     sides' size ratio is within (0.5, 2) (max_side_ratio), and, when min_side_separation > 0,
//     the sides are separate clusters (side_separation; for the first split only with
//     gate_first_split). A split copies every client's entry to the
//     parent and a new cohort, each with R + 1 on the side the client preferred.
//  4. Affiliation of every client (ChooseCohort): a client that never trained anywhere picks a
//     uniformly random cohort; otherwise epsilon-greedy on R (epsilon multiplied by
//     epsilon_decay on every choice).
// A client's assigned cohort (the model it is evaluated on, its cluster label) is its greedy
// cohort once it has trained somewhere, else its current (random) affiliation: the reference's
// cluster labels are the affiliations (y_kmeans), and a split gives an undecided client a train
// count of 0 in both halves, so it is a "new" client again.
// Deterministic for a seed.
#ifndef JIGSAW_FL_COHORT_TABLE_H_
#define JIGSAW_FL_COHORT_TABLE_H_

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "fl/cluster_math.h"

namespace jigsaw {

struct CohortOptions {
  double base_reward = 5.0;  // R0
  double side_step = 1.0;    // r0
  double epsilon = 0.01;
  double epsilon_decay = 0.99;
  int known_clients = 50;         // N / 20 in the reference
  int min_cohort_clients = 100;   // 100 / participation ratio in the reference
  std::vector<int> split_epochs;  // empty: adaptive split test
  int min_participants = 5;       // smaller rounds leave the table unchanged
  // Adaptive split test: the sides' size ratio must lie in (1 / max_side_ratio, max_side_ratio)
  // (the reference: 2; waived for the first split).
  double max_side_ratio = 2.0;
  // Adaptive split test, not in the reference (0: off): the cohort's sides must be separate
  // clusters, not two halves of one: a running mean (weight 0.1 per round) of the participants'
  // ProjectedSeparation (cluster_math.h) by preferred side must reach this (one Gaussian cut in
  // half: about 2.7).
  double min_side_separation = 0.0;
  // Adaptive split test, not in the reference (0: off): a cohort whose sides have not led to a
  // split this many cohort epochs after they were first drawn forgets them (every client's
  // sub-rewards reset to R/2) and bipartitions again, from its now better-known clients.
  int rebipartition_epochs = 0;
  // Not in the reference (false: the reference's rules). The separation gate above also applies
  // to a cohort's first split (the reference waives every added test there but the size bar).
  bool gate_first_split = false;
  // Not in the reference (false: the mean, as the reference). The main rewards measure distances
  // to the coordinate-wise (upper) median of the known clients' centered signatures instead of
  // their mean: a minority of known clients from another cluster (a fragment left by a split that
  // cut a cluster) no longer pulls the centre towards itself, so it earns negative rewards, loses
  // its sides and is affiliated again, instead of staying where it is.
  bool median_rewards = false;
  // Not in the reference (false: the reference's rules). The table keeps every participant's
  // latest normalised signature, and a cohort's first sides (at the start and in both halves
  // after each split; a re-bipartition after rebipartition_epochs still draws from one round) are
  // drawn by 2-means over the stored signatures of all of the cohort's known clients (one cohort:
  // every client with a stored signature), each of which gets its side, instead of over one
  // round's participants. The draw waits until there are more such clients than the split test's
  // side size bar (known_clients x 0.9^(cohorts - 1)): sides drawn from fewer cannot both pass
  // it. The running side separation starts from the pool's ProjectedSeparation. One round's ~50
  // points can put part of a cluster on another cluster's side, and a split then leaves that
  // cluster in two cohorts; the pool is the whole cohort.
  bool pooled_sides = false;
  uint64_t seed = 1;
};

struct CohortEntry {
  double reward = 1.0;
  double side[2] = {0.5, 0.5};
  int train_times = 0;
};

class CohortTable {
 public:
  CohortTable(int clients, const CohortOptions& options);

  int num_clients() const { return static_cast<int>(table_.size()); }
  int num_cohorts() const { return num_cohorts_; }
  const CohortEntry& entry(int client, int cohort) const { return table_[client][cohort]; }
  CohortEntry& mutable_entry(int client, int cohort) { return table_[client][cohort]; }
  int epoch(int cohort) const { return epoch_[cohort]; }
  // The cohort the client was last affiliated with (participates in).
  int affiliation(int client) const { return affiliation_[client]; }
  // 0 or 1, or 2 when the client has no preference in that cohort.
  int PreferredSide(int client, int cohort) const;
  // argmax over cohorts of R (ties: the lowest cohort).
  int GreedyCohort(int client) const;
  std::vector<int> GreedyAssignments() const;
  // Whether the client has a train count above 0 in some cohort.
  bool HasTrained(int client) const;
  // GreedyCohort for a client that has trained, else its affiliation; the model it is evaluated
  // on and its cluster label.
  int AssignedCohort(int client) const;
  std::vector<int> Assignments() const;

  // One round of cohort `cohort` (steps 1-4). `normalized` and `centered` are the participants'
  // signatures (rows parallel to `clients`). Returns the new cohort's id if the cohort split, -1
  // otherwise.
  int Update(int cohort, const std::vector<int>& clients, const Rows& normalized,
             const Rows& centered, bool keep_splitting = true);

  // The steps on their own (Update calls them in this order).
  void UpdateSides(int cohort, const std::vector<int>& clients, const Rows& normalized,
                   bool keep_splitting);
  bool UpdateRewards(int cohort, const std::vector<int>& clients, const Rows& centered);
  bool ShouldSplit(int cohort) const;
  // The running separation of the cohort's sides (-1 before both sides were seen in a round).
  double side_separation(int cohort) const { return separation_[cohort]; }
  void UpdateSeparation(int cohort, const std::vector<int>& clients, const Rows& normalized);
  // Every client's sub-rewards in the cohort back to R/2; the next round draws sides anew.
  void ForgetSides(int cohort);
  int Grow(int cohort);
  int ChooseCohort(int client);
  void AffiliateAll();

 private:
  // Trained in the cohort and R > 1: the clients the cohort's centre and sides are drawn from.
  bool IsKnown(int client, int cohort) const;
  // The adaptive split test's bar on each side's size: known_clients x 0.9^(cohorts - 1).
  double SideSizeBar() const;
  std::vector<int> KnownRows(int cohort, const std::vector<int>& clients) const;
  void AddSide(int client, int cohort, int side);
  // pooled_sides: 2-means over the stored signatures of the cohort's known clients, each of
  // which gets its side, and the separation starts from theirs; false (and nothing changed)
  // while there are not more of them than the side size bar.
  bool DrawPooledSides(int cohort);

  CohortOptions options_;
  Rng rng_;
  int num_cohorts_ = 1;
  double epsilon_;
  std::vector<std::vector<CohortEntry>> table_;  // [client][cohort]
  std::vector<int> affiliation_;
  std::vector<int> epoch_;
  std::vector<bool> initialised_;
  std::vector<double> separation_;
  std::vector<int> sides_drawn_at_;  // cohort epoch of the last first-time 2-means
  Rows signature_;                   // pooled_sides: latest normalised signature (empty: none)
  std::vector<bool> pool_pending_;   // pooled_sides: the cohort's next draw is over the pool
};

// Auxo's client signature: the last tenth of (w_old - w_new), as float.
std::vector<float> UpdateSignature(const std::vector<float>& old_weights,
                                   const std::vector<float>& new_weights);

}  // namespace jigsaw

#endif  // JIGSAW_FL_COHORT_TABLE_H_
