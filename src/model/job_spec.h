// JobSpec: one training job as a trace describes it, independent of the trace's format.
//
// Every reader produces JobSpecs; the simulator never sees a format. A job either has a known
// job type ("ResNet-18 (batch size 32)", whose speed comes from a throughput table) and counts
// its work in iterations, or is type-less (Philly-style traces that only give a duration) and
// counts work in seconds of exclusive execution on its scale_factor GPUs (throughput 1 step/s).
#ifndef JIGSAW_MODEL_JOB_SPEC_H_
#define JIGSAW_MODEL_JOB_SPEC_H_

#include <string>
#include <vector>

namespace jigsaw {

// How a job changes its batch size over epochs (Shockwave's dynamic adaptation modes).
enum class AdaptationMode { kStatic, kAccordion, kGns };

const char* AdaptationModeName(AdaptationMode mode);

struct JobSpec {
  int id = 0;              // 0-based, in trace order
  std::string job_type;    // "<model> (batch size <b>)"; empty for type-less jobs
  std::string model;       // "ResNet-18"; empty for type-less jobs
  int batch_size = 0;      // initial batch size; 0 when unknown
  int scale_factor = 1;    // GPUs, gang-scheduled
  double total_steps = 0;  // iterations (typed) or seconds of exclusive work (type-less)
  double arrival_s = 0;
  double duration_s = -1;  // nominal isolated duration from the trace; -1 if not given
  double priority_weight = 1;
  double slo = -1;
  AdaptationMode mode = AdaptationMode::kStatic;
  std::string source;  // "file:line" the job was read from

  bool typed() const { return !job_type.empty(); }
};

struct Trace {
  std::string name;
  std::vector<JobSpec> jobs;  // sorted by arrival (stable: ties keep file order)
};

// Splits "ResNet-18 (batch size 32)" into model and batch size; false if not of that form.
bool ParseJobType(const std::string& job_type, std::string* model, int* batch_size);
std::string MakeJobType(const std::string& model, int batch_size);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_JOB_SPEC_H_
