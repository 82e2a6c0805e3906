#include "net/chakra_workload.h"

#include <deque>
#include <memory>
#include <set>
#include <tuple>

#include "core/error.h"
#include "net/collective.h"

namespace jigsaw::net {
namespace {

constexpr uint64_t kSendTag = uint64_t{1} << 62;  // above every collective message's tag

enum class Resource : uint8_t { kNone, kGpu, kCpu, kComm };

Resource ResourceOf(const ChakraNode& node) {
  if (node.type == ChakraNodeType::kComp) return node.is_cpu_op ? Resource::kCpu : Resource::kGpu;
  if (node.type == ChakraNodeType::kCommRecv) return Resource::kNone;
  return Resource::kComm;
}

bool ToCollectiveType(uint64_t comm_type, CollectiveType* type) {
  switch (static_cast<ChakraCollective>(comm_type)) {
    case ChakraCollective::kAllReduce:
      *type = CollectiveType::kAllReduce;
      return true;
    case ChakraCollective::kAllGather:
      *type = CollectiveType::kAllGather;
      return true;
    case ChakraCollective::kReduceScatter:
      *type = CollectiveType::kReduceScatter;
      return true;
    case ChakraCollective::kAllToAll:
      *type = CollectiveType::kAllToAll;
      return true;
    default:
      return false;
  }
}

struct NodeRef {
  uint32_t job;
  uint32_t rank;
  uint32_t node;
};

class Driver;

// One job's ranks: dependency counts, ready sets, resources, collectives and messages.
class JobRunner {
 public:
  JobRunner(Driver* driver, uint32_t index, const ChakraJobSpec& spec);

  void StartIteration();
  // Issues what the rank's free resources allow.
  void Pump(uint32_t rank);
  void Finish(uint32_t rank, uint32_t node);
  void OnCollectiveDone(size_t k);
  void OnSendDelivered(uint32_t record, uint32_t src, uint32_t node);
  bool done() const { return result_.finished >= 0; }
  const ChakraJobResult& result() const { return result_; }
  void Count(ChakraJobResult* out) const;

 private:
  struct RankState {
    std::vector<uint32_t> waiting;
    std::set<std::pair<uint64_t, uint32_t>> ready;  // (node id, node index)
    bool busy[4] = {false, false, false, false};
  };
  struct Collective {
    uint32_t arrived = 0;
    int record = -1;
  };
  using Key = std::tuple<uint32_t, uint32_t, uint64_t>;  // src, dst, tag

  void Issue(uint32_t rank, uint32_t node);
  void IssueCollective(uint32_t rank, uint32_t node);
  void IssueSend(uint32_t rank, uint32_t node);
  void IssueReceive(uint32_t rank, uint32_t node);
  void Delay(uint32_t rank, uint32_t node, Time duration);
  const ChakraNode& Node(uint32_t rank, uint32_t node) const {
    return spec_.job->ranks[rank].nodes[node];
  }

  Driver* driver_;
  uint32_t index_;
  const ChakraJobSpec& spec_;
  std::vector<RankState> ranks_;
  std::vector<std::vector<std::vector<uint32_t>>> dependents_;  // [rank][node]
  std::vector<std::vector<int>> collective_of_;                 // [rank][node] -> k or -1
  std::vector<Collective> collectives_;
  std::map<Key, uint64_t> arrived_;              // delivered, not yet received
  std::map<Key, std::deque<uint32_t>> pending_;  // posted receives (node indices)
  uint64_t done_nodes_ = 0;
  int iteration_ = 0;
  Time iteration_start_ = 0;
  ChakraJobResult result_;
};

class Driver : public NetObserver, public CollectiveClient {
 public:
  Driver(Network* network, const std::vector<ChakraJobSpec>& specs)
      : network_(network), engine_(network) {
    network_->set_observer(this);
    for (uint32_t j = 0; j < specs.size(); ++j) {
      jobs_.push_back(std::make_unique<JobRunner>(this, j, specs[j]));
    }
  }

  void Start() {
    for (auto& job : jobs_) job->StartIteration();
    Drain();
  }
  bool AllDone() const {
    for (const auto& job : jobs_) {
      if (!job->done()) return false;
    }
    return true;
  }
  const std::vector<std::unique_ptr<JobRunner>>& jobs() const { return jobs_; }

