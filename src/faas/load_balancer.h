// Archipelago's load-balancing layer: which SGSs serve each DAG, and how many.
//
// Each DAG starts on one SGS (DAG id modulo the SGS count: spreads DAGs without knowing their
// load). Route sends a request to the DAG's SGS with the lowest load (ties: the first in the set).
// When all of them are past spill_load (more work than cores), the request spills to the least
// loaded usable SGS if that one is under scale_out_load (until the next epoch's scale-out); with
// no usable SGS of its own it goes to the least loaded usable one. Every epoch the platform reports
// each SGS's load (busy + queued tasks per live core, averaged over the epoch) and each DAG's
// demand on it (core-seconds). Scale-out: on every SGS whose load exceeds scale_out_load, the DAG
// with the largest demand there that is not yet on every SGS gets more SGSs, least loaded first.
// If that SGS is not past spill_load, one SGS joins, and only if its load is under scale_out_load.
// If it is past spill_load (tasks queue), SGSs with idle cores (load under spill_load) join, as
// many as it takes for their idle fractions (spill_load - load) to add up to the excess
// (load - spill_load), all in the same epoch: at a high cluster load few SGSs are under
// scale_out_load, and a DAG above one SGS's capacity must not wait one epoch per SGS while its
// backlog grows (seed 5 at load 0.7 otherwise loses its first measured seconds). Scale-in
// (hysteresis): a DAG on several SGSs whose mean SGS load stayed under scale_in_load for
// calm_epochs consecutive epochs, and that has not scaled out within calm_epochs, leaves the SGS it
// joined last.
// Pool memory (SetPoolMemory; without it memory is not looked at): a DAG on an SGS keeps
// Footprint(dag, cores) of its pool's sandbox memory resident: one sandbox per function plus one
// per core it keeps busy there (cores = demand / epoch_s, rounded up), at its functions' mean
// size. Concurrent tasks need sandboxes beside the warm ones of its other functions, and one
// sandbox per function alone lets a 1GB pool admit 15 of 16 sandboxes and churn.
// Scale-out adds a DAG only to an SGS whose pool holds the DAG's footprint (at its total cores
// split evenly over the enlarged set) beside the footprints of the DAGs already there; the least
// loaded SGS that fits joins. Scale-in also happens under memory pressure, whatever the load: on
// an SGS whose DAGs' footprints exceed its pool, the DAG with the least demand there among those
// with other SGSs leaves it (one per SGS per epoch) and may not rejoin it for calm_epochs epochs
// (without it, with 1GB pools every DAG joins every SGS and the pools churn: 0 % met).
#ifndef JIGSAW_FAAS_LOAD_BALANCER_H_
#define JIGSAW_FAAS_LOAD_BALANCER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jigsaw::faas {

struct LoadBalancerOptions {
  double scale_out_load = 0.6;
  double scale_in_load = 0.3;
  int calm_epochs = 5;
  double spill_load = 1.0;
};

// What the SGS pools can hold and what each DAG's sandboxes take (see Footprint).
struct PoolMemory {
  std::vector<uint64_t> pool_bytes;         // per SGS
  std::vector<uint64_t> dag_sandbox_bytes;  // per DAG: one sandbox of each of its functions
  std::vector<uint32_t> dag_functions;      // per DAG
  double epoch_s = 1;                       // demand (core-seconds per epoch) / epoch_s = cores
};

class LoadBalancer {
 public:
  LoadBalancer(uint32_t dags, uint32_t sgs_count, LoadBalancerOptions options);

  // `load[s]`: the SGS's current load; SGSs with `usable[s]` false (no live worker) are skipped.
  uint32_t Route(uint32_t dag, const std::vector<double>& load,
                 const std::vector<char>& usable) const;
  // demand[dag * sgs_count + s]: the DAG's demand on SGS s this epoch.
  void EndEpoch(const std::vector<double>& load, const std::vector<double>& demand,
                const std::vector<char>& usable);

  // Throws std::invalid_argument when the sizes do not match the DAG and SGS counts.
  void SetPoolMemory(PoolMemory memory);
  // Bytes of sandboxes `dag` keeps resident on an SGS where it keeps `cores` cores busy.
  uint64_t Footprint(uint32_t dag, double cores) const;

  const std::vector<uint32_t>& SgsOf(uint32_t dag) const { return sgs_of_[dag]; }
  uint64_t scale_outs() const { return scale_outs_; }
  uint64_t scale_ins() const { return scale_ins_; }
  size_t max_sgs_per_dag() const { return max_sgs_per_dag_; }
  uint64_t memory_scale_ins() const { return memory_scale_ins_; }
  // SGSs a scale-out passed over because their pool could not hold the DAG's sandboxes.
  uint64_t memory_refusals() const { return memory_refusals_; }

 private:
  uint64_t Resident(uint32_t s, const std::vector<double>& demand) const;
  bool Fits(uint32_t dag, uint32_t s, double dag_cores, const std::vector<double>& demand) const;
  void MemoryScaleIn(const std::vector<double>& demand, const std::vector<char>& usable);

  LoadBalancerOptions options_;
  uint32_t sgs_count_;
  std::vector<std::vector<uint32_t>> sgs_of_;
  std::vector<int> calm_;             // consecutive calm epochs per DAG
  std::vector<int> since_scale_out_;  // epochs since the DAG last scaled out
  uint64_t scale_outs_ = 0;
  uint64_t scale_ins_ = 0;
  size_t max_sgs_per_dag_ = 1;
  PoolMemory memory_;
  bool memory_set_ = false;
  int64_t epoch_ = 0;
  std::vector<int64_t> barred_until_;  // dag * sgs_count + s: no rejoin before this epoch
  uint64_t memory_scale_ins_ = 0;
  uint64_t memory_refusals_ = 0;
};

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_LOAD_BALANCER_H_
