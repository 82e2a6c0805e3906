// A shard's synchronous SGD is the parameter server's (ps/aggregator.h): rank-ordered sums, so
// migrations and replays end bit for bit where an undisturbed shard does, and exportable state.
#ifndef JIGSAW_PARAMSVC_SHARD_SGD_H_
#define JIGSAW_PARAMSVC_SHARD_SGD_H_

#include "ps/aggregator.h"

namespace jigsaw::paramsvc {

using ShardState = ps::AggregatorState;
using ShardSgd = ps::SyncSgdAggregator;

}  // namespace jigsaw::paramsvc

#endif  // JIGSAW_PARAMSVC_SHARD_SGD_H_
