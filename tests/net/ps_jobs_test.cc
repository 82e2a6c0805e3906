// Parameter-server jobs on the packet simulator and the host-NIC priority classes under them:
// strict priority at the PS host's NIC in exact times, byte conservation, the band schedule
// (shared with the tc agent) applied at its rotation instants, and option validation.
#include "net/ps_jobs.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/error.h"
#include "net/nic_scheduler.h"
#include "net/topology.h"
#include "tlights/band_schedule.h"

namespace jigsaw::net {
namespace {

Topology Rack(int hosts, uint64_t rate_bps) {
  RackSpec spec;
  spec.hosts = hosts;
  spec.rate_bps = rate_bps;
  return MakeRack(spec);
}

std::vector<uint32_t> ServeOrder(NicScheduler* scheduler, int packets) {
  std::vector<uint32_t> order;
  for (int i = 0; i < packets; ++i) {
    scheduler->Serve([&](uint32_t flow) {
      order.push_back(flow);
      return true;
    });
  }
  return order;
}

TEST(NicScheduler, StrictPriorityBetweenBandsRoundRobinWithin) {
  NicScheduler scheduler(4, 7);
  scheduler.SetBand(1, 0);
  scheduler.SetBand(2, 0);
  scheduler.SetBand(3, 1);
  scheduler.Add(10, 0);  // default class, band 7
  scheduler.Add(30, 3);  // band 1
  scheduler.Add(11, 1);  // band 0, class 1: two flows
  scheduler.Add(12, 1);
  scheduler.Add(20, 2);  // band 0, class 2: one flow
  // Band 0's classes alternate, and class 1's flows alternate within it.
  EXPECT_EQ(ServeOrder(&scheduler, 6), (std::vector<uint32_t>{11, 20, 12, 20, 11, 20}));
  scheduler.Remove(11, 1);
  scheduler.Remove(12, 1);
  scheduler.Remove(20, 2);
  EXPECT_EQ(ServeOrder(&scheduler, 2), (std::vector<uint32_t>{30, 30}));
  // A band whose flows cannot send lends the link to the next band (work-conserving).
  std::vector<uint32_t> offered;
  scheduler.Serve([&](uint32_t flow) {
    offered.push_back(flow);
    return flow == 10;
  });
  EXPECT_EQ(offered, (std::vector<uint32_t>{30, 10}));
  // Moving a class moves its flows.
  scheduler.SetBand(0, 0);
  EXPECT_EQ(ServeOrder(&scheduler, 1), (std::vector<uint32_t>{10}));
  EXPECT_THROW(scheduler.SetBand(4, 0), std::out_of_range);
  EXPECT_THROW(scheduler.SetBand(0, 8), std::out_of_range);
}

TEST(NicScheduler, OldestFirstServesTheFirstAddedFlowThatMaySend) {
  NicScheduler scheduler(1, 0, /*oldest_first=*/true);
  scheduler.Add(5, 0);
  scheduler.Add(6, 0);
  scheduler.Add(7, 0);
  EXPECT_EQ(ServeOrder(&scheduler, 3), (std::vector<uint32_t>{5, 5, 5}));
  std::vector<uint32_t> offered;
  scheduler.Serve([&](uint32_t flow) {
    offered.push_back(flow);
    return flow == 7;  // 5 and 6 cannot send: the next oldest that can goes
  });
  EXPECT_EQ(offered, (std::vector<uint32_t>{5, 6, 7}));
  scheduler.Remove(5, 0);
  EXPECT_EQ(ServeOrder(&scheduler, 2), (std::vector<uint32_t>{6, 6}));
}

// Two equal messages leave host 0 at time 0 for hosts 1 and 2. Round-robin (the default) shares
// the NIC per packet, so both end together; fifo sends the first one's packets first, so it ends
// at about half the time and the second at the same end as under round-robin.
TEST(NicOrder, FifoFinishesTheOlderMessageFirst) {
  auto run = [](NicOrder order) {
    NetConfig config;
    config.nic_order = order;
    Network network(Rack(3, 10'000'000'000), config);
    const uint32_t a = network.AddFlow(0, 1, 500'000, 0, 1);
    const uint32_t b = network.AddFlow(0, 2, 500'000, 0, 2);
    network.Run(kNever);
    return std::pair<Time, Time>(network.flow(a).delivered, network.flow(b).delivered);
  };
  const auto [rr_a, rr_b] = run(NicOrder::kRoundRobin);
  const auto [fifo_a, fifo_b] = run(NicOrder::kFifo);
  ASSERT_GT(rr_a, 0);
  ASSERT_GT(fifo_a, 0);
  EXPECT_GT(rr_a * 10, rr_b * 9);
  EXPECT_LT(fifo_a * 10, fifo_b * 6);
  EXPECT_LT(fifo_a, rr_a);
  EXPECT_GT(fifo_b * 100, rr_b * 99);
  NicOrder parsed = NicOrder::kRoundRobin;
  EXPECT_TRUE(ParseNicOrder("fifo", &parsed));
  EXPECT_EQ(parsed, NicOrder::kFifo);
  EXPECT_STREQ(NicOrderName(parsed), "fifo");
  EXPECT_FALSE(ParseNicOrder("lifo", &parsed));
}

PsJobsSpec TwoJobsOneWorker(tlights::Policy policy) {
  PsJobsSpec spec;
  spec.jobs = 2;
  spec.workers = 1;
  spec.iterations = 1;
  spec.model_bytes = 10 * 1000;  // 10 packets of 1000 B
  spec.compute = 1 * kMillisecond;
  spec.policy = policy;
  return spec;
}

// Both PSes on host 0 send version 0 (10 packets of S = 1048 B) to their one worker each (both on
// host 1, the spread placement's first host) at time 0 over 10 Gbps links of 500 ns; without the
// window, a queue pair at line rate is ready whenever the NIC is, and the switch forwards at the
// rate the NIC sends. Static: job 0 (band 0) owns the NIC; its worker holds the model at
// 10 S/R + S/R + 2d (the last packet's NIC and switch serialisation plus two links), job 1's
// packets follow: 20 S/R + S/R + 2d. Fifo: job 0's first packet leaves alone (job 1 starts while
// it is on the wire), then the NIC alternates from job 0: job 0's tenth packet is the 18th,
// job 1's the 20th.
TEST(PsJobs, StaticPriorityFinishesTheTopJobFirstInExactTimes) {
  const Time s_over_r = 838'400;  // 1048 B x 8 / 10 Gbps
  const Time d = 500 * kNanosecond;
  NetConfig config;
  config.window = false;
  for (tlights::Policy policy : {tlights::Policy::kStatic, tlights::Policy::kFifo}) {
    Network network(Rack(3, 10'000'000'000), config);
    const PsJobsSpec spec = TwoJobsOneWorker(policy);
    const PsJobsResult result = RunPsJobs(&network, spec);
    ASSERT_EQ(result.jobs.size(), 2u);
    EXPECT_EQ(result.jobs[0].worker_hosts, (std::vector<uint32_t>{1}));
    EXPECT_EQ(result.jobs[1].worker_hosts, (std::vector<uint32_t>{1}));
    const Time job0 = result.jobs[0].receipts[0][0];
    const Time job1 = result.jobs[1].receipts[0][0];
    if (policy == tlights::Policy::kStatic) {
      EXPECT_EQ(job0, 11 * s_over_r + 2 * d);
      EXPECT_EQ(job1, 21 * s_over_r + 2 * d);
      EXPECT_LT(result.jobs[0].finished, result.jobs[1].finished);
      ASSERT_EQ(result.schedule.size(), 1u);
      EXPECT_EQ(result.schedule[0].bands, (std::vector<int>{0, 1}));
    } else {
      EXPECT_EQ(job0, 19 * s_over_r + 2 * d);
      EXPECT_EQ(job1, 21 * s_over_r + 2 * d);
      EXPECT_TRUE(result.schedule.empty());
    }
    EXPECT_GT(result.jobs[1].finished, 0);
  }
}

TEST(PsJobs, ConservesBytesAndRotatesOnTheAgentsSchedule) {
  PsJobsSpec spec;
  spec.jobs = 3;
  spec.workers = 2;
  spec.iterations = 3;
  spec.model_bytes = 64'000;
  spec.compute = 20 * kMicrosecond;
  spec.jitter = 0.5;
  spec.policy = tlights::Policy::kRotate;
  spec.rotate_interval_s = 10e-6;
  Network network(Rack(4, 10'000'000'000), NetConfig{});
  const PsJobsResult result = RunPsJobs(&network, spec);
  const uint64_t jobs_workers = 3 * 2;
  EXPECT_EQ(result.pushed_bytes, jobs_workers * 3 * spec.model_bytes);
  EXPECT_EQ(result.pulled_bytes, jobs_workers * 4 * spec.model_bytes);
  const NetStats stats = network.Stats();
  EXPECT_EQ(stats.drops, 0u);
  EXPECT_EQ(stats.payload_sent, stats.payload_received);
  EXPECT_EQ(stats.payload_received, result.pushed_bytes + result.pulled_bytes);
  ASSERT_GT(result.makespan, 0);
  // Every version reached every worker, each after the one before.
  for (const PsJobResult& job : result.jobs) {
    for (size_t v = 1; v < job.receipts.size(); ++v) {
      for (size_t w = 0; w < job.receipts[v].size(); ++w) {
        EXPECT_GT(job.receipts[v][w], job.receipts[v - 1][w]);
      }
    }
  }
  // The bands of rotation r from r x interval on, as the agent's schedule says.
  const tlights::BandSchedule agent(tlights::Policy::kRotate, 3, 10e-6);
  ASSERT_GE(result.schedule.size(), 3u);
  for (size_t i = 0; i < result.schedule.size(); ++i) {
    const BandChange& change = result.schedule[i];
    EXPECT_EQ(change.rotation, static_cast<int>(i));
    EXPECT_EQ(change.at, static_cast<Time>(i) * 10 * kMicrosecond);
    EXPECT_EQ(change.bands, agent.Bands(change.rotation));
    EXPECT_LT(change.at, result.makespan);
  }
}

// Lossy Ethernet (no PFC, a drop-tail switch buffer, loss-based AIMD, retransmission after
// Linux's minimum RTO of 200 ms set through the cc parameter): every job still finishes, each
// message is counted once however often its packets were resent, and the wire carries the
// delivered bytes plus the resent ones.
TEST(PsJobs, FinishesAndConservesBytesUnderDrops) {
  PsJobsSpec spec;
  spec.jobs = 3;
  spec.workers = 3;
  spec.iterations = 2;
  spec.model_bytes = 200'000;
  spec.compute = 1 * kMillisecond;
  NetConfig config;
  config.pfc = false;
  config.window = false;
  config.cc = CcMode::kReno;
  config.buffer_bytes = 64 * 1024;
  SetCcParam("retransmit_timeout", "200ms", &config);
  EXPECT_EQ(config.retransmit_timeout, 200 * kMillisecond);
  EXPECT_THROW(SetCcParam("retransmit_timeout", "0s", &config), UsageError);
  Network network(Rack(4, 200'000'000), config);
  const PsJobsResult result = RunPsJobs(&network, spec);
  ASSERT_GT(result.makespan, 0);
  const uint64_t jobs_workers = 3 * 3;
  EXPECT_EQ(result.pushed_bytes, jobs_workers * 2 * spec.model_bytes);
  EXPECT_EQ(result.pulled_bytes, jobs_workers * 3 * spec.model_bytes);
  const NetStats stats = network.Stats();
  EXPECT_GT(stats.drops, 0u);
  EXPECT_EQ(stats.payload_sent, stats.payload_received + stats.payload_dropped);
  EXPECT_GE(stats.payload_received, result.pushed_bytes + result.pulled_bytes);
}

TEST(PsJobs, PlacementSpreadsWorkersAwayFromThePsHost) {
  PsJobsSpec spec;
  spec.jobs = 4;
  spec.workers = 3;
  spec.ps_hosts = 2;
  const auto spread = PlacePsJobs(spec, 4);
  EXPECT_EQ(spread[0].ps_host, 0u);
  EXPECT_EQ(spread[1].ps_host, 1u);
  EXPECT_EQ(spread[2].ps_host, 0u);
  EXPECT_EQ(spread[1].worker_hosts, (std::vector<uint32_t>{2, 3, 0}));
  spec.placement = PsPlacement::kRandom;
  for (const PsJobResult& job : PlacePsJobs(spec, 6)) {
    ASSERT_EQ(job.worker_hosts.size(), 3u);
    for (uint32_t host : job.worker_hosts) EXPECT_NE(host, job.ps_host);
  }
  spec.workers = 4;
  EXPECT_THROW(PlacePsJobs(spec, 4), UsageError);
}

TEST(PsJobsOptions, ValidateNamesTheOption) {
  auto message = [](const PsJobsOptions& options) {
    try {
      options.Validate();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  PsJobsOptions options;
  options.workers = 3;
  EXPECT_NE(message(options).find("need --ps-jobs"), std::string::npos);
  options.jobs = 2;
  EXPECT_NE(message(options).find("--ps-model NAME"), std::string::npos);
  options.model = "resnet32";
  const PsJobsSpec spec = options.Validate();
  EXPECT_EQ(spec.model_bytes, 464'154u * 4);
  EXPECT_EQ(spec.iterations, 10);
  EXPECT_EQ(spec.policy, tlights::Policy::kFifo);
  options.model_bytes = "1MB";
  EXPECT_NE(message(options).find("not both"), std::string::npos);
  options.model_bytes.clear();
  options.rotate_interval = "5s";
  EXPECT_NE(message(options).find("--rotate-interval needs --host-priority rotate"),
            std::string::npos);
  options.host_priority = "rotate";
  EXPECT_EQ(options.Validate().rotate_interval_s, 5);
  options.host_priority = "tlsrr";
  EXPECT_NE(message(options).find("--host-priority 'tlsrr': expected fifo, static or rotate"),
            std::string::npos);
  options.host_priority = "static";
  options.rotate_interval.clear();
  options.ps_hosts = 3;
  EXPECT_NE(message(options).find("--ps-hosts"), std::string::npos);
  options.ps_hosts = 0;
  options.compute = "20ms";
  options.compute_file = "samples.csv";
  EXPECT_NE(message(options).find("not both"), std::string::npos);
  options.compute_file.clear();
  options.model = "alexnet";
  EXPECT_NE(message(options).find("expected one of mlp, resnet20"), std::string::npos);
}

}  // namespace
}  // namespace jigsaw::net
