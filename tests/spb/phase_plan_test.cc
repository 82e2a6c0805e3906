// Phase-plan files (src/spb/phase_plan.h) and their construction from a training run folder and a
// scripted profile (src/spb/run_phase_plan.h).
#include "spb/phase_plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "core/error.h"
#include "spb/run_phase_plan.h"

namespace jigsaw {
namespace {

std::string Header() { return std::string(kPhasePlanFormatLine) + "\n" + kPhasePlanHeader + "\n"; }

const char kWarmup[] = "lenet,2,32,adaptive,warmup,0.6,0,5,1,1;1,1;1,1,1,1,1,bench\n";
const char kFrozen[] =
    "lenet,2,32,adaptive,frozen,0.4,3,5,0.5,0.4;0.4,0.2;0.2,0.1,0.8,0.7,0.9,bench\n";

// The InputError's line and message of parsing `text`.
std::pair<int, std::string> ErrorOf(const std::string& text) {
  try {
    ParseSpbPhasePlans("plans.csv", text);
  } catch (const InputError& e) {
    return {e.line(), e.message()};
  }
  return {-1, "no error"};
}

TEST(SpbPhasePlan, RoundTripsThroughItsFile) {
  const SpbPhasePlanFile file = ParseSpbPhasePlans("plans.csv", Header() + kWarmup + kFrozen);
  ASSERT_EQ(file.plans.size(), 1u);
  const SpbPhasePlan& plan = file.plans[0];
  EXPECT_EQ(plan.line, 3);
  ASSERT_EQ(plan.phases.size(), 2u);
  EXPECT_FALSE(plan.phases[0].SavesWork());
  EXPECT_TRUE(plan.phases[1].SavesWork());
  EXPECT_DOUBLE_EQ(plan.phases[1].MaxCompute(), 0.4);
  EXPECT_DOUBLE_EQ(plan.phases[1].efficiency_low, 0.7);
  EXPECT_EQ(FormatSpbPhasePlans(file.plans), Header() + kWarmup + kFrozen);
}

TEST(SpbPhasePlan, MalformedInputNamesTheLineAndWhatWasExpected) {
  // Wrong format line, header, column count, a number out of range, a list of the wrong length.
  EXPECT_EQ(ErrorOf("# something else\n").first, 1);
  EXPECT_EQ(ErrorOf(std::string(kPhasePlanFormatLine) + "\nmodel,workers\n").first, 2);
  auto [line, message] = ErrorOf(Header() + kWarmup + "lenet,2,32,adaptive,frozen,0.4\n");
  EXPECT_EQ(line, 4);
  EXPECT_NE(message.find("expected 16"), std::string::npos) << message;
  std::tie(line, message) =
      ErrorOf(Header() + "lenet,2,32,adaptive,warmup,1,0,5,1,1;1,1;1,1,1.5,1,1,x\n");
  EXPECT_EQ(line, 3);
  EXPECT_NE(message.find("statistical_efficiency"), std::string::npos) << message;
  std::tie(line, message) =
      ErrorOf(Header() + "lenet,2,32,adaptive,warmup,1,0,5,1,1,1;1,1,1,1,1,x\n");
  EXPECT_EQ(line, 3);
  EXPECT_NE(message.find("one per worker"), std::string::npos) << message;
}

TEST(SpbPhasePlan, PhasesThatDoNotSumToOneAreRefusedAtThePlansFirstRow) {
  auto [line, message] =
      ErrorOf(Header() + "# comment\n" +
              "lenet,2,32,adaptive,warmup,0.5,0,5,1,1;1,1;1,1,1,1,1,b\n" + kFrozen);
  EXPECT_EQ(line, 4);
  EXPECT_NE(message.find("to sum to 1, got 0.9"), std::string::npos) << message;
  // The same when another plan follows.
  std::tie(line, message) =
      ErrorOf(Header() + "lenet,2,32,adaptive,warmup,0.5,0,5,1,1;1,1;1,1,1,1,1,b\n" +
              "mlp,1,32,adaptive,warmup,1,0,4,1,1,1,1,1,1,1,b\n");
  EXPECT_EQ(line, 3);
}

TEST(SpbPhasePlan, UnknownModelsAndSplitPlansAreRefused) {
  auto [line, message] = ErrorOf(Header() + "vgg99,1,32,adaptive,warmup,1,0,4,1,1,1,1,1,1,1,b\n");
  EXPECT_EQ(line, 3);
  EXPECT_NE(message.find("unknown model 'vgg99'"), std::string::npos) << message;
  EXPECT_NE(message.find("lenet"), std::string::npos) << message;  // the valid names
  // Trace job types are known, spelled as the traces spell them.
  EXPECT_EQ(ErrorOf(Header() + "ResNet-50,1,32,adaptive,warmup,1,0,8,1,1,1,1,1,1,1,b\n").first, -1);
  std::tie(line, message) =
      ErrorOf(Header() + kWarmup + kFrozen + "mlp,1,32,adaptive,warmup,1,0,4,1,1,1,1,1,1,1,b\n" +
              kWarmup + kFrozen);
  EXPECT_EQ(line, 6);
  EXPECT_NE(message.find("consecutive"), std::string::npos) << message;
}

TEST(SpbPhasePlan, LookupTakesTheNearestWorkerCount) {
  const std::string one = "lenet,1,32,adaptive,all,1,0,5,1,1,1,1,1,1,1,b\n";
  const std::string eight =
      "lenet,8,32,adaptive,all,1,0,5,1,1;1;1;1;1;1;1;1,1;1;1;1;1;1;1;1,1,1,1,1,b\n";
  const SpbPhasePlanFile file = ParseSpbPhasePlans("p", Header() + one + kWarmup + kFrozen + eight);
  EXPECT_EQ(FindSpbPhasePlan(file, "LeNet", "adaptive", 3)->workers, 2);
  EXPECT_EQ(FindSpbPhasePlan(file, "lenet", "adaptive", 5)->workers, 2);  // tie: the smaller
  EXPECT_EQ(FindSpbPhasePlan(file, "lenet", "adaptive", 7)->workers, 8);
  EXPECT_EQ(FindSpbPhasePlan(file, "mlp", "adaptive", 2), nullptr);
}

// A run folder of 2 workers on a 3-block model: 6 iterations at full depth, then 4 with the first
// two blocks frozen, costed with a scripted profile.
class RunPhasePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("jigsaw_phase_plan_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "run");
    Write("run/summary.json",
          R"({"model": "mlp", "workers": 2, "batch_per_worker": 10, "blocks": 3})");
    std::string csv = "rank,epoch,iteration,phase,depth,forward_s\n";
    for (int it = 0; it < 10; ++it) {
      for (int rank = 0; rank < 2; ++rank) {
        csv += std::to_string(rank) + ",0," + std::to_string(it) + ",x," + (it < 6 ? "3" : "1") +
               ",0.1\n";
      }
    }
    Write("run/iterations.csv", csv);
    // Per block (forward, backward, backward of the weights only): (1, 4, 2), (1, 2, 1), (1, 2,
    // 1); activations 100, 50, 10 bytes; parameters 400, 400, 200 bytes; no other work.
    Write("profile.json", R"({"format": "jigsaw-block-profile-v2", "model": "mlp", "batch": 10,
      "input_shape": [1, 4, 4], "threads": 1, "batch_s": 0, "loss_s": 0, "optimizer_s": 0,
      "blocks": [
        {"index": 0, "name": "a", "forward_s": 1, "backward_s": 4, "backward_weight_s": 2,
         "backward_input_s": 2, "activation_bytes": 100, "parameter_bytes": 400},
        {"index": 1, "name": "b", "forward_s": 1, "backward_s": 2, "backward_weight_s": 1,
         "backward_input_s": 1, "activation_bytes": 50, "parameter_bytes": 400},
        {"index": 2, "name": "c", "forward_s": 1, "backward_s": 2, "backward_weight_s": 1,
         "backward_input_s": 1, "activation_bytes": 10, "parameter_bytes": 200}]})");
    Write("efficiency.json", R"({"format": "jigsaw-spb-statistical-efficiency-v2", "entries": [
      {"model": "mlp", "dataset": "synthetic", "plan": "adaptive", "workers": 2,
       "batch_per_worker": 10, "plan_iterations": 10, "seeds": 3, "statistical_efficiency": 0.95,
       "ci_95": [0.9, 1.0], "command": "test", "frozen_phase_efficiency": 0.8,
       "frozen_phase_ci_95": [0.7, 0.9]}]})");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  RunPhasePlanOptions Options() const {
    RunPhasePlanOptions o;
    o.runs = {(dir_ / "run").string()};
    o.profile = (dir_ / "profile.json").string();
    o.efficiency_file = (dir_ / "efficiency.json").string();
    return o;
  }
  std::filesystem::path dir_;
};