  Network* network() { return network_; }
  CollectiveEngine& engine() { return engine_; }
  void QueueFinish(uint32_t job, uint32_t rank, uint32_t node) {
    finish_.push_back({job, rank, node});
  }
  void AddDelay(Time at, const NodeRef& ref) {
    uint32_t token;
    if (!free_timers_.empty()) {
      token = free_timers_.back();
      free_timers_.pop_back();
      timers_[token] = ref;
    } else {
      token = static_cast<uint32_t>(timers_.size());
      timers_.push_back(ref);
    }
    network_->AddTimer(at, token);
  }
  uint64_t AddSend(uint32_t job, uint32_t record, uint32_t src, uint32_t node) {
    sends_.push_back({job, record, src, node});
    return kSendTag | (sends_.size() - 1);
  }
  void SetOwner(uint32_t collective, uint32_t job, size_t k) {
    if (owners_.size() <= collective) owners_.resize(collective + 1);
    owners_[collective] = {job, k};
  }
  // Finishes queued nodes and issues what they free, until nothing is left to do now.
  void Drain() {
    if (draining_) return;
    draining_ = true;
    while (!finish_.empty()) {
      const NodeRef ref = finish_.front();
      finish_.pop_front();
      jobs_[ref.job]->Finish(ref.rank, ref.node);
    }
    draining_ = false;
  }

  void OnFlowDelivered(uint32_t flow, uint64_t tag) override {
    if ((tag & kSendTag) == 0) {
      engine_.OnFlowDelivered(flow, tag);
    } else {
      const Send& send = sends_[tag & ~kSendTag];
      jobs_[send.job]->OnSendDelivered(send.record, send.src, send.node);
    }
    Drain();
  }
  void OnTimer(uint32_t token) override {
    const NodeRef ref = timers_[token];
    free_timers_.push_back(token);
    QueueFinish(ref.job, ref.rank, ref.node);
    Drain();
  }
  void OnCollectiveDone(uint32_t collective) override {
    const auto [job, k] = owners_[collective];
    jobs_[job]->OnCollectiveDone(k);
    Drain();
  }

 private:
  struct Send {
    uint32_t job;
    uint32_t record;
    uint32_t src;
    uint32_t node;
  };
  Network* network_;
  CollectiveEngine engine_;
  std::vector<std::unique_ptr<JobRunner>> jobs_;
  std::vector<NodeRef> timers_;
  std::vector<uint32_t> free_timers_;
  std::vector<Send> sends_;
  std::vector<std::pair<uint32_t, size_t>> owners_;  // engine collective -> (job, k)
  std::deque<NodeRef> finish_;
  bool draining_ = false;
};

JobRunner::JobRunner(Driver* driver, uint32_t index, const ChakraJobSpec& spec)
    : driver_(driver), index_(index), spec_(spec) {
  const ChakraJob& job = *spec.job;
  result_.prefix = job.prefix;
  result_.ranks = static_cast<uint32_t>(job.ranks.size());
  ranks_.resize(job.ranks.size());
  dependents_.resize(job.ranks.size());
  collective_of_.resize(job.ranks.size());
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    const ChakraTrace& trace = job.ranks[r];
    std::map<uint64_t, uint32_t> by_id;
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) by_id[trace.nodes[i].id] = i;
    dependents_[r].resize(trace.nodes.size());
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
      for (const auto* deps : {&trace.nodes[i].ctrl_deps, &trace.nodes[i].data_deps}) {
        for (uint64_t dep : *deps) dependents_[r][by_id.at(dep)].push_back(i);
      }
      ++result_.nodes_by_type[ChakraNodeTypeName(trace.nodes[i].type)];
    }
    collective_of_[r].assign(trace.nodes.size(), -1);
    for (size_t k = 0; k < job.collectives[r].size(); ++k) {
      collective_of_[r][job.collectives[r][k]] = static_cast<int>(k);
    }
    result_.nodes += trace.nodes.size();
    for (const auto& [name, count] : trace.ignored) result_.ignored[name] += count;
  }
}

void JobRunner::StartIteration() {
  iteration_start_ = driver_->network()->now();
  done_nodes_ = 0;
  collectives_.assign(spec_.job->collectives[0].size(), Collective());
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    RankState& rank = ranks_[r];
    const ChakraTrace& trace = spec_.job->ranks[r];
    rank.waiting.assign(trace.nodes.size(), 0);
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
      rank.waiting[i] =
          static_cast<uint32_t>(trace.nodes[i].ctrl_deps.size() + trace.nodes[i].data_deps.size());
      if (rank.waiting[i] == 0) rank.ready.insert({trace.nodes[i].id, i});
    }
  }
  for (uint32_t r = 0; r < ranks_.size(); ++r) Pump(r);
  if (result_.nodes == 0) {
    result_.iteration_times.push_back(0);
    result_.finished = driver_->network()->now();
  }
}

