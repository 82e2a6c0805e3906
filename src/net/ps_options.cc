#include "net/ps_options.h"

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"
#include "core/units.h"

namespace jigsaw::net {
namespace {

// A ps-worker CSV (the compute_s column, seconds) or one duration in seconds per line.
std::vector<Time> ReadComputeSamples(const std::string& path) {
  TextFile file(path);
  std::vector<Time> samples;
  std::string_view line;
  int column = -1;
  while (file.NextLine(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> fields = SplitFields(line, ',');
    if (column < 0 && samples.empty()) {
      for (size_t c = 0; c < fields.size(); ++c) {
        if (Trim(fields[c]) == "compute_s") column = static_cast<int>(c);
      }
      if (column >= 0) continue;
      if (fields.size() != 1) {
        file.Fail("expected a header with a compute_s column, or one duration in seconds per line");
      }
      column = 0;
    }
    if (static_cast<size_t>(column) >= fields.size()) {
      file.Fail("expected a value in column " + std::to_string(column + 1) + " (compute_s)");
    }
    const double seconds =
        file.ParseDoubleInRange(Trim(fields[static_cast<size_t>(column)]), "compute_s", 0, 1e5);
    samples.push_back(SaturatingTime(seconds * static_cast<double>(kSecond)));
    if (samples.size() > 10'000'000) file.Fail("more than 10,000,000 samples");
  }
  if (samples.empty()) throw InputError(path, 0, "expected at least one compute_s sample");
  return samples;
}

template <class Table>
auto LookUp(const Table& table, const std::string& text, const std::string& option) {
  std::string names;
  for (const auto& entry : table) {
    if (text == entry.name) return entry;
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  }
  throw UsageError(option + " '" + Excerpt(text) + "': expected one of " + names);
}

}  // namespace

std::string PsModelNames() {
  std::string names;
  for (const PsModelEntry& entry : kPsModels) {
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  }
  return names;
}

bool PsJobsOptions::any_given() const {
  return jobs != 0 || workers != 0 || !model.empty() || !model_bytes.empty() || !compute.empty() ||
         !compute_file.empty() || !compute_jitter.empty() || iterations != 0 || ps_hosts != 0 ||
         !placement.empty() || !host_priority.empty() || !rotate_interval.empty() ||
         !downlink.empty();
}

void PsJobsOptions::ValidateModel(PsJobsSpec* spec) const {
  if (!model.empty() && !model_bytes.empty()) {
    throw UsageError("give --ps-model or --ps-model-bytes, not both");
  }
  if (model.empty() && model_bytes.empty()) {
    throw UsageError("give the model as --ps-model NAME (" + PsModelNames() +
                     ") or --ps-model-bytes SIZE");
  }
  if (!model.empty()) {
    const PsModelEntry entry = LookUp(kPsModels, model, "--ps-model");
    spec->model = entry.name;
    spec->model_bytes = entry.parameters * 4;
  } else if (!ParseBytes(model_bytes, &spec->model_bytes) || spec->model_bytes == 0 ||
             spec->model_bytes > (uint64_t{1} << 40)) {
    throw UsageError("--ps-model-bytes '" + Excerpt(model_bytes) +
                     "': expected a size of 1B..1TiB like 1.86MB");
  }
}

void PsJobsOptions::ValidateCompute(PsJobsSpec* spec) const {
  if (!compute.empty() && !compute_file.empty()) {
    throw UsageError("give --ps-compute DURATION or --ps-compute-file CSV, not both");
  }
  if (!compute.empty()) {
    int64_t ps = 0;
    if (!ParseDurationPs(compute, &ps) || ps < 0 || ps > 100'000 * kSecond) {
      throw UsageError("--ps-compute '" + Excerpt(compute) +
                       "': expected a duration of 0..100000s like 20ms");
    }
    spec->compute = ps;
  }
  if (!compute_file.empty()) {
    spec->samples = ReadComputeSamples(compute_file);
    spec->compute_file = compute_file;
  }
  if (!compute_jitter.empty()) {
    if (!compute_file.empty()) {
      throw UsageError("--ps-compute-jitter applies to --ps-compute, not to --ps-compute-file");
    }
    if (compute_jitter != "0" && !ParseRatio(compute_jitter, 1, &spec->jitter)) {
      throw UsageError("--ps-compute-jitter '" + Excerpt(compute_jitter) +
                       "': expected a fraction of 0..1 like 0.1 or 10%");
    }
  }
}

void PsJobsOptions::ValidatePriority(PsJobsSpec* spec) const {
  if (!host_priority.empty()) spec->policy = tlights::ParsePolicy(host_priority, "--host-priority");
  if (!rotate_interval.empty()) {
    if (spec->policy != tlights::Policy::kRotate) {
      throw UsageError("--rotate-interval needs --host-priority rotate");
    }
    double seconds = 0;
    if (!ParseDurationSeconds(rotate_interval, &seconds) || !(seconds > 0) || seconds > 1e5) {
      throw UsageError("--rotate-interval '" + Excerpt(rotate_interval) +
                       "': expected a positive duration like 20s or 500ms");
    }
    spec->rotate_interval_s = seconds;
  }
  if (!downlink.empty()) {
    if (downlink != "on" && downlink != "off") {
      throw UsageError("--ps-downlink-priority '" + Excerpt(downlink) + "': expected on or off");
    }
    spec->downlink = downlink == "on";
    if (spec->downlink && spec->policy == tlights::Policy::kFifo) {
      throw UsageError("--ps-downlink-priority on needs --host-priority static or rotate");
    }
  }
}

PsJobsSpec PsJobsOptions::Validate() const {
  if (jobs == 0) {
    throw UsageError(
        "--ps-workers, --ps-model, --ps-compute, --host-priority and the other parameter-server "
        "options need --ps-jobs N");
  }
  PsJobsSpec spec;
  RequireCountInRange("--ps-jobs", jobs, 1, kMaxPsJobs);
  if (workers == 0) throw UsageError("--ps-jobs needs --ps-workers W (workers per job)");
  RequireCountInRange("--ps-workers", workers, 1, kMaxPsJobWorkers);
  spec.jobs = jobs;
  spec.workers = workers;
  if (iterations != 0) RequireCountInRange("--ps-iterations", iterations, 1, kMaxPsJobIterations);
  spec.iterations = iterations == 0 ? 10 : iterations;
  ValidateModel(&spec);
  ValidateCompute(&spec);
  if (ps_hosts != 0) RequireCountInRange("--ps-hosts", ps_hosts, 1, jobs);
  spec.ps_hosts = ps_hosts == 0 ? 1 : ps_hosts;
  if (!placement.empty()) {
    spec.placement = LookUp(kPsPlacements, placement, "--ps-placement").placement;
  }
  ValidatePriority(&spec);
  spec.seed = seed;
  return spec;
}

}  // namespace jigsaw::net