TEST_F(RunPhasePlanTest, CostsEachPhaseOfTheFreezeScheduleWithTheProfile) {
  const SpbPhasePlan plan = PhasePlanFromRuns(Options());
  EXPECT_EQ(plan.model, "mlp");
  EXPECT_EQ(plan.workers, 2);
  ASSERT_EQ(plan.phases.size(), 2u);
  const SpbPhase& warmup = plan.phases[0];
  const SpbPhase& frozen = plan.phases[1];
  EXPECT_EQ(warmup.name, "warmup");
  EXPECT_DOUBLE_EQ(warmup.fraction, 0.6);
  EXPECT_DOUBLE_EQ(warmup.efficiency, 1.0);
  EXPECT_DOUBLE_EQ(warmup.MaxCompute(), 1.0);
  EXPECT_EQ(frozen.name, "frozen");
  EXPECT_DOUBLE_EQ(frozen.fraction, 0.4);
  EXPECT_EQ(frozen.frozen_blocks, 2);
  // Full: forward 3 + backward of block 0's weights (2) and blocks 1-2 (2 + 2) = 9. Depth 1:
  // forward 3 + block 2's weights (1) = 4.
  EXPECT_NEAR(frozen.worker_compute[0], 4.0 / 9.0, 1e-12);
  EXPECT_NEAR(frozen.worker_compute[1], 4.0 / 9.0, 1e-12);
  // Activations kept for backward: the inputs of the trained blocks plus the logits. Full: the
  // data batch (1x4x4 floats x 10 = 640 bytes) + 100 + 50 + 10; depth 1: 50 + 10.
  EXPECT_NEAR(frozen.worker_activation[0], 60.0 / 800.0, 1e-12);
  // Bytes: only block 2's 200 of the 1,000 parameter bytes are exchanged.
  EXPECT_NEAR(frozen.bytes, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(frozen.efficiency, 0.8);
  EXPECT_DOUBLE_EQ(frozen.efficiency_low, 0.7);
  EXPECT_DOUBLE_EQ(frozen.efficiency_high, 0.9);
  EXPECT_NO_THROW(ValidateSpbPhasePlan(plan));
}

TEST_F(RunPhasePlanTest, RefusesAProfileOfAnotherModelAndAMissingFrozenEfficiency) {
  RunPhasePlanOptions options = Options();
  Write("run/summary.json",
        R"({"model": "lenet", "workers": 2, "batch_per_worker": 10, "blocks": 3})");
  EXPECT_THROW(PhasePlanFromRuns(options), UsageError);
  Write("run/summary.json",
        R"({"model": "mlp", "workers": 2, "batch_per_worker": 10, "blocks": 3})");
  Write("efficiency.json", R"({"format": "jigsaw-spb-statistical-efficiency-v2", "entries": []})");
  EXPECT_THROW(PhasePlanFromRuns(options), UsageError);
  Write("run/iterations.csv", "rank,iteration\n0,0\n");
  try {
    PhasePlanFromRuns(options);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("depth"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace jigsaw