void JobRunner::Pump(uint32_t rank) {
  RankState& state = ranks_[rank];
  for (auto it = state.ready.begin(); it != state.ready.end();) {
    const uint32_t node = it->second;
    const Resource resource = ResourceOf(Node(rank, node));
    if (resource != Resource::kNone && state.busy[static_cast<int>(resource)]) {
      ++it;
      continue;
    }
    it = state.ready.erase(it);
    if (resource != Resource::kNone) state.busy[static_cast<int>(resource)] = true;
    Issue(rank, node);
  }
}

void JobRunner::Issue(uint32_t rank, uint32_t node) {
  const ChakraNode& n = Node(rank, node);
  switch (n.type) {
    case ChakraNodeType::kComp: {
      double us = static_cast<double>(n.duration_micros);
      if (us == 0 && n.num_ops.value_or(0) > 0) {
        us = static_cast<double>(*n.num_ops) / (spec_.npu_tflops * 1e12) * 1e6;
      }
      Delay(rank, node, SaturatingTime(us * static_cast<double>(kMicrosecond)));
      return;
    }
    case ChakraNodeType::kCommColl:
      IssueCollective(rank, node);
      return;
    case ChakraNodeType::kCommSend:
      IssueSend(rank, node);
      return;
    case ChakraNodeType::kCommRecv:
      IssueReceive(rank, node);
      return;
    default:
      ++result_.not_modelled[ChakraNodeTypeName(n.type)];
      Delay(rank, node, static_cast<Time>(n.duration_micros) * kMicrosecond);
  }
}

void JobRunner::Delay(uint32_t rank, uint32_t node, Time duration) {
  if (duration <= 0) {
    driver_->QueueFinish(index_, rank, node);
  } else {
    driver_->AddDelay(driver_->network()->now() + duration, {index_, rank, node});
  }
}

void JobRunner::IssueCollective(uint32_t rank, uint32_t node) {
  const ChakraNode& n = Node(rank, node);
  const size_t k = static_cast<size_t>(collective_of_[rank][node]);
  CollectiveType type = CollectiveType::kAllReduce;
  const bool barrier = *n.comm_type == static_cast<uint64_t>(ChakraCollective::kBarrier);
  if (!barrier && !ToCollectiveType(*n.comm_type, &type)) {
    ++result_.not_modelled[std::string(ChakraCollectiveName(*n.comm_type))];
    Delay(rank, node, static_cast<Time>(n.duration_micros) * kMicrosecond);
    return;
  }
  Collective& c = collectives_[k];
  const Time now = driver_->network()->now();
  if (c.arrived++ == 0) {
    const ChakraNode& first = spec_.job->ranks[0].nodes[spec_.job->collectives[0][k]];
    c.record = static_cast<int>(result_.comms.size());
    result_.comms.push_back({iteration_, first.id, first.name, ChakraCollectiveName(*n.comm_type),
                             -1, -1, n.comm_size.value_or(0), now, -1, -1});
  }
  if (c.arrived < ranks_.size()) return;
  result_.comms[static_cast<size_t>(c.record)].started = now;
  if (barrier || n.comm_size.value_or(0) == 0 || ranks_.size() < 2) {
    OnCollectiveDone(k);
    return;
  }
  CollectiveSpec spec;
  spec.type = type;
  spec.bytes = *n.comm_size;
  spec.hosts = spec_.hosts;
  spec.dims = spec_.dims;
  spec.chunks = spec_.chunks;
  const uint32_t id = driver_->engine().Start(spec, driver_);
  driver_->SetOwner(id, index_, k);
}

void JobRunner::OnCollectiveDone(size_t k) {
  result_.comms[static_cast<size_t>(collectives_[k].record)].finished = driver_->network()->now();
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    driver_->QueueFinish(index_, r, static_cast<uint32_t>(spec_.job->collectives[r][k]));
  }
}

void JobRunner::IssueSend(uint32_t rank, uint32_t node) {
  const ChakraNode& n = Node(rank, node);
  const uint32_t dst = static_cast<uint32_t>(*n.comm_dst);
  const Time now = driver_->network()->now();
  const uint32_t record = static_cast<uint32_t>(result_.comms.size());
  result_.comms.push_back({iteration_, n.id, n.name, "SEND", static_cast<int>(rank),
                           static_cast<int>(dst), *n.comm_size, now, now, -1});
  if (*n.comm_size == 0 || dst == rank) {
    OnSendDelivered(record, rank, node);
    return;
  }
  const uint64_t tag = driver_->AddSend(index_, record, rank, node);
  driver_->network()->AddFlow(spec_.hosts[rank], spec_.hosts[dst], *n.comm_size, now, tag);
}

