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

// Up to 64 rounds in buckets by free GPUs: a bit mask of rounds per free count and a bit per
// nonempty count, so the rounds with the most room (at most some count) are found by a
// highest-set-bit search. Counts are 0..the largest reserved.
class RoundBuckets {
 public:
  // Empty buckets for counts 0..most.
  void Reset(int most) {
    rounds_with_.assign(most + 1, 0);
    nonempty_.assign(most / 64 + 1, 0);
  }
  // Makes room for counts up to `most`, keeping the contents.
  void Reserve(int most) {
    if (static_cast<int>(rounds_with_.size()) <= most) {
      rounds_with_.resize(most + 1, 0);
      nonempty_.resize(most / 64 + 1, 0);
    }
  }
  // Empties the buckets of the counts in `frees` (every round's count: O(rounds), not O(counts)).
  void Clear(const std::vector<int>& frees) {
    for (int free : frees) {
      rounds_with_[std::max(0, free)] = 0;
      nonempty_[std::max(0, free) >> 6] = 0;
    }
  }
  // Adds the rounds `rounds` to the bucket of `free`.
  void Put(int free, uint64_t rounds) {
    rounds_with_[free] |= rounds;
    nonempty_[free >> 6] |= uint64_t{1} << (free & 63);
  }
  // Moves round t from the bucket of `from` (none if negative) to that of `to`.
  void Move(int t, int from, int to) {
    const uint64_t bit = uint64_t{1} << t;
    if (from >= 0 && (rounds_with_[from] &= ~bit) == 0) {
      nonempty_[from >> 6] &= ~(uint64_t{1} << (from & 63));
    }
    Put(to, bit);
  }
  uint64_t rounds_with(int free) const { return rounds_with_[free]; }
  // The largest count at most `at` with a round, or -1.
  int Highest(int at) const { return HighestSetBitAtMost(nonempty_, at); }

 private:
  std::vector<uint64_t> rounds_with_;
  std::vector<uint64_t> nonempty_;
};

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
        buckets_.Clear(free_);
      } else {
        mask_.assign(jobs, 0);
        buckets_.Reset(capacity);
      }
      all_rounds_ = horizon == 64 ? ~uint64_t{0} : (uint64_t{1} << horizon) - 1;
      buckets_.Put(capacity, all_rounds_);
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
    for (int free = buckets_.Highest(capacity_); free >= gpus; free = buckets_.Highest(free - 1)) {
      const uint64_t candidates = buckets_.rounds_with(free) & not_in;
      if (candidates == 0) continue;
      const int t = std::countr_zero(candidates);
      buckets_.Move(t, free, free - gpus);
      mask_[job] |= uint64_t{1} << t;
      Took(job, t, gpus);
      return true;
    }
    return false;
  }

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
  // Up to 64 rounds: the job's rounds, and the rounds by free GPUs.
  std::vector<uint64_t> mask_;
  RoundBuckets buckets_;
  uint64_t all_rounds_ = 0;
  // More rounds: job-major, job * horizon + round, 0 or kIn (added to a round's free GPUs when
  // the job is in it).
  static constexpr int kIn = -(1 << 30);
  std::vector<int> in_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_ROUND_PACKING_H_
