// WarmSort: the least-served order of the co-locating planners' guest search (jigsaw.cc),
// sorted each round from the previous round's order of the same jobs.
// Not thread-safe.
#ifndef JIGSAW_CLUSTER_POLICIES_JIGSAW_WARM_ORDER_H_
#define JIGSAW_CLUSTER_POLICIES_JIGSAW_WARM_ORDER_H_

#include <algorithm>
#include <vector>

namespace jigsaw {

// Sorts the indices in `kept` and `moved` together by the strict total order `before` into
// `out` (so the result is the unique sorted sequence, whatever order they come in). `kept` is
// expected nearly sorted (last round's order of jobs whose keys drift slowly): it is
// insertion-sorted, in O(size + inversions), falling back to std::sort once the moves exceed a
// budget linear in its size; `moved` (jobs whose keys jumped, new jobs) is sorted outright, and
// the two are merged. Both inputs are left sorted.
template <typename Before>
void WarmSort(std::vector<int>* kept, std::vector<int>* moved, const Before& before,
              std::vector<int>* out) {
  std::vector<int>& a = *kept;
  const long long n = static_cast<long long>(a.size());
  long long budget = 8 * n + 1024;
  for (long long i = 1; i < n; ++i) {
    if (budget < 0) {
      std::sort(a.begin() + i, a.end(), before);
      std::inplace_merge(a.begin(), a.begin() + i, a.end(), before);
      break;
    }
    const int x = a[i];
    long long j = i;
    for (; j > 0 && before(x, a[j - 1]); --j) a[j] = a[j - 1];
    a[j] = x;
    budget -= i - j;
  }
  std::sort(moved->begin(), moved->end(), before);
  out->resize(a.size() + moved->size());
  std::merge(a.begin(), a.end(), moved->begin(), moved->end(), out->begin(), before);
}

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_JIGSAW_WARM_ORDER_H_
