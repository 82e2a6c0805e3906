// PrefixOrder: the indices 0..n-1 in a strict total order `before`, sorted only as far as they
// are read. At(k) makes the first k + 1 positions final (sorting a further block, at least
// doubling the sorted prefix), so reading a prefix of length m costs O(n + m log m) rather than
// the O(n log n) of a full sort - for a fill that stops once a round is full. Because `before` is
// a strict total order, every prefix equals that of a full sort (and of a stable sort by any
// order that `before` refines with the index as tie-break).
// Not thread-safe.
#ifndef JIGSAW_CLUSTER_POLICIES_PREFIX_ORDER_H_
#define JIGSAW_CLUSTER_POLICIES_PREFIX_ORDER_H_

#include <algorithm>
#include <vector>

namespace jigsaw {

template <typename Before>
class PrefixOrder {
 public:
  PrefixOrder(int n, Before before) : order_(n), before_(before) {
    for (int i = 0; i < n; ++i) order_[i] = i;
  }
  int size() const { return static_cast<int>(order_.size()); }

  // The index at position k (0 <= k < size()).
  int At(int k) {
    if (k >= sorted_) {
      const int n = size();
      const int end = std::min(n, std::max({k + 1, 64, 2 * sorted_}));
      auto first = order_.begin() + sorted_;
      auto last = order_.begin() + end;
      if (end < n) std::nth_element(first, last, order_.end(), before_);
      std::sort(first, last, before_);
      sorted_ = end;
    }
    return order_[k];
  }

 private:
  std::vector<int> order_;
  Before before_;
  int sorted_ = 0;  // order_[0, sorted_) is final
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_PREFIX_ORDER_H_
