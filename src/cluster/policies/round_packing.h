// RoundPacking: a greedy packing of gangs into the rounds of a planning horizon, one copy at a
// time. Each round has `capacity` GPUs; a job has at most one copy per round. Add puts the next
// copy of a job into the round with the most free GPUs among those the job is not in yet, the
// earliest on ties, or fails if none has room for the gang. Shockwave's planner packs every
// candidate max-rem level with it (shockwave_plan.cc).
//
// Up to 64 rounds a job's rounds are a bit mask and the rounds sit in buckets by free GPUs, so
// an Add looks at a few buckets instead of every round; otherwise (or when asked) plain arrays
// per job and round. Both make exactly the same choices (tests/cluster/round_packing_test.cc).
#ifndef JIGSAW_CLUSTER_POLICIES_ROUND_PACKING_H_
#define JIGSAW_CLUSTER_POLICIES_ROUND_PACKING_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace jigsaw {

// The highest index at most `at` whose bit is set in `words` (bit i of words[i / 64]), or -1.
// `at` must be below 64 * words.size().
inline int HighestSetBitAtMost(const std::vector<uint64_t>& words, int at) {
  if (at < 0) return -1;
  int word = at >> 6;
  uint64_t bits = words[word] & (~uint64_t{0} >> (63 - (at & 63)));
  while (bits == 0) {
    if (--word < 0) return -1;
    bits = words[word];
  }
  return word * 64 + 63 - std::countl_zero(bits);
}

class RoundPacking {
 public:
  // With `bit_masks` false, the plain per-round arrays at any horizon (for tests: both
  // representations make the same choices).
  RoundPacking(int horizon, int capacity, size_t jobs, bool bit_masks = true)
      : bit_masks_(bit_masks) {
    Reset(horizon, capacity, jobs);
  }

  // Empties the packing (reusing its storage; with the same shape, clearing only the jobs placed).
  void Reset(int horizon, int capacity, size_t jobs) {
    static_assert(kIn < -(1 << 29), "kIn must keep free + kIn negative");
    const bool same_shape = horizon == horizon_ && capacity == capacity_ && jobs == count_.size();
    if (same_shape) {
      for (size_t job : placed_) {
        if (by_mask()) {
          mask_[job] = 0;
        } else {
          std::fill_n(in_.begin() + job * horizon_, horizon_, 0);
        }
        count_[job] = 0;
      }
    }
    horizon_ = horizon;
    capacity_ = capacity;
    if (by_mask()) {
      if (same_shape) {
        for (int free : free_) {
          rounds_with_[free] = 0;
          nonempty_[free >> 6] = 0;
        }
      } else {
        mask_.assign(jobs, 0);
        rounds_with_.assign(capacity + 1, 0);
        nonempty_.assign(capacity / 64 + 1, 0);
      }
      all_rounds_ = horizon == 64 ? ~uint64_t{0} : (uint64_t{1} << horizon) - 1;
      rounds_with_[capacity] = all_rounds_;
      nonempty_[capacity >> 6] = uint64_t{1} << (capacity & 63);
    } else if (!same_shape) {
      in_.assign(jobs * horizon, 0);
    }
    if (!same_shape) count_.assign(jobs, 0);
    placed_.clear();
    free_.assign(horizon, capacity);
    total_free_ = static_cast<long long>(horizon) * capacity;
  }

  // Puts one more copy of `job` into the round with the most room among those it is not in
  // (the earliest on ties); false if none has room.
  bool Add(size_t job, int gpus) {
    if (by_mask()) return AddByMask(job, gpus);
    int* in = &in_[job * horizon_];
    // Two passes, the first easy to vectorise: the most room among the rounds the job is not in
    // (kIn pushes the others far below zero), then the earliest such round.
    int most = kIn;
    for (int t = 0; t < horizon_; ++t) most = std::max(most, free_[t] + in[t]);
    if (most < gpus) return false;
    int best = 0;
    while (free_[best] + in[best] != most) ++best;
    in[best] = kIn;
    Took(job, best, gpus);
    return true;
  }
  int count(size_t job) const { return count_[job]; }
  // GPUs free over all rounds: no gang larger than this can be added any more.
  long long total_free() const { return total_free_; }
  std::vector<std::vector<int>> schedule() const {
    std::vector<size_t> jobs = placed_;
    std::sort(jobs.begin(), jobs.end());
    std::vector<std::vector<int>> rounds(horizon_);
    for (size_t job : jobs) {
      for (int t = 0; t < horizon_; ++t) {
        const bool in = by_mask() ? (mask_[job] >> t & 1) != 0 : in_[job * horizon_ + t] != 0;
        if (in) rounds[t].push_back(static_cast<int>(job));
      }
    }
    return rounds;
  }

 private:
  // Up to 64 rounds, a job's rounds are a bit mask and the rounds are kept in buckets by free
  // GPUs: the most room among the rounds a job is not in is the first nonempty bucket, from the
  // top, with a round outside the mask, and its lowest such bit is the earliest round.
  bool by_mask() const { return bit_masks_ && horizon_ <= 64; }

  bool AddByMask(size_t job, int gpus) {
    const uint64_t not_in = all_rounds_ & ~mask_[job];
    for (int free = HighestNonEmpty(capacity_); free >= gpus; free = HighestNonEmpty(free - 1)) {
      const uint64_t candidates = rounds_with_[free] & not_in;
      if (candidates == 0) continue;
      const int t = std::countr_zero(candidates);
      const uint64_t bit = uint64_t{1} << t;
      if ((rounds_with_[free] &= ~bit) == 0) nonempty_[free >> 6] &= ~(uint64_t{1} << (free & 63));
      const int left = free - gpus;
      rounds_with_[left] |= bit;
      nonempty_[left >> 6] |= uint64_t{1} << (left & 63);
      mask_[job] |= bit;
      Took(job, t, gpus);
      return true;
    }
    return false;
  }

  // The largest free-GPU count at most `at` that some round has, or -1.
  int HighestNonEmpty(int at) const { return HighestSetBitAtMost(nonempty_, at); }

  void Took(size_t job, int t, int gpus) {
    free_[t] -= gpus;
    total_free_ -= gpus;
    if (count_[job]++ == 0) placed_.push_back(job);
  }

  bool bit_masks_ = true;
  int horizon_ = -1;
  int capacity_ = -1;
  std::vector<int> free_;
  std::vector<int> count_;
  std::vector<size_t> placed_;  // jobs with a copy placed, in placement order
  long long total_free_ = 0;
  // Up to 64 rounds: the job's rounds, the rounds with each free-GPU count, and which of
  // those are nonempty (one bit per count).
  std::vector<uint64_t> mask_;
  std::vector<uint64_t> rounds_with_;
  std::vector<uint64_t> nonempty_;
  uint64_t all_rounds_ = 0;
  // More rounds: job-major, job * horizon + round, 0 or kIn (added to a round's free GPUs when
  // the job is in it).
  static constexpr int kIn = -(1 << 30);
  std::vector<int> in_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_ROUND_PACKING_H_
