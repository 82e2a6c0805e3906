#include "net/workload.h"

#include <deque>
#include <memory>

#include "core/error.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw::net {
namespace {

const char* const kParallelisms[] = {"DATA",
                                     "MICRO",
                                     "MODEL",
                                     "HYBRID_DATA_MODEL",
                                     "HYBRID_MODEL_DATA",
                                     "HYBRID_DLRM",
                                     "HYBRID_TRANSFORMER",
                                     "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
                                     "HYBRID_CUSTOMIZED"};

uint64_t ParseCount(const TextFile& file, std::string_view field, const std::string& what,
                    uint64_t max) {
  return static_cast<uint64_t>(file.ParseIntInRange(field, what, 0, static_cast<long long>(max)));
}

uint64_t ParseCycles(const TextFile& file, std::string_view field, const std::string& what) {
  return ParseCount(file, field, what, kMaxComputeCycles);
}

CommSpec ParseComm(const TextFile& file, std::string_view type, std::string_view size,
                   const std::string& what) {
  CommSpec comm;
  uint64_t bytes = ParseCount(file, size, what + " size", kMaxCollectiveBytes);
  if (type == "NONE") return comm;
  if (!ParseCollectiveType(type, &comm.type) || type.front() == 'a') {
    file.Fail(what +
              " type: expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, got '" +
              Excerpt(type) + "'");
  }
  comm.present = bytes > 0;
  comm.bytes = bytes;
  return comm;
}

Workload Parse(TextFile& file) {
  Workload workload;
  workload.name = file.name();
  std::string_view line;
  if (!file.NextLine(&line) || SplitOnBlanks(line).empty()) {
    file.Fail("expected the parallelism (DATA, MICRO, MODEL, HYBRID_...) on line 1");
  }
  std::string_view kind = SplitOnBlanks(line)[0];
  bool known = false;
  for (const char* p : kParallelisms) known = known || kind == p;
  if (!known) file.Fail("unknown parallelism '" + Excerpt(kind) + "'");
  workload.parallelism = std::string(kind);
  if (!file.NextLine(&line) || SplitOnBlanks(line).size() != 1) {
    file.Fail("expected the number of layers alone on line 2");
  }
  long long count = file.ParseInt(SplitOnBlanks(line)[0], "layer count");
  if (count < 1 || count > 100000) file.Fail("expected 1..100000 layers");
  while (static_cast<long long>(workload.layers.size()) < count) {
    if (!file.NextLine(&line)) {
      throw InputError(file.name(), file.line_number(),
                       "expected " + std::to_string(count) + " layer lines, found " +
                           std::to_string(workload.layers.size()));
    }
    auto f = SplitOnBlanks(line);
    if (f.empty()) continue;
    if (f.size() < 12) {
      file.Fail(
          "expected 12 fields: name reserved fwd_cycles fwd_type fwd_bytes ig_cycles ig_type "
          "ig_bytes wg_cycles wg_type wg_bytes update_cycles; found " +
          std::to_string(f.size()));
    }
    Layer layer;
    layer.name = std::string(f[0]);
    layer.forward_cycles = ParseCycles(file, f[2], "column 3 (forward compute)");
    layer.forward_comm = ParseComm(file, f[3], f[4], "columns 4-5 (forward communication)");
    layer.input_grad_cycles = ParseCycles(file, f[5], "column 6 (input-gradient compute)");
    layer.input_grad_comm =
        ParseComm(file, f[6], f[7], "columns 7-8 (input-gradient communication)");
    layer.weight_grad_cycles = ParseCycles(file, f[8], "column 9 (weight-gradient compute)");
    layer.weight_grad_comm =
        ParseComm(file, f[9], f[10], "columns 10-11 (weight-gradient communication)");
    layer.update_cycles = ParseCycles(file, f[11], "column 12 (update delay)");
    workload.layers.push_back(std::move(layer));
  }
  while (file.NextLine(&line)) {
    if (SplitOnBlanks(line).empty()) continue;
    file.Fail("more layer lines than the " + std::to_string(count) + " announced on line 2");
  }
  return workload;
}

// One job's program: a flat list of steps per iteration, executed in order.
enum class StepKind : uint8_t { kWaitLayer, kCompute, kBlockingComm, kAsyncComm };
struct Step {
  StepKind kind;
  uint32_t layer;
  uint64_t cycles;
  const CommSpec* comm;
  const char* pass;
};

class JobDriver;

// Owns the collective engine and routes its callbacks to the jobs.
class Driver : public CollectiveClient {
 public:
  Driver(Network* network, const std::vector<JobSpec>& jobs);
  void OnCollectiveDone(uint32_t collective) override;
  void OnTimer(uint32_t token) override;
  std::vector<JobResult> Results() const;
  bool AllDone() const;

