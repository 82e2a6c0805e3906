// The co-locating round planners' reference form (jigsaw, packing, spb_only: docs/jigsaw.md).
// MakePolicy builds the planners themselves; this header is for the tests that check them.
#ifndef JIGSAW_CLUSTER_POLICIES_JIGSAW_H_
#define JIGSAW_CLUSTER_POLICIES_JIGSAW_H_

#include <memory>
#include <string>

#include "cluster/policy.h"

namespace jigsaw {

// `name` (jigsaw, packing or spb_only) with the plain guest search: every waiting job, least
// served first, searches every host group for a host, as the planners did before their search
// skipped guests whose outcome is known. Same placements by construction; slower. Throws
// UsageError for another name.
std::unique_ptr<Policy> MakeReferenceScanColocationPolicy(const std::string& name,
                                                          const PolicyOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_JIGSAW_H_
