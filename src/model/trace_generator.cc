#include "model/trace_generator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/rng.h"

namespace jigsaw {
namespace {

struct Template {
  const char* model;
  int batch_size;
  bool distributed;
};

const std::vector<Template>& Templates() {
  static const std::vector<Template> kTemplates = {
      {"ResNet-18", 32, true},
      {"ResNet-18", 64, true},
      {"ResNet-18", 128, true},
      {"ResNet-18", 256, true},
      {"ResNet-50", 16, true},
      {"ResNet-50", 32, true},
      {"ResNet-50", 64, true},
      {"Transformer", 16, true},
      {"Transformer", 32, true},
      {"Transformer", 64, true},
      {"Transformer", 128, true},
      {"LM", 5, true},
      {"LM", 10, true},
      {"LM", 20, true},
      {"LM", 40, true},
      {"LM", 80, true},
      {"Recommendation", 512, false},
      {"Recommendation", 1024, false},
      {"Recommendation", 2048, false},
      {"Recommendation", 4096, false},
      {"Recommendation", 8192, false},
  };
  return kTemplates;
}

struct ModelSpeed {
  const char* model;
  double overhead_s;     // per iteration
  double samples_per_s;  // at large batch
  std::vector<int> batches;
  bool distributed;
};

const std::vector<ModelSpeed>& Speeds() {
  static const std::vector<ModelSpeed> kSpeeds = {
      {"ResNet-18", 0.012, 3500, {16, 32, 64, 128, 256}, true},
      {"ResNet-50", 0.020, 420, {16, 32, 64, 128}, true},
      {"Transformer", 0.030, 1500, {16, 32, 64, 128, 256}, true},
      {"LM", 0.020, 900, {5, 10, 20, 40, 80}, true},
      {"Recommendation", 0.005, 600000, {512, 1024, 2048, 4096, 8192}, false},
  };
  return kSpeeds;
}

bool Valid(const double* mix, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    if (!(mix[i] >= 0)) return false;
    sum += mix[i];
  }
  return std::fabs(sum - 1.0) < 1e-6;
}

}  // namespace

ThroughputTable SyntheticThroughputTable() {
  nlohmann::ordered_json v100 = nlohmann::ordered_json::object();
  for (const ModelSpeed& speed : Speeds()) {
    for (int sf : {1, 2, 4, 8}) {
      if (sf > 1 && !speed.distributed) continue;
      for (int batch : speed.batches) {
        const double single = 1.0 / (speed.overhead_s + batch / speed.samples_per_s);
        const double scaled = single * sf * std::pow(0.9, std::log2(sf));
        const std::string key =
            "('" + MakeJobType(speed.model, batch) + "', " + std::to_string(sf) + ")";
        v100[key] = {{"null", scaled}};
      }
    }
  }
  nlohmann::ordered_json root = {{"v100", v100}};
  return ThroughputTable::Parse("<synthetic throughputs>", root.dump());
}

