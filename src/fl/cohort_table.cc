#include "fl/cohort_table.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace jigsaw {
namespace {

// The upper median: the value at position n / 2 of the sorted values (reorders them).
float UpperMedian(std::vector<float>* values) {
  auto middle = values->begin() + values->size() / 2;
  std::nth_element(values->begin(), middle, values->end());
  return *middle;
}

}  // namespace

CohortTable::CohortTable(int clients, const CohortOptions& options)
    : options_(options), rng_(options.seed), epsilon_(options.epsilon) {
  if (clients < 1) throw UsageError("a cohort table needs at least one client");
  table_.assign(clients, std::vector<CohortEntry>(1));
  affiliation_.assign(clients, 0);
  epoch_.assign(1, 0);
  initialised_.assign(1, false);
  separation_.assign(1, -1.0);
  sides_drawn_at_.assign(1, 0);
  if (options_.pooled_sides) signature_.assign(clients, {});
  pool_pending_.assign(1, options_.pooled_sides);
}

int CohortTable::PreferredSide(int client, int cohort) const {
  const CohortEntry& e = table_[client][cohort];
  if (e.side[0] == e.side[1] || e.reward < 0) return 2;
  return e.side[0] < e.side[1] ? 1 : 0;
}

int CohortTable::GreedyCohort(int client) const {
  int best = 0;
  for (int m = 1; m < num_cohorts_; ++m) {
    if (table_[client][m].reward > table_[client][best].reward) best = m;
  }
  return best;
}

std::vector<int> CohortTable::GreedyAssignments() const {
  std::vector<int> result;
  for (int c = 0; c < num_clients(); ++c) result.push_back(GreedyCohort(c));
  return result;
}

bool CohortTable::HasTrained(int client) const {
  for (const CohortEntry& e : table_[client]) {
    if (e.train_times > 0) return true;
  }
  return false;
}

int CohortTable::AssignedCohort(int client) const {
  return HasTrained(client) ? GreedyCohort(client) : affiliation_[client];
}

std::vector<int> CohortTable::Assignments() const {
  std::vector<int> result;
  for (int c = 0; c < num_clients(); ++c) result.push_back(AssignedCohort(c));
  return result;
}

void CohortTable::AddSide(int client, int cohort, int side) {
  CohortEntry& e = table_[client][cohort];
  e.side[side] += options_.side_step;
  e.side[1 - side] -= options_.side_step;
  ++e.train_times;
}

bool CohortTable::IsKnown(int client, int cohort) const {
  const CohortEntry& e = table_[client][cohort];
  return e.train_times > 0 && e.reward > 1;
}

double CohortTable::SideSizeBar() const {
  return options_.known_clients * std::pow(0.9, num_cohorts_ - 1);
}

std::vector<int> CohortTable::KnownRows(int cohort, const std::vector<int>& clients) const {
  std::vector<int> rows;
  for (size_t i = 0; i < clients.size(); ++i) {
    if (IsKnown(clients[i], cohort)) rows.push_back(static_cast<int>(i));
  }
  return rows;
}

