#include "spb/phase_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/text_input.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {
namespace {

constexpr size_t kColumns = 16;
constexpr double kSumTolerance = 1e-3;

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool Known(const std::string& model) {
  const std::vector<std::string>& known = KnownPhasePlanModels();
  return std::find(known.begin(), known.end(), NormalizedModelName(model)) != known.end();
}

// A name field: non-empty, no blanks or quotes (the file is plain CSV without quoting).
std::string NameField(const TextFile& file, std::string_view field, std::string_view what) {
  const std::string_view trimmed = Trim(field);
  if (trimmed.empty() || trimmed.find_first_of(" \t\"") != std::string_view::npos) {
    file.Fail("expected a name without blanks or quotes in " + std::string(what));
  }
  return std::string(trimmed);
}

std::vector<double> ListField(const TextFile& file, std::string_view field, std::string_view what,
                              int workers) {
  std::vector<double> values;
  for (std::string_view part : SplitFields(field, ';')) {
    values.push_back(file.ParseDoubleInRange(Trim(part), what, 0, 10));
  }
  if (static_cast<int>(values.size()) != workers) {
    file.Fail("expected " + std::to_string(workers) + " ';'-separated values (one per worker) in " +
              std::string(what) + ", got " + std::to_string(values.size()));
  }
  return values;
}

std::string FormatList(const std::vector<double>& values) {
  std::string out;
  for (double v : values) out += (out.empty() ? "" : ";") + FormatNumber(v);
  return out;
}

// Parses one row (the file's current line) into `plan` (a new plan when the key changes).
void ParseRow(const TextFile& file, std::string_view line, SpbPhasePlan* plan, bool* new_plan) {
  const std::vector<std::string_view> f = SplitFields(line, ',');
  file.RequireColumns(f, kColumns, kPhasePlanHeader);
  SpbPhasePlan key;
  key.model = NameField(file, f[0], "column 1 (model)");
  if (!Known(key.model)) {
    file.Fail("unknown model '" + key.model + "' in column 1 (model): expected one of " +
              Joined(KnownPhasePlanModels()));
  }
  key.workers = static_cast<int>(file.ParseIntInRange(f[1], "column 2 (workers)", 1, kMaxWorkers));
  key.batch_per_worker =
      static_cast<int>(file.ParseIntInRange(f[2], "column 3 (batch_per_worker)", 1, kMaxBatchSize));
  key.plan = NameField(file, f[3], "column 4 (plan)");
  key.source = std::string(Trim(f[15]));
  *new_plan = plan->phases.empty() ||
              NormalizedModelName(key.model) != NormalizedModelName(plan->model) ||
              key.workers != plan->workers || key.plan != plan->plan;
  if (*new_plan) {
    *plan = key;
    plan->line = file.line_number();
  } else if (key.batch_per_worker != plan->batch_per_worker) {
    file.Fail("expected the batch_per_worker of the plan's first row (" +
              std::to_string(plan->batch_per_worker) + ") in column 3");
  }
  SpbPhase phase;
  phase.line = file.line_number();
  phase.name = NameField(file, f[4], "column 5 (phase)");
  phase.fraction = file.ParseDoubleInRange(f[5], "column 6 (fraction)", 0, 1);
  if (!(phase.fraction > 0)) file.Fail("expected a fraction in (0, 1] in column 6 (fraction)");
  phase.blocks = static_cast<int>(file.ParseIntInRange(f[7], "column 8 (blocks)", 1, 100000));
  phase.frozen_blocks =
      static_cast<int>(file.ParseIntInRange(f[6], "column 7 (frozen_blocks)", 0, phase.blocks));
  phase.iteration_time = file.ParseDoubleInRange(f[8], "column 9 (iteration_time)", 0, 10);
  if (!(phase.iteration_time > 0)) {
    file.Fail("expected an iteration_time in (0, 10] in column 9 (iteration_time)");
  }
  phase.worker_compute = ListField(file, f[9], "column 10 (worker_compute)", key.workers);
  phase.worker_activation = ListField(file, f[10], "column 11 (worker_activation)", key.workers);
  phase.bytes = file.ParseDoubleInRange(f[11], "column 12 (bytes)", 0, 10);
  phase.efficiency = file.ParseDoubleInRange(f[12], "column 13 (statistical_efficiency)", 0, 1);
  phase.efficiency_low = file.ParseDoubleInRange(f[13], "column 14 (efficiency_low)", 0, 1);
  phase.efficiency_high = file.ParseDoubleInRange(f[14], "column 15 (efficiency_high)", 0, 1);
  if (!(phase.efficiency_low <= phase.efficiency && phase.efficiency <= phase.efficiency_high)) {
    file.Fail(
        "expected efficiency_low <= statistical_efficiency <= efficiency_high (columns 13-15)");
  }
  if (!plan->phases.empty() && phase.blocks != plan->phases.front().blocks) {
    file.Fail("expected the blocks of the plan's first row (" +
              std::to_string(plan->phases.front().blocks) + ") in column 8");
  }
  plan->phases.push_back(phase);
}

// A plan is complete: its fractions must sum to 1.
void FinishPlan(const std::string& name, const SpbPhasePlan& plan) {
  double sum = 0;
  for (const SpbPhase& p : plan.phases) sum += p.fraction;
  if (std::abs(sum - 1) > kSumTolerance) {
    throw InputError(name, plan.line,
                     "expected the fractions of the phases of " + plan.model + " on " +
                         std::to_string(plan.workers) + " workers (plan " + plan.plan +
                         ") to sum to 1, got " + FormatNumber(sum));
  }
}

}  // namespace

