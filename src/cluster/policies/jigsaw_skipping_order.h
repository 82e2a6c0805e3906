// SkippingOrder: the least-served order of the co-locating planners' guest search (jigsaw.cc).
// Not thread-safe.
#ifndef JIGSAW_CLUSTER_POLICIES_JIGSAW_SKIPPING_ORDER_H_
#define JIGSAW_CLUSTER_POLICIES_JIGSAW_SKIPPING_ORDER_H_

#include <algorithm>
#include <vector>

#include "cluster/policies/prefix_order.h"

namespace jigsaw {

// The indices 0..n-1 in a strict total order `before`, sorted only as far as read (as
// PrefixOrder), except that whenever the sorted prefix grows, the unsorted indices that
// `skipped` says would only be read and skipped are set aside unsorted instead. Reopen(k) puts
// back those that come after position k (passing the others, which would have been read and
// skipped before it, to `dropped`) and sorts the order after k again as it is read. The caller
// skips every index `skipped` holds for when it reads it, and `skipped` may only turn true for
// an index until the next Reopen; the indices read are then the full order's, less those that
// would be read and skipped.
template <typename Before, typename Skipped>
class SkippingOrder {
 public:
  // `order` and `aside` are the caller's buffers (reused across uses).
  SkippingOrder(int n, std::vector<int>* order, std::vector<int>* aside, Before before,
                Skipped skipped)
      : order_(*order), aside_(*aside), before_(before), skipped_(skipped) {
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
    aside_.clear();
  }

  // The index at position k, or -1 if fewer than k + 1 are left.
  int At(int k) {
    if (k >= sorted_) {
      auto kept = std::partition(order_.begin() + sorted_, order_.end(),
                                 [&](int i) { return !skipped_(i); });
      aside_.insert(aside_.end(), kept, order_.end());
      order_.erase(kept, order_.end());
      const int n = static_cast<int>(order_.size());
      if (k >= n) return -1;
      SortThrough(k, &order_, &sorted_, before_);
    }
    return order_[k];
  }

  template <typename Dropped>
  void Reopen(int k, Dropped dropped) {
    const int at = order_[k];
    for (int i : aside_) {
      if (before_(i, at)) {
        dropped(i);
      } else {
        order_.push_back(i);
      }
    }
    aside_.clear();
    sorted_ = std::min(sorted_, k + 1);
  }

 private:
  std::vector<int>& order_;
  std::vector<int>& aside_;
  Before before_;
  Skipped skipped_;
  int sorted_ = 0;  // order_[0, sorted_) is final
};

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_JIGSAW_SKIPPING_ORDER_H_
