#include "paramsvc/trace_sim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <queue>
#include <set>

#include "core/error.h"
#include "model/throughput_table.h"
#include "model/trace_generator.h"
#include "model/trace_readers.h"
#include "paramsvc/packing.h"

namespace jigsaw::paramsvc {

double ModelParameters(const std::string& model) {
  // Parameter counts of the reference implementations the throughput tables were measured with
  // (Gavel's workloads); the LM, Transformer, Recommendation and A3C sizes are approximate.
  static const std::map<std::string, double> kSizes = {
      {"ResNet-18", 11.2e6},      {"ResNet-50", 25.6e6}, {"Transformer", 48.0e6}, {"LM", 33.3e6},
      {"Recommendation", 20.4e6}, {"A3C", 0.9e6},        {"CycleGAN", 28.3e6},
  };
  auto it = kSizes.find(model);
  return it == kSizes.end() ? 0 : it->second;
}

namespace {

struct Bin {
  double load = 0;
  int shards = 0;
};

struct PlacedShard {
  int bin = -1;
  double demand = 0;
};

}  // namespace

TraceSimResult SimulateTrace(const TraceSimOptions& options) {
  if (!(options.ns_per_float > 0)) throw UsageError("--ns-per-float must be positive");
  if (!(options.headroom >= 0 && options.headroom < 1)) {
    throw UsageError("--headroom must be in [0, 1)");
  }
  if (!(options.sample_s > 0)) throw UsageError("--sample-s must be positive");
  if (!(options.burst_fraction > 0 && options.burst_fraction <= 1)) {
    throw UsageError("--burst-fraction must be in (0, 1]");
  }
  const ThroughputTable table = ThroughputTable::Load(options.throughputs);
  Trace trace = ReadTrace(options.trace);
  if (options.max_jobs > 0 && static_cast<size_t>(options.max_jobs) < trace.jobs.size()) {
    trace.jobs.resize(static_cast<size_t>(options.max_jobs));
  }
  AssignJobTypes(&trace, table, options.worker_type, options.type_seed);

  TraceSimResult result;
  result.trace_jobs = static_cast<long long>(trace.jobs.size());
  const double capacity = 1 - options.headroom;

  // Events: (time, +1 arrival / -1 finish, job index). Finishes first at equal times.
  struct Event {
    double t;
    int kind;
    size_t job;
    bool operator<(const Event& o) const {
      return t != o.t ? t < o.t : kind != o.kind ? kind < o.kind : job < o.job;
    }
  };
  std::vector<Event> events;
  std::vector<double> demand(trace.jobs.size(), 0);
  std::vector<double> dedicated(trace.jobs.size(), 0);
  std::vector<std::vector<double>> shard_demands(trace.jobs.size());
  for (size_t j = 0; j < trace.jobs.size(); ++j) {
    const JobSpec& job = trace.jobs[j];
    if (job.scale_factor < options.min_workers) continue;
    const double parameters = job.typed() ? ModelParameters(job.model) : 0;
    const double rate =
        job.typed() ? table.Isolated(options.worker_type, JobKey{job.job_type, job.scale_factor})
                    : 0;
    if (parameters <= 0 || !(rate > 0)) {
      ++result.untyped_jobs;
      continue;
    }
    const double duration = job.duration_s > 0 ? job.duration_s : job.total_steps / rate;
    if (!(duration > 0)) continue;
    ++result.ps_jobs;
    demand[j] = parameters * job.scale_factor * rate * options.ns_per_float * 1e-9;
    dedicated[j] = std::max(options.dedicated_cores,
                            std::ceil(demand[j] / (options.burst_fraction * capacity)));
    const uint64_t count = ShardCount(static_cast<uint64_t>(parameters), demand[j],
                                      options.max_shard_floats, capacity);
    shard_demands[j].assign(count, demand[j] / static_cast<double>(count));
    result.shards += static_cast<long long>(count);
    events.push_back({job.arrival_s, +1, j});
    events.push_back({job.arrival_s + duration, -1, j});
  }
  std::sort(events.begin(), events.end());
  if (events.empty()) return result;

  std::vector<Bin> bins;  // the service's aggregators (a removed one has shards == -1)
  std::vector<int> open_bins;
  std::vector<std::vector<PlacedShard>> placed(trace.jobs.size());
  double dedicated_now = 0, demand_now = 0;
  const double t0 = events.front().t;
  double last_t = t0, next_sample = t0;
  double area_dedicated = 0, area_service = 0, area_demand = 0;

  // Cores an aggregator reserves: one, or more when a single shard alone exceeds its capacity
  // (kMaxShardsPerJob cut the job no finer).
  double service_now = 0;
  auto cores = [&](int b) {
    return bins[b].shards > 0 ? std::max(1.0, std::ceil(bins[b].load / capacity - 1e-9)) : 0.0;
  };
  auto change_load = [&](int b, double delta, int shards) {
    service_now -= cores(b);
    bins[b].load += delta;
    bins[b].shards += shards;
    if (bins[b].shards == 0) bins[b].load = 0;
    service_now += cores(b);
  };
  auto place = [&](double d) {
    for (int b : open_bins) {
      if (bins[b].load + d <= capacity) return b;
    }
    bins.push_back({});
    open_bins.push_back(static_cast<int>(bins.size()) - 1);
    return static_cast<int>(bins.size()) - 1;
  };
  // Shards by bin, to drain one.
  std::map<int, std::set<std::pair<size_t, size_t>>> members;

  for (size_t e = 0; e < events.size(); ++e) {
    const Event& event = events[e];
    area_dedicated += dedicated_now * (event.t - last_t);
    area_service += service_now * (event.t - last_t);
    area_demand += demand_now * (event.t - last_t);
    while (next_sample <= event.t) {
      result.samples.push_back({next_sample - t0, dedicated_now, service_now, demand_now});
      next_sample += options.sample_s;
    }
    last_t = event.t;
    const size_t j = event.job;
    if (event.kind > 0) {
      dedicated_now += dedicated[j];
      demand_now += demand[j];
      for (size_t s = 0; s < shard_demands[j].size(); ++s) {
        const int b = place(shard_demands[j][s]);
        change_load(b, shard_demands[j][s], +1);
        placed[j].push_back({b, shard_demands[j][s]});
        members[b].insert({j, s});
      }
    } else {
      dedicated_now -= dedicated[j];
      demand_now -= demand[j];
      for (size_t s = 0; s < placed[j].size(); ++s) {
        const int b = placed[j][s].bin;
        change_load(b, -placed[j][s].demand, -1);
        members[b].erase({j, s});
        if (bins[b].shards == 0) std::erase(open_bins, b);
      }
      placed[j].clear();
      // Consolidate: drain the least-loaded aggregator while its shards fit into the others.
      while (open_bins.size() > 1) {
        const int victim = *std::min_element(open_bins.begin(), open_bins.end(), [&](int a, int b) {
          return bins[a].load < bins[b].load;
        });
        std::vector<double> loads;
        std::vector<int> others;
        for (int b : open_bins) {
          if (b != victim) others.push_back(b), loads.push_back(bins[b].load);
        }
        std::vector<std::pair<std::pair<size_t, size_t>, int>> moves;
        bool fits = true;
        for (const auto& member : members[victim]) {
          const double d = placed[member.first][member.second].demand;
          int slot = -1;
          for (size_t k = 0; k < loads.size() && slot < 0; ++k) {
            if (loads[k] + d <= capacity) slot = static_cast<int>(k);
          }
          if (slot < 0) {
            fits = false;
            break;
          }
          loads[slot] += d;
          moves.push_back({member, others[slot]});
        }
        if (!fits) break;
        for (const auto& [member, to] : moves) {
          PlacedShard& shard = placed[member.first][member.second];
          change_load(to, shard.demand, +1);
          change_load(victim, -shard.demand, -1);
          members[to].insert(member);
          shard.bin = to;
          ++result.migrations;
        }
        members[victim].clear();
        std::erase(open_bins, victim);
      }
    }
    result.peak_dedicated = std::max(result.peak_dedicated, dedicated_now);
    result.peak_service = std::max(result.peak_service, service_now);
    result.peak_demand = std::max(result.peak_demand, demand_now);
  }
  result.span_s = last_t - t0;
  if (result.span_s > 0) {
    result.mean_dedicated = area_dedicated / result.span_s;
    result.mean_service = area_service / result.span_s;
    result.mean_demand = area_demand / result.span_s;
  }
  return result;
}

}  // namespace jigsaw::paramsvc
