#include "net/ps_jobs.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace jigsaw::net {
namespace {

constexpr uint32_t kNoClass = 0;

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser: independent streams per worker
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class PsDriver : public NetObserver {
 public:
  PsDriver(Network* network, const PsJobsSpec& spec, std::vector<PsJobResult> jobs)
      : network_(network), spec_(spec) {
    result_.jobs = std::move(jobs);
    const size_t workers = static_cast<size_t>(spec.workers);
    for (uint32_t j = 0; j < result_.jobs.size(); ++j) {
      PsJobResult& job = result_.jobs[j];
      job.receipts.assign(static_cast<size_t>(spec.iterations) + 1, std::vector<Time>(workers, -1));
      for (size_t w = 0; w < workers; ++w) {
        worker_rng_.emplace_back(Mix(spec.seed ^ Mix((uint64_t{j} << 32) | w)));
      }
    }
    pushes_.assign(result_.jobs.size(), 0);
    held_.assign(result_.jobs.size() * workers, 0);
    job_class_.assign(result_.jobs.size(), kNoClass);
    SetUpHosts();
  }

  void Start() {
    network_->set_observer(this);
    ApplyBands(0, 0, /*initial=*/true);
    for (uint32_t j = 0; j < result_.jobs.size(); ++j) SendModel(j, 0);
  }

  bool AllDone() const { return done_jobs_ == result_.jobs.size(); }
  int rotation() const { return rotation_; }

  // Moves every PS host to `rotation` (its jobs' classes change band from the next packet on).
  void ApplyBands(int rotation, Time at, bool initial = false) {
    rotation_ = rotation;
    for (size_t h = 0; h < result_.ps_hosts.size(); ++h) {
      if (schedulers_[h] == nullptr) continue;
      const tlights::BandSchedule& schedule = schedules_[h];
      if (!initial && schedule.ChangedJobs(rotation).empty()) continue;
      const std::vector<int> bands = schedule.Bands(rotation);
      for (size_t i = 0; i < bands.size(); ++i) {
        schedulers_[h]->SetBand(static_cast<uint16_t>(1 + i), static_cast<uint8_t>(bands[i]));
      }
      result_.schedule.push_back({at, result_.ps_hosts[h].host, rotation, bands});
    }
  }

  void OnFlowDelivered(uint32_t flow, uint64_t tag) override {
    if (tag == 0 || tag > messages_.size()) return;
    const Message m = messages_[tag - 1];
    const uint64_t bytes = network_->flow(flow).bytes;
    if (m.push) {
      result_.pushed_bytes += bytes;
      if (++pushes_[m.job] == spec_.workers) {
        pushes_[m.job] = 0;
        SendModel(m.job, m.version + 1);
      }
      return;
    }
    result_.pulled_bytes += bytes;
    PsJobResult& job = result_.jobs[m.job];
    job.receipts[m.version][m.worker] = network_->now();
    if (m.version == spec_.iterations) {
      if (++finished_workers_[m.job] == spec_.workers) {
        job.finished = network_->now();
        ++done_jobs_;
      }
      return;
    }
    const uint32_t token = m.job * static_cast<uint32_t>(spec_.workers) + m.worker;
    held_[token] = m.version;
    network_->AddTimer(network_->now() + DrawCompute(m.job, m.worker), token);
  }

  void OnTimer(uint32_t token) override {
    const uint32_t job = token / static_cast<uint32_t>(spec_.workers);
    const uint32_t worker = token % static_cast<uint32_t>(spec_.workers);
    const PsJobResult& j = result_.jobs[job];
    const int version = held_[token];  // the gradient is of the version the worker holds
    const uint32_t id = Send(j.worker_hosts[worker], j.ps_host, {job, worker, version, true});
    if (spec_.downlink && job_class_[job] != kNoClass) {
      const size_t h = host_index_[job];
      network_->mutable_flow(id).priority =
          static_cast<uint8_t>(1 + schedulers_[h]->band(static_cast<uint16_t>(job_class_[job])));
    }
  }

  PsJobsResult Finish() {
    for (PsHostResult& host : result_.ps_hosts) {
      host.tx_bytes = network_->HostTxBytes(host.host);
      host.rx_bytes = network_->HostRxBytes(host.host);
    }
    if (AllDone()) {
      result_.makespan = 0;
      for (const PsJobResult& job : result_.jobs) {
        result_.makespan = std::max(result_.makespan, job.finished);
      }
    }
    return std::move(result_);
  }

 private:
  struct Message {
    uint32_t job;
    uint32_t worker;
    int version;
    bool push;
  };

  void SetUpHosts() {
    finished_workers_.assign(result_.jobs.size(), 0);
    host_index_.assign(result_.jobs.size(), 0);
    std::vector<int> index_of_host(network_->num_hosts(), -1);
    for (uint32_t j = 0; j < result_.jobs.size(); ++j) {
      const uint32_t host = result_.jobs[j].ps_host;
      if (index_of_host[host] < 0) {
        index_of_host[host] = static_cast<int>(result_.ps_hosts.size());
        PsHostResult h;
        h.host = host;
        h.rate_bps = network_->host_rate_bps(host);
        result_.ps_hosts.push_back(h);
      }
      host_index_[j] = static_cast<size_t>(index_of_host[host]);
      result_.ps_hosts[host_index_[j]].jobs.push_back(static_cast<int>(j));
    }
    for (PsHostResult& host : result_.ps_hosts) {
      const int local_jobs = static_cast<int>(host.jobs.size());
      schedules_.emplace_back(spec_.policy, local_jobs, spec_.rotate_interval_s);
      NicScheduler* scheduler = nullptr;
      if (schedules_.back().prioritized()) {
        scheduler = network_->InstallNicScheduler(host.host, static_cast<uint16_t>(1 + local_jobs),
                                                  static_cast<uint8_t>(tlights::kDefaultBand));
        for (int i = 0; i < local_jobs; ++i) {
          job_class_[static_cast<size_t>(host.jobs[static_cast<size_t>(i)])] =
              static_cast<uint32_t>(1 + i);
        }
      }
      schedulers_.push_back(scheduler);
    }
  }

  Time DrawCompute(uint32_t job, uint32_t worker) {
    Rng& rng = worker_rng_[static_cast<size_t>(job) * static_cast<size_t>(spec_.workers) + worker];
    if (!spec_.samples.empty()) return spec_.samples[rng.UniformInt(spec_.samples.size())];
    if (spec_.jitter <= 0) return spec_.compute;
    return SaturatingTime(static_cast<double>(spec_.compute) *
                          (1 + spec_.jitter * rng.Uniform(-1, 1)));
  }

  uint32_t Send(uint32_t src, uint32_t dst, const Message& message) {
    messages_.push_back(message);
    return network_->AddFlow(src, dst, spec_.model_bytes, network_->now(), messages_.size());
  }

  void SendModel(uint32_t job, int version) {
    const PsJobResult& j = result_.jobs[job];
    for (uint32_t w = 0; w < j.worker_hosts.size(); ++w) {
      const uint32_t id = Send(j.ps_host, j.worker_hosts[w], {job, w, version, false});
      network_->mutable_flow(id).nic_class = static_cast<uint16_t>(job_class_[job]);
    }
  }

  Network* network_;
  const PsJobsSpec& spec_;
  PsJobsResult result_;
  std::vector<Message> messages_;
  std::vector<Rng> worker_rng_;
  std::vector<int> pushes_;
  std::vector<int> held_;  // per job x worker: the version it holds
  std::vector<int> finished_workers_;
  std::vector<uint32_t> job_class_;  // the job's class at its PS host's NIC (0: none)
  std::vector<size_t> host_index_;   // the job's PS host in result_.ps_hosts
  std::vector<tlights::BandSchedule> schedules_;
  std::vector<NicScheduler*> schedulers_;  // null: fifo
  size_t done_jobs_ = 0;
  int rotation_ = 0;
};

Time SecondsToTime(double seconds) {
  return SaturatingTime(seconds * static_cast<double>(kSecond));
}

}  // namespace

