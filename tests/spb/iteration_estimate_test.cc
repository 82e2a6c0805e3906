// The SPB iteration estimate on a hand-built profile, the collective fit and the v2 profile format.
#include "spb/iteration_estimate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/output.h"

namespace jigsaw {
namespace {

// Four blocks: forward 1 ms, backward 3 ms (weight 1 ms), 1,000 parameter bytes, 400-byte outputs
// at batch 10; per-iteration work outside the blocks 0.5 + 0.25 + 0.8 ms.
ModelProfile HandProfile() {
  ModelProfile profile;
  profile.model = "hand";
  profile.batch = 10;
  profile.input_shape = {1, 2, 2};
  for (int b = 0; b < 4; ++b) {
    BlockProfile block;
    block.name = std::string(1, static_cast<char>('a' + b));
    block.forward_s = 0.001;
    block.backward_s = 0.003;
    block.backward_weight_s = 0.001;
    block.backward_input_s = 0.002;
    block.activation_bytes = 400;
    block.parameter_bytes = 1000;
    profile.blocks.push_back(block);
  }
  profile.batch_s = 0.0005;
  profile.loss_s = 0.00025;
  profile.optimizer_s = 0.0008;
  return profile;
}

CommModel HandComm() {
  CommModel comm;
  for (auto kind : {Collective::Kind::kAllreduce, Collective::Kind::kBroadcast}) {
    CollectiveFit fit;
    fit.kind = kind;
    fit.members = 2;
    fit.latency_s = 1e-4;
    fit.bandwidth_bytes_per_s = 1e7;
    comm.fits.push_back(fit);
  }
  return comm;
}

TEST(SpbIterationEstimate, StaircaseIterationIsTheFullDepthWorkerPlusTheExchange) {
  const ModelProfile profile = HandProfile();
  SpbIterationEstimate e =
      EstimateSpbIteration(profile, HandComm(), 2, ParseSpbPlan("staircase"), 20);
  ASSERT_EQ(e.workers.size(), 2u);
  EXPECT_EQ(e.workers[0].depth, 2);
  EXPECT_EQ(e.workers[1].depth, 4);
  // Batch 20 = twice the profiled batch: every time doubles.
  const double full_backward = 2 * (0.001 + 3 * 0.003);
  EXPECT_DOUBLE_EQ(e.workers[1].backward_s, full_backward);
  EXPECT_DOUBLE_EQ(e.workers[1].compute_s, 2 * (0.0005 + 0.00025 + 4 * 0.001) + full_backward);
  EXPECT_LT(e.workers[0].compute_s, e.workers[1].compute_s);
  EXPECT_DOUBLE_EQ(e.slowest_compute_s, e.workers[1].compute_s);
  // Blocks 2,3: allreduce of 2,000 bytes; blocks 0,1: broadcast of 2,000 bytes from worker 1.
  const double comm = (1e-4 + 2000.0 / 1e7) + (1e-4 + 1000.0 / 1e7);
  EXPECT_NEAR(e.comm_s, comm, 1e-12);
  EXPECT_NEAR(e.workers[0].comm_s, comm, 1e-12);
  EXPECT_DOUBLE_EQ(e.optimizer_s, 0.0008);  // optimizer time does not scale with the batch
  EXPECT_DOUBLE_EQ(e.iteration_s, e.slowest_compute_s + e.comm_s + e.optimizer_s);
}

TEST(SpbIterationEstimate, BytesMatchTheExistingEstimate) {
  const ModelProfile profile = HandProfile();
  for (const char* text : {"full", "staircase", "rotating", "freeze:1", "1,4,2"}) {
    SpbPlan plan = ParseSpbPlan(text);
    const int workers = 3;
    SpbIterationEstimate e = EstimateSpbIteration(profile, HandComm(), workers, plan, 10);
    const int period = PlanPeriod(plan, workers);
    for (int k = 0; k < workers; ++k) {
      double expected = 0;
      for (int t = 0; t < period; ++t) {
        std::vector<int> depths = WorkerDepths(plan, 4, workers, t);
        expected +=
            PredictBytesSent(profile, PlanCollectives(BlockContributors(depths, 4), workers), k);
      }
      EXPECT_NEAR(e.workers[k].bytes_sent, expected / period, 1e-9) << text << " worker " << k;
    }
  }
}

TEST(SpbIterationEstimate, FrozenWorkersNeedLessMemoryAndTime) {
  const ModelProfile profile = HandProfile();
  SpbIterationEstimate full =
      EstimateSpbIteration(profile, HandComm(), 2, ParseSpbPlan("full"), 10);
  SpbIterationEstimate frozen =
      EstimateSpbIteration(profile, HandComm(), 2, ParseSpbPlan("freeze:1"), 10);
  // Full: 4 x 1,000 parameters, gradients, momentum; activations = the data (160 bytes) + the
  // inputs of blocks 1..3 + the logits (4 x 400).
  EXPECT_DOUBLE_EQ(full.workers[0].memory_bytes, 3 * 4000 + 160 + 4 * 400);
  // freeze:1: every replica still holds all parameters; only block 3 is updated.
  EXPECT_DOUBLE_EQ(frozen.workers[0].memory_bytes, 4000 + 2 * 1000 + 2 * 400);
  EXPECT_LT(frozen.workers[0].memory_bytes, full.workers[0].memory_bytes);
  EXPECT_LT(frozen.iteration_s, full.iteration_s);
  EXPECT_DOUBLE_EQ(frozen.optimizer_s, 0.0008 / 4);
}

TEST(SpbIterationEstimate, RotatingAveragesOverThePeriod) {
  SpbIterationEstimate e =
      EstimateSpbIteration(HandProfile(), HandComm(), 2, ParseSpbPlan("rotating"), 10);
  EXPECT_DOUBLE_EQ(e.workers[0].depth, 3);
  EXPECT_DOUBLE_EQ(e.workers[1].depth, 3);
  EXPECT_DOUBLE_EQ(e.workers[0].compute_s, e.workers[1].compute_s);
}

TEST(SpbIterationEstimate, OneWorkerNeedsNoCommunicationModel) {
  SpbIterationEstimate e =
      EstimateSpbIteration(HandProfile(), CommModel(), 1, ParseSpbPlan("full"), 10);
  EXPECT_EQ(e.comm_s, 0);
  EXPECT_THROW(EstimateSpbIteration(HandProfile(), CommModel(), 2, ParseSpbPlan("full"), 10),
               std::logic_error);
  EXPECT_THROW(EstimateSpbIteration(HandProfile(), HandComm(), 2, ParseSpbPlan("freeze:5"), 10),
               UsageError);
}

TEST(SpbIterationEstimate, MeasuredStepsUseProcessorSharingForALoneDeepestWorker) {
  ModelProfile profile = HandProfile();
  profile.steps.workers = 2;
  for (int d = 0; d <= 4; ++d) {
    DepthStepProfile step;
    step.depth = d;
    step.mean_compute_s = 0.001 * (d + 1);
    step.slowest_compute_s = 0.0012 * (d + 1);
    step.alone_compute_s = 0.0005 * (d + 1);
    profile.steps.depths.push_back(step);
  }
  // Full: both workers at depth 4, the measured slowest of two.
  SpbIterationEstimate full =
      EstimateSpbIteration(profile, HandComm(), 2, ParseSpbPlan("full"), 10);
  EXPECT_DOUBLE_EQ(full.slowest_compute_s, 0.006);
  // Staircase (depths 2, 4): worker 1 shares the machine for worker 0's 3 ms (3/5 of its work
  // done), then finishes the remaining 2/5 alone at 2.5 ms per step: 3 + 0.4 x 2.5 = 4 ms.
  SpbIterationEstimate staircase =
      EstimateSpbIteration(profile, HandComm(), 2, ParseSpbPlan("staircase"), 10);
  EXPECT_DOUBLE_EQ(staircase.workers[0].compute_s, 0.003);
  EXPECT_NEAR(staircase.workers[1].compute_s, 0.004, 1e-12);
  EXPECT_NEAR(staircase.slowest_compute_s, 0.004, 1e-12);
}

TEST(SpbCommModel, FitRecoversLatencyAndBandwidthAndUsesTheNearestMemberCount) {
  // Allreduce over 2 ranks sends 1 x B per member: t = 50 us + B / 200 MB/s.
  std::vector<std::pair<double, double>> samples;
  for (double b : {4096.0, 65536.0, 1048576.0}) samples.emplace_back(b, 5e-5 + b / 2e8);
  CollectiveFit fit = FitCollective(Collective::Kind::kAllreduce, 2, samples);
  EXPECT_NEAR(fit.latency_s, 5e-5, 1e-12);
  EXPECT_NEAR(fit.bandwidth_bytes_per_s, 2e8, 1);
  CommModel comm;
  comm.fits.push_back(fit);
  // 4 members: 2(3)/4 = 1.5 x B per member, with the 2-rank fit (the nearest measured).
  EXPECT_NEAR(comm.Seconds(Collective::Kind::kAllreduce, 4, 1e6), 5e-5 + 1.5e6 / 2e8, 1e-12);
  EXPECT_THROW(comm.Seconds(Collective::Kind::kBroadcast, 2, 1e6), std::logic_error);
  EXPECT_THROW(FitCollective(Collective::Kind::kAllreduce, 2, {{1.0, 1.0}}), std::invalid_argument);
}

TEST(SpbCommModel, ProfileV2RoundTripsAndV1StillReads) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("jigsaw_spb_profile_format_" + std::to_string(getpid())))
                              .string();
  std::filesystem::create_directories(dir);
  ModelProfile profile = HandProfile();
  profile.comm = HandComm();
  profile.comm.fits[0].samples = {{4096, 1e-4}, {8192, 2e-4}};
  WriteJsonFile(dir + "/v2.json", ProfileToJson(profile));
  ModelProfile read = ReadProfile(dir + "/v2.json");
  EXPECT_DOUBLE_EQ(read.optimizer_s, 0.0008);
  ASSERT_EQ(read.comm.fits.size(), 2u);
  EXPECT_EQ(read.comm.fits[1].kind, Collective::Kind::kBroadcast);
  EXPECT_EQ(read.comm.fits[0].samples.size(), 2u);

  Json v1 = ProfileToJson(HandProfile());
  v1["format"] = "jigsaw-block-profile-v1";
  v1.erase("batch_s");
  v1.erase("loss_s");
  v1.erase("optimizer_s");
  WriteJsonFile(dir + "/v1.json", v1);
  read = ReadProfile(dir + "/v1.json");
  EXPECT_TRUE(read.comm.empty());
  EXPECT_EQ(read.batch_s, 0);

  Json bad = ProfileToJson(profile);
  bad["comm"]["fits"][0]["kind"] = "scatter";
  WriteJsonFile(dir + "/bad.json", bad);
  try {
    ReadProfile(dir + "/bad.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("allreduce or broadcast"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jigsaw
