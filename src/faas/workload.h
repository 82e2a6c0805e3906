// A synthetic serverless workload calibrated to the published Azure Functions 2019 statistics
// (Shahrad et al., "Serverless in the Wild", ATC'20; the trace CSVs are not available here, see
// docs/faas.md for every number and which are design choices):
//  - functions per application: 1: 54%, 2: 16%, 3: 10%, 4-5: 8%, 6-10: 7%, 11-20: 5% (the paper's
//    11+ bucket capped at 20); an application is one DAG (node i > 0 follows a uniformly chosen
//    earlier node, and with probability 0.3 a second one);
//  - trigger mix by share of applications HTTP 55, Queue 15, Event 2, Timer 16, Orchestration 7,
//    Others 5; each trigger's rate multiplier is (its share of invocations / share of functions),
//    36/34/25/2/2/1 %, so the invocation mix matches in expectation; timer DAGs are periodic;
//  - popularity: rates lognormal with sigma 2.3, so +-4 sigma spans 8 orders of magnitude;
//  - bursts: every burst_period each DAG's rate is multiplied by a lognormal factor of mean 1 and
//    sigma burst_sigma (Poisson within a period);
//  - durations: per function, a lognormal mean with median duration_median and sigma 1 (clamped to
//    [1 ms, 10 s]); per invocation, lognormal around it with cv 0.3; setup (cold start) lognormal
//    with median setup_median and sigma 0.3; memory 128/256/512 MB with weights 0.6/0.3/0.1;
//  - deadline: the DAG's critical path times U[deadline_factor_lo, deadline_factor_hi].
// The "short" duration model (an evaluation-style preset, docs/faas.md) draws each function's mean
// log-uniformly in [short_min, short_max] (10-100 ms) instead, from the same random draw, so every
// other property (DAG shapes, rates before scaling, setups, memory, deadline factors) is the same.
// Rates are finally scaled so the offered load (sum of rate x expected work) is load x cores.
#ifndef JIGSAW_FAAS_WORKLOAD_H_
#define JIGSAW_FAAS_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "faas/dag.h"
#include "faas/enum_table.h"

namespace jigsaw::faas {

enum class DurationModel { kAzure, kShort };
// azure, short.
EnumTable<DurationModel> DurationModels();
bool ParseDurationModel(const std::string& text, DurationModel* model);
const char* DurationModelName(DurationModel model);

struct WorkloadOptions {
  uint64_t seed = 1;
  uint32_t dags = 300;
  double load = 0.7;
  int cores = 1000;
  Time duration_median = 50 * net::kMillisecond;
  DurationModel duration_model = DurationModel::kAzure;
  Time short_min = 10 * net::kMillisecond;
  Time short_max = 100 * net::kMillisecond;
  Time setup_median = 500 * net::kMillisecond;
  double popularity_sigma = 2.3;
  double deadline_factor_lo = 2.0;
  double deadline_factor_hi = 4.0;
};

Catalog GenerateWorkload(const WorkloadOptions& options);

// Expected core-seconds of work one request of `dag` brings.
double ExpectedWork(const Catalog& catalog, const Dag& dag);
// Multiplies every DAG's rate so the offered load is load x cores.
void ScaleToLoad(Catalog* catalog, double load, int cores);

// Arrival times per DAG: Poisson within each burst period at rate x that period's factor (drawn
// from (seed, dag, period), so a DAG's arrivals do not depend on other DAGs'); periodic DAGs
// arrive every 1/rate from a random phase.
class ArrivalProcess {
 public:
  ArrivalProcess(const Catalog& catalog, uint64_t seed, Time burst_period, double burst_sigma);
  // The first arrival after `now` of `dag`.
  Time Next(DagId dag, Time now);

 private:
  double Factor(DagId dag, int64_t period) const;

  const Catalog& catalog_;
  uint64_t seed_;
  Time burst_period_;
  double burst_sigma_;
  std::vector<Rng> rng_;
};

// Standard normal from two uniforms (Box-Muller), reproducible across platforms.
double StandardNormal(Rng& rng);
// Lognormal with the given mean and coefficient of variation (cv 0: the mean).
double LogNormalMeanCv(Rng& rng, double mean, double cv);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_WORKLOAD_H_
