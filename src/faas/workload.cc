#include "faas/workload.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace jigsaw::faas {

double StandardNormal(Rng& rng) {
  const double u1 = 1.0 - rng.Uniform();  // (0, 1]
  const double u2 = rng.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

namespace {

constexpr std::array<EnumName<DurationModel>, 2> kDurationModels{{
    {DurationModel::kAzure, "azure"},
    {DurationModel::kShort, "short"},
}};

}  // namespace

EnumTable<DurationModel> DurationModels() { return kDurationModels; }

bool ParseDurationModel(const std::string& text, DurationModel* model) {
  return ParseEnum(DurationModels(), text, model);
}

const char* DurationModelName(DurationModel model) { return EnumNameOf(DurationModels(), model); }

double LogNormalMeanCv(Rng& rng, double mean, double cv) {
  if (cv <= 0) return mean;
  const double sigma2 = std::log1p(cv * cv);
  return mean * std::exp(std::sqrt(sigma2) * StandardNormal(rng) - sigma2 / 2);
}

namespace {

Time ClampTime(double ps, Time lo, Time hi) { return std::clamp(static_cast<Time>(ps), lo, hi); }

uint32_t FunctionsPerApp(Rng& rng) {
  static const std::vector<double> kWeights = {54, 16, 10, 8, 7, 5};
  switch (rng.WeightedIndex(kWeights)) {
    case 0:
      return 1;
    case 1:
      return 2;
    case 2:
      return 3;
    case 3:
      return 4 + static_cast<uint32_t>(rng.UniformInt(2));
    case 4:
      return 6 + static_cast<uint32_t>(rng.UniformInt(5));
    default:
      return 11 + static_cast<uint32_t>(rng.UniformInt(10));
  }
}

struct Trigger {
  const char* name;
  double function_share;
  double invocation_share;
};
const Trigger kTriggers[] = {{"http", 55, 36}, {"queue", 15, 34},       {"event", 2, 25},
                             {"timer", 16, 2}, {"orchestration", 7, 2}, {"others", 5, 1}};

}  // namespace

double ExpectedWork(const Catalog& catalog, const Dag& dag) {
  double work = 0;
  for (FunctionId f : dag.nodes) {
    work += static_cast<double>(catalog.functions[f].duration) / net::kSecond;
  }
  return work;
}

void ScaleToLoad(Catalog* catalog, double load, int cores) {
  double offered = 0;
  for (const Dag& dag : catalog->dags) offered += dag.rate_per_s * ExpectedWork(*catalog, dag);
  if (offered <= 0) return;
  const double factor = load * cores / offered;
  for (Dag& dag : catalog->dags) dag.rate_per_s *= factor;
}

Catalog GenerateWorkload(const WorkloadOptions& options) {
  Rng rng(options.seed);
  Catalog catalog;
  std::vector<double> trigger_weights;
  for (const Trigger& t : kTriggers) trigger_weights.push_back(t.function_share);
  for (DagId id = 0; id < options.dags; ++id) {
    Dag dag;
    dag.name = "app" + std::to_string(id);
    const Trigger& trigger = kTriggers[rng.WeightedIndex(trigger_weights)];
    dag.trigger = trigger.name;
    dag.periodic = dag.trigger == "timer";
    dag.rate_per_s = (trigger.invocation_share / trigger.function_share) *
                     std::exp(options.popularity_sigma * StandardNormal(rng));
    const uint32_t n = FunctionsPerApp(rng);
    dag.successors.assign(n, {});
    dag.predecessor_count.assign(n, 0);
    for (uint32_t node = 1; node < n; ++node) {
      const uint32_t first = static_cast<uint32_t>(rng.UniformInt(node));
      dag.successors[first].push_back(node);
      ++dag.predecessor_count[node];
      if (node >= 2 && rng.Uniform() < 0.3) {
        const uint32_t second = static_cast<uint32_t>(rng.UniformInt(node));
        if (second != first) {
          dag.successors[second].push_back(node);
          ++dag.predecessor_count[node];
        }
      }
    }
    std::vector<Time> durations;
    for (uint32_t node = 0; node < n; ++node) {
      Function f;
      f.name = "f" + std::to_string(node);
      f.dag = id;
      const double z = StandardNormal(rng);
      if (options.duration_model == DurationModel::kShort) {
        const double u = 0.5 * std::erfc(-z / std::sqrt(2.0));  // uniform in (0, 1)
        const double lo = std::log(static_cast<double>(options.short_min));
        const double hi = std::log(static_cast<double>(options.short_max));
        f.duration = ClampTime(std::exp(lo + u * (hi - lo)), options.short_min, options.short_max);
      } else {
        f.duration = ClampTime(static_cast<double>(options.duration_median) * std::exp(z),
                               net::kMillisecond, 10 * net::kSecond);
      }
      f.setup =
          ClampTime(static_cast<double>(options.setup_median) * std::exp(0.3 * StandardNormal(rng)),
                    net::kMillisecond, 60 * net::kSecond);
      static const std::vector<double> kMemoryWeights = {0.6, 0.3, 0.1};
      f.memory = (128ULL << 20) << rng.WeightedIndex(kMemoryWeights);
      f.duration_cv = 0.3;
      dag.nodes.push_back(static_cast<FunctionId>(catalog.functions.size()));
      durations.resize(catalog.functions.size() + 1);
      durations.back() = f.duration;
      catalog.functions.push_back(f);
    }
    const Time critical = CriticalPathFrom(dag, durations).front();
    // Node 0 is the only entry, so its critical path is the DAG's.
    dag.deadline = static_cast<Time>(
        critical * rng.Uniform(options.deadline_factor_lo, options.deadline_factor_hi));
    catalog.dags.push_back(std::move(dag));
  }
  ScaleToLoad(&catalog, options.load, options.cores);
  return catalog;
}

ArrivalProcess::ArrivalProcess(const Catalog& catalog, uint64_t seed, Time burst_period,
                               double burst_sigma)
    : catalog_(catalog), seed_(seed), burst_period_(burst_period), burst_sigma_(burst_sigma) {
  for (DagId dag = 0; dag < catalog.dags.size(); ++dag) {
    rng_.emplace_back(seed * 0x9E3779B97F4A7C15ULL + dag + 1);
  }
}

double ArrivalProcess::Factor(DagId dag, int64_t period) const {
  if (burst_sigma_ <= 0) return 1;
  Rng rng(seed_ ^ (0xD1B54A32D192ED03ULL * (dag + 1)) ^ (0x8CB92BA72F3D8DD7ULL * (period + 1)));
  return std::exp(burst_sigma_ * StandardNormal(rng) - burst_sigma_ * burst_sigma_ / 2);
}

Time ArrivalProcess::Next(DagId dag, Time now) {
  const Dag& d = catalog_.dags[dag];
  const double mean_gap_ps = net::kSecond / d.rate_per_s;
  if (d.periodic) {
    if (now == 0) return static_cast<Time>(rng_[dag].Uniform() * mean_gap_ps) + 1;
    return now + std::max<Time>(1, static_cast<Time>(mean_gap_ps));
  }
  Time t = now;
  // Memoryless: at a period boundary the remaining gap is drawn afresh at the new rate.
  for (int guard = 0; guard < 1'000'000; ++guard) {
    const int64_t period = t / burst_period_;
    const Time period_end = (period + 1) * burst_period_;
    const double rate = d.rate_per_s * Factor(dag, period);
    const double gap = rng_[dag].Exponential(1.0) * net::kSecond / rate;
    if (t + gap < static_cast<double>(period_end)) {
      return t + std::max<Time>(1, static_cast<Time>(gap));
    }
    t = period_end;
  }
  return net::kNever;
}

}  // namespace jigsaw::faas