  Network* network;
  CollectiveEngine engine;
  std::vector<std::unique_ptr<JobDriver>> jobs;
  std::vector<std::pair<uint32_t, uint32_t>> collective_owner;  // (job, record index)
};

class JobDriver {
 public:
  JobDriver(Driver* driver, uint32_t index, const JobSpec& spec)
      : driver_(driver), index_(index), spec_(spec) {
    result_.workload = spec.workload.name;
    result_.hosts = static_cast<uint32_t>(spec.hosts.size());
    const auto& layers = spec_.workload.layers;
    for (uint32_t i = 0; i < layers.size(); ++i) {
      program_.push_back({StepKind::kWaitLayer, i, 0, nullptr, ""});
      program_.push_back({StepKind::kCompute, i, layers[i].forward_cycles, nullptr, ""});
      program_.push_back({StepKind::kBlockingComm, i, 0, &layers[i].forward_comm, "fwd"});
    }
    for (uint32_t i = static_cast<uint32_t>(layers.size()); i-- > 0;) {
      program_.push_back({StepKind::kCompute, i, layers[i].input_grad_cycles, nullptr, ""});
      program_.push_back({StepKind::kBlockingComm, i, 0, &layers[i].input_grad_comm, "ig"});
      program_.push_back({StepKind::kCompute, i, layers[i].weight_grad_cycles, nullptr, ""});
      program_.push_back({StepKind::kAsyncComm, i, 0, &layers[i].weight_grad_comm, "wg"});
    }
    layer_pending_.assign(layers.size(), 0);
  }

  void Resume() {
    Network* network = driver_->network;
    while (true) {
      if (pc_ == program_.size()) {
        ++iteration_;
        pc_ = 0;
        if (iteration_ == spec_.iterations) {
          finishing_ = true;
          MaybeFinish();
          return;
        }
      }
      const Step& step = program_[pc_];
      if (pc_ == 1) iteration_starts_.push_back(network->now());
      switch (step.kind) {
        case StepKind::kWaitLayer:
          if (layer_pending_[step.layer] > 0) {
            waiting_layer_ = static_cast<int>(step.layer);
            return;
          }
          ++pc_;
          break;
        case StepKind::kCompute:
          ++pc_;
          if (step.cycles > 0) {
            const Time duration =
                SaturatingTime(static_cast<double>(step.cycles) * spec_.cycle_ns * kNanosecond);
            network->AddTimer(network->now() + duration, index_ << 20);
            return;
          }
          break;
        case StepKind::kBlockingComm:
          ++pc_;
          if (step.comm->present) {
            blocking_record_ = Issue(step);
            return;
          }
          break;
        case StepKind::kAsyncComm:
          ++pc_;
          if (step.comm->present) {
            ++layer_pending_[step.layer];
            Issue(step);
          }
          break;
      }
    }
  }

  void OnComputeDone() { Resume(); }

  void OnLayerReady(uint32_t layer) {
    --layer_pending_[layer];
    if (waiting_layer_ == static_cast<int>(layer) && layer_pending_[layer] == 0) {
      waiting_layer_ = -1;
      Resume();
    }
    MaybeFinish();
  }

  void OnCollectiveDone(uint32_t record) {
    Network* network = driver_->network;
    CollectiveRecord& r = result_.collectives[record];
    r.finished = network->now();
    --active_;
    StartQueued();
    if (static_cast<int>(record) == blocking_record_) {
      blocking_record_ = -1;
      Resume();
    } else {
      uint32_t layer = record_layer_[record];
      const Layer& l = spec_.workload.layers[layer];
      const Time delay =
          SaturatingTime(static_cast<double>(l.update_cycles) * spec_.cycle_ns * kNanosecond);
      network->AddTimer(network->now() + delay, (index_ << 20) | (layer + 1));
    }
  }