double SpbPhase::MaxCompute() const {
  return worker_compute.empty() ? 1.0
                                : *std::max_element(worker_compute.begin(), worker_compute.end());
}

double SpbPhase::MaxActivation() const {
  return worker_activation.empty()
             ? 1.0
             : *std::max_element(worker_activation.begin(), worker_activation.end());
}

const std::vector<std::string>& KnownPhasePlanModels() {
  static const std::vector<std::string> kModels = {
      "mlp",         "lenet", "resnet",         "resnet20", "resnet18", "resnet50",
      "transformer", "lm",    "recommendation", "a3c",      "cyclegan"};
  return kModels;
}

SpbPhasePlanFile ParseSpbPhasePlans(const std::string& name, const std::string& text) {
  TextFile file(name, text);
  std::string_view line;
  if (!file.NextLine(&line) || Trim(line) != kPhasePlanFormatLine) {
    throw InputError(name, 1,
                     std::string("expected the format line \"") + kPhasePlanFormatLine + "\"");
  }
  if (!file.NextLine(&line) || Trim(line) != kPhasePlanHeader) {
    throw InputError(name, 2, std::string("expected the header \"") + kPhasePlanHeader + "\"");
  }
  SpbPhasePlanFile result;
  result.path = name;
  SpbPhasePlan plan;
  while (file.NextLine(&line)) {
    if (Trim(line).empty() || Trim(line).front() == '#') continue;
    SpbPhasePlan next = plan;
    bool new_plan = false;
    ParseRow(file, line, &next, &new_plan);
    if (new_plan && !plan.phases.empty()) {
      FinishPlan(name, plan);
      for (const SpbPhasePlan& seen : result.plans) {
        if (NormalizedModelName(seen.model) == NormalizedModelName(next.model) &&
            seen.workers == next.workers && seen.plan == next.plan) {
          file.Fail("expected the rows of one plan to be consecutive: " + next.model + " on " +
                    std::to_string(next.workers) + " workers (plan " + next.plan +
                    ") already ended at line " + std::to_string(seen.phases.back().line));
        }
      }
      result.plans.push_back(plan);
    }
    plan = next;
  }
  if (!plan.phases.empty()) {
    FinishPlan(name, plan);
    for (const SpbPhasePlan& seen : result.plans) {
      if (NormalizedModelName(seen.model) == NormalizedModelName(plan.model) &&
          seen.workers == plan.workers && seen.plan == plan.plan) {
        throw InputError(name, plan.line, "expected the rows of one plan to be consecutive");
      }
    }
    result.plans.push_back(plan);
  }
  return result;
}

SpbPhasePlanFile ReadSpbPhasePlans(const std::string& path) {
  return ParseSpbPhasePlans(path, ReadWholeFile(path));
}

void ValidateSpbPhasePlan(const SpbPhasePlan& plan) {
  // Round trip through the reader: one set of rules.
  try {
    ParseSpbPhasePlans("phase plan", FormatSpbPhasePlans({plan}));
  } catch (const InputError& e) {
    throw std::invalid_argument(e.message());
  }
}

std::string FormatSpbPhasePlans(const std::vector<SpbPhasePlan>& plans) {
  std::string out = std::string(kPhasePlanFormatLine) + "\n" + kPhasePlanHeader + "\n";
  for (const SpbPhasePlan& plan : plans) {
    std::string source = plan.source;
    std::replace(source.begin(), source.end(), ',', ';');
    std::replace(source.begin(), source.end(), '\n', ' ');
    for (const SpbPhase& p : plan.phases) {
      out += plan.model + "," + std::to_string(plan.workers) + "," +
             std::to_string(plan.batch_per_worker) + "," + plan.plan + "," + p.name + "," +
             FormatNumber(p.fraction) + "," + std::to_string(p.frozen_blocks) + "," +
             std::to_string(p.blocks) + "," + FormatNumber(p.iteration_time) + "," +
             FormatList(p.worker_compute) + "," + FormatList(p.worker_activation) + "," +
             FormatNumber(p.bytes) + "," + FormatNumber(p.efficiency) + "," +
             FormatNumber(p.efficiency_low) + "," + FormatNumber(p.efficiency_high) + "," + source +
             "\n";
    }
  }
  return out;
}

const SpbPhasePlan* FindSpbPhasePlan(const SpbPhasePlanFile& file, const std::string& model,
                                     const std::string& plan, int workers) {
  const std::string wanted = NormalizedModelName(model);
  const SpbPhasePlan* best = nullptr;
  for (const SpbPhasePlan& p : file.plans) {
    if (NormalizedModelName(p.model) != wanted || p.plan != plan) continue;
    const int distance = std::abs(p.workers - workers);
    const int best_distance = best == nullptr ? 0 : std::abs(best->workers - workers);
    if (best == nullptr || distance < best_distance ||
        (distance == best_distance && p.workers < best->workers)) {
      best = &p;
    }
  }
  return best;
}

}  // namespace jigsaw
