// gandiva_fair (Gavel's GandivaFairProportional): every active job gets the same time share
// x = min(1, gpus / jobs), whatever its size; Gavel's priority rule turns it into round robin.
#include <algorithm>

#include "cluster/policies/policies.h"

namespace jigsaw {
namespace {

class GandivaFairPolicy : public Policy {
 public:
  std::string name() const override { return "gandiva_fair"; }
  std::vector<double> Allocate(const PolicyContext& context,
                               const std::vector<PolicyJob>& jobs) override {
    if (jobs.empty()) return {};
    const double share = std::min(1.0, static_cast<double>(context.gpus) / jobs.size());
    return std::vector<double>(jobs.size(), share);
  }
};

}  // namespace

std::unique_ptr<Policy> MakeGandivaFairPolicy() { return std::make_unique<GandivaFairPolicy>(); }

}  // namespace jigsaw