void CohortTable::UpdateSides(int cohort, const std::vector<int>& clients, const Rows& normalized,
                              bool keep_splitting) {
  ++epoch_[cohort];
  if (!options_.split_epochs.empty()) {
    const int last = *std::max_element(options_.split_epochs.begin(), options_.split_epochs.end());
    keep_splitting = epoch_[cohort] <= last + 1;
  }
  if (options_.pooled_sides) {
    for (size_t i = 0; i < clients.size(); ++i) signature_[clients[i]] = normalized[i];
    if (pool_pending_[cohort]) {
      if (DrawPooledSides(cohort)) {
        pool_pending_[cohort] = false;
        initialised_[cohort] = true;
        sides_drawn_at_[cohort] = epoch_[cohort];
      }
      return;
    }
  }
  if (!initialised_[cohort]) {
    std::vector<int> rows;
    if (num_cohorts_ > 1) {
      rows = KnownRows(cohort, clients);
      if (rows.size() <= 1) return;
    } else {
      for (size_t i = 0; i < clients.size(); ++i) rows.push_back(static_cast<int>(i));
    }
    Rows subset;
    for (int r : rows) subset.push_back(normalized[r]);
    const std::vector<int> labels = TwoMeans(subset, rng_.NextU64());
    for (size_t i = 0; i < rows.size(); ++i) AddSide(clients[rows[i]], cohort, labels[i]);
    initialised_[cohort] = true;
    sides_drawn_at_[cohort] = epoch_[cohort];
    return;
  }
  if (!keep_splitting) return;
  std::vector<int> side(clients.size());
  int count[3] = {0, 0, 0};
  for (size_t i = 0; i < clients.size(); ++i) ++count[side[i] = PreferredSide(clients[i], cohort)];
  if (count[0] == 0 && count[1] == 0) return;
  if (count[0] == 0 || count[1] == 0) {
    // One side only: the n/4 nearest neighbours of the first labelled client inherit its side.
    const int neighbours = static_cast<int>(clients.size()) / 4;
    size_t centre = 0;
    while (side[centre] == 2) ++centre;
    for (int r : NearestRows(normalized, normalized[centre], neighbours)) {
      AddSide(clients[r], cohort, side[centre]);
    }
    return;
  }
  Rows labelled;
  std::vector<int> labelled_side;
  for (size_t i = 0; i < clients.size(); ++i) {
    if (side[i] == 2) continue;
    labelled.push_back(normalized[i]);
    labelled_side.push_back(side[i]);
  }
  // 1-NN: the neighbour's vote is unanimous, so the reference's confidence test always passes.
  for (size_t i = 0; i < clients.size(); ++i) {
    if (side[i] != 2) continue;
    const int nearest = NearestRows(labelled, normalized[i], 1).front();
    AddSide(clients[i], cohort, labelled_side[nearest]);
  }
}

bool CohortTable::DrawPooledSides(int cohort) {
  std::vector<int> pool;
  Rows rows;
  for (int c = 0; c < num_clients(); ++c) {
    if (signature_[c].empty() || (num_cohorts_ > 1 && !IsKnown(c, cohort))) continue;
    pool.push_back(c);
    rows.push_back(signature_[c]);
  }
  if (pool.size() <= SideSizeBar()) return false;
  const std::vector<int> labels = TwoMeans(rows, rng_.NextU64());
  for (size_t i = 0; i < pool.size(); ++i) AddSide(pool[i], cohort, labels[i]);
  separation_[cohort] = ProjectedSeparation(rows, labels);
  return true;
}

bool CohortTable::UpdateRewards(int cohort, const std::vector<int>& clients, const Rows& centered) {
  if (num_cohorts_ <= 1) return false;
  const std::vector<int> known = KnownRows(cohort, clients);
  if (known.size() < 2) return false;
  const double known_share = static_cast<double>(known.size()) / clients.size();
  const size_t dims = centered[0].size();
  std::vector<float> centroid(dims, 0.0f);
  if (options_.median_rewards) {
    std::vector<float> column(known.size());
    for (size_t d = 0; d < dims; ++d) {
      for (size_t i = 0; i < known.size(); ++i) column[i] = centered[known[i]][d];
      centroid[d] = UpperMedian(&column);
    }
  } else {
    for (int r : known) {
      for (size_t d = 0; d < dims; ++d) centroid[d] += centered[r][d] / known.size();
    }
  }
  std::vector<double> dist;
  for (const auto& row : centered) dist.push_back(std::sqrt(SquaredDistance(row, centroid)));
  double mean = 0.0, var = 0.0;
  for (double d : dist) mean += d / dist.size();
  for (double d : dist) var += (d - mean) * (d - mean) / dist.size();
  const double spread = mean + std::sqrt(var);
  const double slope = spread > 0 ? options_.base_reward / spread : 0.0;
  for (size_t i = 0; i < clients.size(); ++i) {
    const double reward = (options_.base_reward - slope * dist[i]) * known_share;
    CohortEntry& e = table_[clients[i]][cohort];
    e.reward += reward;
    e.side[0] += reward / 2;
    e.side[1] += reward / 2;
    if (reward < 0) {
      e.side[0] = e.side[1] = e.reward / 2;
      e.train_times = 0;
    }
    ++e.train_times;
  }
  return true;
}

void CohortTable::ForgetSides(int cohort) {
  for (auto& row : table_) {
    CohortEntry& e = row[cohort];
    e.side[0] = e.side[1] = e.reward / 2;
  }
  initialised_[cohort] = false;
  separation_[cohort] = -1.0;
}

