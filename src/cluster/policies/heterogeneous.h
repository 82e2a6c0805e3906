// Gavel's heterogeneity-aware allocations (OSDI '20, §4) over a job x worker-type matrix X,
// solved with CLP. T[j][k] is job j's isolated throughput on type k (PolicyJob::type_throughputs),
// n_k the GPUs of type k, N their total. Every program has the base constraints X >= 0,
// sum_k X[j][k] <= 1 (a job runs on one type at a time) and sum_j sf_j X[j][k] <= n_k, and no
// variable where T[j][k] = 0. A job's effective throughput is sum_k T[j][k] X[j][k]; normalised,
// it is divided by its throughput on an equal share, sum_k T[j][k] n_k / N (Gavel's
// ProportionalPolicy), so 1 means "as fast as on the whole cluster's average GPU".
// With a single worker type the programs are the homogeneous policies' own; the policies then
// use their closed forms (OneTypeAllocation), so a one-type --cluster-spec reproduces --gpus.
#ifndef JIGSAW_CLUSTER_POLICIES_HETEROGENEOUS_H_
#define JIGSAW_CLUSTER_POLICIES_HETEROGENEOUS_H_

#include <vector>

#include "cluster/policy.h"

namespace jigsaw {

using TypedAllocation = std::vector<std::vector<double>>;  // [job][worker type]

// Max-min fairness: maximise t subject to sf_j / w_j x normalised effective throughput >= t for
// every job that can run somewhere (w_j its priority weight), then, with t held at its optimum
// (within 1e-6 relative), maximise the sum of the same weighted normalised throughputs, so that
// capacity the bottleneck jobs cannot use is not left idle (a Pareto-efficient point of the
// optimal face; Gavel's interior-point solver returns some point of that face).
TypedAllocation MaxMinFairnessByType(const PolicyContext& context,
                                     const std::vector<PolicyJob>& jobs);

// Max sum throughput (Gavel's ThroughputSumWithPerf): maximise sum_j sum_k T[j][k] X[j][k] in raw
// iterations/s.
TypedAllocation MaxSumThroughputByType(const PolicyContext& context,
                                       const std::vector<PolicyJob>& jobs);

// Type assignment for jobs a ranking policy has chosen (selected[j]): the LP maximising the sum
// of normalised effective throughputs of the chosen jobs; each chosen job gets X = 1 on the type
// where its LP share is largest (the relaxation of this assignment is near-integral; the
// simulator falls back to other types when a gang does not fit).
TypedAllocation AssignTypesByNormalisedThroughput(const PolicyContext& context,
                                                  const std::vector<PolicyJob>& jobs,
                                                  const std::vector<double>& selected);

// `homogeneous`'s x_j as a one-column matrix.
TypedAllocation OneTypeAllocation(Policy& homogeneous, const PolicyContext& context,
                                  const std::vector<PolicyJob>& jobs);

// Throughput on an equal share of every type: sum_k T[j][k] n_k / N.
double EqualShareThroughput(const PolicyContext& context, const PolicyJob& job);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_POLICIES_HETEROGENEOUS_H_
