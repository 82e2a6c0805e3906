// Admission control for bursts beyond the whole cluster's capacity [ours: the paper describes
// none]. Deadline-met % counts requests, not work, so when more work arrives than the cores can
// do, the fewest requests are lost by refusing the largest ones first. AdmissionFractions returns,
// per DAG, the fraction of its requests to admit: with the DAGs' offered work (rate x work per
// request) summing to more than `capacity_cores`, DAGs are cut in order of decreasing work per
// request (ties: lower index first) until what is left fits into `target` x capacity_cores; the
// last DAG cut is cut only as far as needed (a fraction in (0, 1)). No overload: all 1. Unfair to
// large DAGs by design; refused requests fail explicitly at once (counted as missed) instead of
// running late and making other requests late too.
#ifndef JIGSAW_FAAS_ADMISSION_H_
#define JIGSAW_FAAS_ADMISSION_H_

#include <vector>

namespace jigsaw::faas {

// rate_per_s[d] and work_s[d]: DAG d's arrival rate and expected core-seconds per request.
std::vector<double> AdmissionFractions(const std::vector<double>& rate_per_s,
                                       const std::vector<double>& work_s, double capacity_cores,
                                       double target = 1.0);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_ADMISSION_H_