void JobRunner::OnSendDelivered(uint32_t record, uint32_t src, uint32_t node) {
  ChakraCommRecord& r = result_.comms[record];
  r.finished = driver_->network()->now();
  driver_->QueueFinish(index_, src, node);
  const Key key{src, static_cast<uint32_t>(r.dst_rank), Node(src, node).comm_tag.value_or(0)};
  auto it = pending_.find(key);
  if (it != pending_.end() && !it->second.empty()) {
    driver_->QueueFinish(index_, static_cast<uint32_t>(r.dst_rank), it->second.front());
    it->second.pop_front();
  } else {
    ++arrived_[key];
  }
}

void JobRunner::IssueReceive(uint32_t rank, uint32_t node) {
  const ChakraNode& n = Node(rank, node);
  const Key key{static_cast<uint32_t>(*n.comm_src), rank, n.comm_tag.value_or(0)};
  auto it = arrived_.find(key);
  if (it != arrived_.end() && it->second > 0) {
    --it->second;
    driver_->QueueFinish(index_, rank, node);
  } else {
    pending_[key].push_back(node);
  }
}

void JobRunner::Finish(uint32_t rank, uint32_t node) {
  RankState& state = ranks_[rank];
  const Resource resource = ResourceOf(Node(rank, node));
  if (resource != Resource::kNone) state.busy[static_cast<int>(resource)] = false;
  for (uint32_t d : dependents_[rank][node]) {
    if (--state.waiting[d] == 0) state.ready.insert({Node(rank, d).id, d});
  }
  ++done_nodes_;
  ++result_.nodes_done;
  Pump(rank);
  if (done_nodes_ < result_.nodes) return;
  const Time now = driver_->network()->now();
  result_.iteration_times.push_back(now - iteration_start_);
  if (++iteration_ < spec_.iterations) {
    StartIteration();
  } else {
    result_.finished = now;
  }
}

// Runs in slices of progress.interval, appending one row per job after each.
void RunWithProgress(Network* network, const Driver& driver,
                     const std::vector<ChakraJobSpec>& specs, Time stop,
                     const ChakraProgress& progress) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(progress.path.c_str(), "w"),
                                                      &std::fclose);
  if (!out) throw UsageError("cannot write the progress file " + progress.path);
  std::fprintf(out.get(), "time_us,events,job,nodes_done,nodes_total,comms_done\n");
  for (Time until = progress.interval;; until += progress.interval) {
    network->Run(std::min(until, stop));
    const NetStats stats = network->Stats();
    for (uint32_t j = 0; j < driver.jobs().size(); ++j) {
      const ChakraJobResult& r = driver.jobs()[j]->result();
      uint64_t comms = 0;
      for (const ChakraCommRecord& c : r.comms) comms += c.finished >= 0;
      std::fprintf(
          out.get(), "%.3f,%llu,%u,%llu,%llu,%llu\n", ToMicroseconds(std::min(until, stop)),
          static_cast<unsigned long long>(stats.events), j,
          static_cast<unsigned long long>(r.nodes_done),
          static_cast<unsigned long long>(r.nodes * static_cast<uint64_t>(specs[j].iterations)),
          static_cast<unsigned long long>(comms));
    }
    std::fflush(out.get());
    if (driver.AllDone() || !network->HasPendingEvents() || until >= stop) break;
  }
}

}  // namespace

std::vector<ChakraJobResult> RunChakraJobs(Network* network, const std::vector<ChakraJobSpec>& jobs,
                                           Time stop, const ChakraProgress& progress) {
  for (const ChakraJobSpec& spec : jobs) {
    const size_t ranks = spec.job->ranks.size();
    if (spec.hosts.size() < ranks) {
      throw UsageError("--chakra " + spec.job->prefix + ": " + std::to_string(ranks) +
                       " ranks, but the placement gives the job " +
                       std::to_string(spec.hosts.size()) + " hosts");
    }
    uint64_t product = 1;
    for (int d : spec.dims) product *= static_cast<uint64_t>(d);
    if (!spec.dims.empty() && product != ranks) {
      throw UsageError("--dims: the dimensions' product (" + std::to_string(product) +
                       ") must equal the ranks of --chakra " + spec.job->prefix + " (" +
                       std::to_string(ranks) + ")");
    }
  }
  std::vector<ChakraJobSpec> specs = jobs;
  for (ChakraJobSpec& spec : specs) spec.hosts.resize(spec.job->ranks.size());
  Driver driver(network, specs);
  driver.Start();
  if (progress.interval <= 0 || progress.path.empty()) {
    network->Run(stop);
  } else {
    RunWithProgress(network, driver, specs, stop, progress);
  }
  std::vector<ChakraJobResult> results;
  for (const auto& job : driver.jobs()) results.push_back(job->result());
  return results;
}

}  // namespace jigsaw::net