  bool done() const { return result_.finished >= 0; }
  JobResult result() const {
    JobResult r = result_;
    for (size_t i = 0; i < iteration_starts_.size(); ++i) {
      Time next = i + 1 < iteration_starts_.size() ? iteration_starts_[i + 1] : result_.finished;
      if (next >= 0) r.iteration_times.push_back(next - iteration_starts_[i]);
    }
    return r;
  }

 private:
  int Issue(const Step& step) {
    const int record = static_cast<int>(result_.collectives.size());
    result_.collectives.push_back({iteration_, spec_.workload.layers[step.layer].name, step.pass,
                                   step.comm->type, step.comm->bytes, driver_->network->now(), -1,
                                   -1});
    record_layer_.push_back(step.layer);
    queue_.push_back(static_cast<uint32_t>(record));
    StartQueued();
    return record;
  }

  void StartQueued() {
    while (!queue_.empty() && active_ < spec_.max_active) {
      uint32_t record = queue_.front();
      queue_.pop_front();
      CollectiveRecord& r = result_.collectives[record];
      CollectiveSpec spec;
      spec.type = r.type;
      spec.bytes = r.bytes;
      spec.hosts = spec_.hosts;
      spec.dims = spec_.dims;
      spec.chunks = spec_.chunks;
      r.started = driver_->network->now();
      ++active_;
      uint32_t id = driver_->engine.Start(spec, driver_);
      if (driver_->collective_owner.size() <= id) driver_->collective_owner.resize(id + 1);
      driver_->collective_owner[id] = {index_, record};
    }
  }

  void MaybeFinish() {
    if (!finishing_ || result_.finished >= 0) return;
    for (int pending : layer_pending_) {
      if (pending > 0) return;
    }
    result_.finished = driver_->network->now();
  }

  Driver* driver_;
  uint32_t index_;
  const JobSpec& spec_;
  std::vector<Step> program_;
  size_t pc_ = 0;
  int iteration_ = 0;
  bool finishing_ = false;
  int waiting_layer_ = -1;
  int blocking_record_ = -1;
  std::vector<int> layer_pending_;
  std::vector<uint32_t> record_layer_;
  std::deque<uint32_t> queue_;
  int active_ = 0;
  std::vector<Time> iteration_starts_;
  JobResult result_;
};

Driver::Driver(Network* net, const std::vector<JobSpec>& specs) : network(net), engine(net) {
  engine.set_timer_client(this);
  for (uint32_t j = 0; j < specs.size(); ++j) {
    jobs.push_back(std::make_unique<JobDriver>(this, j, specs[j]));
  }
}

void Driver::OnCollectiveDone(uint32_t collective) {
  auto [job, record] = collective_owner[collective];
  jobs[job]->OnCollectiveDone(record);
}

void Driver::OnTimer(uint32_t token) {
  uint32_t job = token >> 20;
  uint32_t layer = token & 0xfffff;
  if (layer == 0) {
    jobs[job]->OnComputeDone();
  } else {
    jobs[job]->OnLayerReady(layer - 1);
  }
}

std::vector<JobResult> Driver::Results() const {
  std::vector<JobResult> results;
  for (const auto& job : jobs) results.push_back(job->result());
  return results;
}

}  // namespace

Workload ReadAstraWorkload(const std::string& path) {
  TextFile file(path);
  return Parse(file);
}

Workload ParseAstraWorkload(const std::string& name, const std::string& text) {
  TextFile file(name, text);
  return Parse(file);
}

std::vector<JobResult> RunJobs(Network* network, const std::vector<JobSpec>& jobs, Time stop) {
  for (const JobSpec& job : jobs) {
    if (job.workload.layers.empty())
      throw UsageError("workload '" + job.workload.name + "' has no layers");
    if (job.hosts.size() < 2) throw UsageError("a job needs at least 2 hosts");
    RequireCountInRange("--iterations", job.iterations, 1, kMaxNetIterations);
    RequireCountInRange("--max-active", job.max_active, 1, kMaxActiveCollectives);
    RequireCountInRange("--chunks", job.chunks, 1, kMaxChunks);
    RequireOptionInRange("--cycle-ns", job.cycle_ns, 0, kMaxCycleNs);
    if (jobs.size() >= 4096 || job.workload.layers.size() >= (1u << 20) - 1) {
      throw UsageError("too many jobs or layers");
    }
  }
  Driver driver(network, jobs);
  for (auto& job : driver.jobs) job->Resume();
  network->Run(stop);
  return driver.Results();
}

}  // namespace jigsaw::net