Trace GenerateTrace(const TraceGeneratorOptions& options, const ThroughputTable& table,
                    const std::string& worker_type) {
  RequireCountInRange("--jobs", options.jobs, 1, static_cast<long long>(kMaxTraceJobs));
  RequireOptionInRange("--arrival-mean-s", options.mean_interarrival_s, 0, kMaxTraceSeconds);
  if (!(options.min_duration_h > 0) || options.max_duration_h < options.min_duration_h ||
      options.duration_values < 1) {
    throw UsageError("duration range must satisfy 0 < min <= max with at least one value");
  }
  if (!Valid(options.mode_mix, 3) || !Valid(options.scale_factor_mix, 4)) {
    throw UsageError("mode and scale-factor mixes must be non-negative and sum to 1");
  }
  // Independent streams, as Shockwave's generator uses separate RNGs per attribute.
  Rng job_rng(options.seed), arrival_rng(options.seed + 1), duration_rng(options.seed + 2),
      sf_rng(options.seed + 3), mode_rng(options.seed + 4);
  const int n = options.duration_values;
  std::vector<double> hours(n);
  for (int i = 0; i < n; ++i) {
    hours[i] = n == 1 ? options.min_duration_h
                      : options.min_duration_h +
                            (options.max_duration_h - options.min_duration_h) * i / (n - 1);
  }
  const int cut[5] = {0, static_cast<int>(std::lround(0.2 * n)),
                      static_cast<int>(std::lround(0.5 * n)),
                      static_cast<int>(std::lround(0.9 * n)), n};
  const std::vector<double> class_weights = {0.72, 0.20, 0.05, 0.03};
  const std::vector<double> sf_weights(options.scale_factor_mix, options.scale_factor_mix + 4);
  const std::vector<double> mode_weights(options.mode_mix, options.mode_mix + 3);
  const int sf_values[4] = {1, 2, 4, 8};

  Trace trace;
  trace.name = "synthetic(jobs=" + std::to_string(options.jobs) +
               ",seed=" + std::to_string(options.seed) + ")";
  double arrival = 0;
  for (int i = 0; i < options.jobs; ++i) {
    JobSpec job;
    const Template& t = Templates()[job_rng.UniformInt(Templates().size())];
    job.model = t.model;
    job.batch_size = t.batch_size;
    job.job_type = MakeJobType(t.model, t.batch_size);
    job.scale_factor = t.distributed ? sf_values[sf_rng.WeightedIndex(sf_weights)] : 1;
    size_t klass = duration_rng.WeightedIndex(class_weights);
    while (cut[klass + 1] <= cut[klass]) klass = (klass + 1) % 4;
    const int index = cut[klass] + static_cast<int>(duration_rng.UniformInt(
                                       static_cast<uint64_t>(cut[klass + 1] - cut[klass])));
    job.duration_s = std::round(3600.0 * hours[index]);
    const size_t mode = mode_rng.WeightedIndex(mode_weights);
    job.mode = mode == 0 ? AdaptationMode::kStatic
                         : (mode == 1 ? AdaptationMode::kAccordion : AdaptationMode::kGns);
    if (job.mode == AdaptationMode::kAccordion && job.duration_s < 1000) {
      job.mode = AdaptationMode::kStatic;
    }
    const double throughput = table.Isolated(worker_type, {job.job_type, job.scale_factor});
    if (throughput <= 0) {
      throw UsageError("throughput table " + table.name() + " has no entry for ('" + job.job_type +
                       "', " + std::to_string(job.scale_factor) + ") on " + worker_type +
                       "; the generator needs one");
    }
    job.total_steps = std::floor(job.duration_s * throughput);
    if (i > 0) arrival += std::floor(arrival_rng.Exponential(options.mean_interarrival_s));
    if (arrival > kMaxTraceSeconds) {
      throw UsageError("--jobs " + std::to_string(options.jobs) + " arriving every " +
                       FormatNumber(options.mean_interarrival_s) +
                       " s on average (--arrival-mean-s) span more than the trace limit of " +
                       FormatNumber(kMaxTraceSeconds) + " s (docs/limits.md)");
    }
    job.arrival_s = arrival;
    job.source = trace.name + ":" + std::to_string(i + 1);
    trace.jobs.push_back(std::move(job));
  }
  for (size_t i = 0; i < trace.jobs.size(); ++i) trace.jobs[i].id = static_cast<int>(i);
  return trace;
}

int AssignJobTypes(Trace* trace, const ThroughputTable& table, const std::string& worker_type,
                   uint64_t seed) {
  Rng rng(seed);
  std::map<int, std::vector<const Template*>> by_gpus;
  int typed = 0;
  for (JobSpec& job : trace->jobs) {
    if (job.typed()) continue;
    auto it = by_gpus.find(job.scale_factor);
    if (it == by_gpus.end()) {
      std::vector<const Template*> candidates;
      for (const Template& t : Templates()) {
        if (!t.distributed && job.scale_factor > 1) continue;
        if (table.Isolated(worker_type, {MakeJobType(t.model, t.batch_size), job.scale_factor}) >
            0) {
          candidates.push_back(&t);
        }
      }
      it = by_gpus.emplace(job.scale_factor, std::move(candidates)).first;
    }
    const double draw = rng.Uniform();  // drawn for every type-less job: stable across tables
    if (it->second.empty() || !(job.duration_s > 0)) continue;
    const Template& t =
        *it->second[std::min(it->second.size() - 1, static_cast<size_t>(draw * it->second.size()))];
    job.model = t.model;
    job.batch_size = t.batch_size;
    job.job_type = MakeJobType(t.model, t.batch_size);
    job.total_steps = std::max(
        1.0,
        std::floor(job.duration_s * table.Isolated(worker_type, {job.job_type, job.scale_factor})));
    ++typed;
  }
  return typed;
}

std::string FormatShockwaveTrace(const Trace& trace) {
  std::string out;
  for (const JobSpec& job : trace.jobs) {
    out += job.job_type + "\tpython3 main.py --batch_size " + std::to_string(job.batch_size) +
           "\t" + job.model + "\t--num_steps\t1\t" + FormatFixed(job.total_steps, 0) + "\t" +
           std::to_string(job.scale_factor) + "\t" + AdaptationModeName(job.mode) + "\t" +
           FormatFixed(job.priority_weight, 0) + "\t-1.000000\t" + FormatFixed(job.duration_s, 0) +
           "\t" + FormatFixed(job.arrival_s, 0) + "\n";
  }
  return out;
}

}  // namespace jigsaw
