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

// With (*order)[0, *sorted) final, makes positions up to k (k < order->size()) final: sorts a
// further block that at least doubles the sorted prefix (and is at least 64 long).
template <typename Before>
void SortThrough(int k, std::vector<int>* order, int* sorted, const Before& before) {
  const int n = static_cast<int>(order->size());
  const int end = std::min(n, std::max({k + 1, 64, 2 * *sorted}));
  auto first = order->begin() + *sorted;
  auto last = order->begin() + end;
  if (end < n) std::nth_element(first, last, order->end(), before);
  std::sort(first, last, before);
  *sorted = end;
}

template <typename Before>
class PrefixOrder {
 public:
  PrefixOrder(int n, Before before) : order_(n), before_(before) {
    for (int i = 0; i < n; ++i) order_[i] = i;
  }
  int size() const { return static_cast<int>(order_.size()); }

  // The index at position k (0 <= k < size()).
  int At(int k) {
    if (k >= sorted_) SortThrough(k, &order_, &sorted_, before_);
    return order_[k];
  }

 private:
  std::vector<int> order_;
  Before before_;
  int sorted_ = 0;  // order_[0, sorted_) is final
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_PREFIX_ORDER_H_