void CohortTable::UpdateSeparation(int cohort, const std::vector<int>& clients,
                                   const Rows& normalized) {
  std::vector<int> side;
  for (int c : clients) side.push_back(PreferredSide(c, cohort));
  const double value = ProjectedSeparation(normalized, side);
  if (value <= 0) return;  // a side is missing this round
  double& running = separation_[cohort];
  running = running < 0 ? value : 0.9 * running + 0.1 * std::min(value, 1e3);
}

bool CohortTable::ShouldSplit(int cohort) const {
  if (!options_.split_epochs.empty()) {
    return std::find(options_.split_epochs.begin(), options_.split_epochs.end(), epoch_[cohort]) !=
           options_.split_epochs.end();
  }
  int members = 0;
  int count[3] = {0, 0, 0};
  for (int c = 0; c < num_clients(); ++c) {
    if (affiliation_[c] != cohort) continue;
    ++members;
    ++count[PreferredSide(c, cohort)];
  }
  if (members < options_.min_cohort_clients) return false;
  const double min_size = SideSizeBar();
  const double ratio = static_cast<double>(count[0]) / std::max(count[1], 1);
  const bool balanced = num_cohorts_ == 1 ||
                        (ratio > 1.0 / options_.max_side_ratio && ratio < options_.max_side_ratio);
  const bool separate = (num_cohorts_ == 1 && !options_.gate_first_split) ||
                        options_.min_side_separation <= 0 ||
                        separation_[cohort] >= options_.min_side_separation;
  return count[0] > min_size && count[1] > min_size && balanced && separate;
}

int CohortTable::Grow(int cohort) {
  const int child = num_cohorts_++;
  epoch_.push_back(epoch_[cohort]);
  initialised_[cohort] = false;
  initialised_.push_back(false);
  separation_[cohort] = -1.0;
  separation_.push_back(-1.0);
  sides_drawn_at_.push_back(0);
  pool_pending_[cohort] = options_.pooled_sides;
  pool_pending_.push_back(options_.pooled_sides);
  for (auto& row : table_) {
    const CohortEntry parent = row[cohort];
    const int to_parent = parent.side[0] > parent.side[1] ? 1 : 0;
    const int to_child = parent.side[0] != parent.side[1] ? 1 - to_parent : 0;
    CohortEntry a, b;
    a.reward = parent.reward + to_parent;
    b.reward = parent.reward + to_child;
    a.side[0] = a.side[1] = a.reward / 2;
    b.side[0] = b.side[1] = b.reward / 2;
    a.train_times = parent.train_times * to_parent;
    b.train_times = parent.train_times * to_child;
    row[cohort] = a;
    row.push_back(b);
  }
  return child;
}

int CohortTable::ChooseCohort(int client) {
  epsilon_ *= options_.epsilon_decay;
  if (!HasTrained(client) || rng_.Uniform() < epsilon_) {
    return static_cast<int>(rng_.UniformInt(num_cohorts_));
  }
  return GreedyCohort(client);
}

void CohortTable::AffiliateAll() {
  for (int c = 0; c < num_clients(); ++c) affiliation_[c] = ChooseCohort(c);
}

int CohortTable::Update(int cohort, const std::vector<int>& clients, const Rows& normalized,
                        const Rows& centered, bool keep_splitting) {
  if (static_cast<int>(clients.size()) < options_.min_participants) return -1;
  UpdateSides(cohort, clients, normalized, keep_splitting);
  UpdateSeparation(cohort, clients, normalized);
  UpdateRewards(cohort, clients, centered);
  const int child = ShouldSplit(cohort) ? Grow(cohort) : -1;
  if (child < 0 && options_.split_epochs.empty() && options_.rebipartition_epochs > 0 &&
      initialised_[cohort] &&
      epoch_[cohort] - sides_drawn_at_[cohort] >= options_.rebipartition_epochs) {
    ForgetSides(cohort);
  }
  AffiliateAll();
  return child;
}

std::vector<float> UpdateSignature(const std::vector<float>& old_weights,
                                   const std::vector<float>& new_weights) {
  const size_t n = old_weights.size();
  const size_t keep = std::max<size_t>(1, n / 10);
  std::vector<float> signature;
  signature.reserve(keep);
  for (size_t i = n - keep; i < n; ++i) signature.push_back(old_weights[i] - new_weights[i]);
  return signature;
}

}  // namespace jigsaw