std::vector<PsJobResult> PlacePsJobs(const PsJobsSpec& spec, uint32_t hosts) {
  if (static_cast<uint32_t>(spec.ps_hosts) > hosts) {
    throw UsageError("--ps-hosts " + std::to_string(spec.ps_hosts) + ": the topology has " +
                     std::to_string(hosts) + " hosts");
  }
  if (static_cast<uint32_t>(spec.workers) + 1 > hosts) {
    throw UsageError("--ps-workers " + std::to_string(spec.workers) +
                     ": each worker of a job needs its own host besides the PS host, and the "
                     "topology has " +
                     std::to_string(hosts) + " hosts");
  }
  std::vector<PsJobResult> jobs(static_cast<size_t>(spec.jobs));
  Rng rng(Mix(spec.seed ^ 0x7073706c6163ULL));
  for (uint32_t j = 0; j < jobs.size(); ++j) {
    PsJobResult& job = jobs[j];
    job.ps_host = j % static_cast<uint32_t>(spec.ps_hosts);
    std::vector<uint32_t> others;
    for (uint32_t k = 1; k < hosts; ++k) others.push_back((job.ps_host + k) % hosts);
    if (spec.placement == PsPlacement::kRandom) {
      for (size_t i = others.size() - 1; i > 0; --i) {
        std::swap(others[i], others[rng.UniformInt(i + 1)]);
      }
    }
    job.worker_hosts.assign(others.begin(), others.begin() + spec.workers);
  }
  return jobs;
}

PsJobsResult RunPsJobs(Network* network, const PsJobsSpec& spec, Time stop) {
  PsDriver driver(network, spec, PlacePsJobs(spec, network->num_hosts()));
  driver.Start();
  const bool rotates = spec.policy == tlights::Policy::kRotate;
  const tlights::BandSchedule schedule(spec.policy, 0, spec.rotate_interval_s);
  while (true) {
    const int next = driver.rotation() + 1;
    const Time at = rotates ? SecondsToTime(schedule.RotationStart(next)) : kNever;
    network->Run(std::min(at, stop));
    if (driver.AllDone() || !network->HasPendingEvents() || at > stop || at >= kMaxTime) break;
    driver.ApplyBands(next, at);
  }
  return driver.Finish();
}

}  // namespace jigsaw::net
