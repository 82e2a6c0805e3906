// `jigsaw phase-plan` and the phase-plan file on the command line (src/cli/spb_commands.cc,
// src/spb/phase_plan.h): a run folder and a scripted profile become a plan `jigsaw sim` reads, and
// bad input - a malformed freeze schedule, a malformed phase-plan file, phases that do not sum to
// 1, an unknown model - exits 2 naming file:line and what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "spb/phase_plan.h"
#include "test_util/shell.h"

namespace jigsaw {
namespace {

using test_util::CommandResult;

CommandResult Jigsaw(const std::string& args) {
  return test_util::RunShell(std::string(JIGSAW_BINARY) + " " + args + " 2>&1");
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A run folder of 2 workers on a 3-block mlp (6 iterations at full depth, then 4 with two blocks
// frozen), its scripted profile and an efficiency file with the mlp's frozen-phase entry.
class PhasePlanCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_util::FreshTempDir("jigsaw_cli_", "phase_plan");
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
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  CommandResult PhasePlan() const {
    return Jigsaw("phase-plan --run " + Path("run") + " --profile " + Path("profile.json") +
                  " --efficiency-file " + Path("efficiency.json") + " --phase-plans " +
                  Path("plans.csv"));
  }
  // `jigsaw sim --policy jigsaw` on a small synthetic cluster with the given phase-plan file.
  CommandResult Sim(const std::string& plans, const std::string& out) const {
    return Jigsaw(
        "sim --quiet --jobs 20 --gpus 8 --seed 2 --policy jigsaw --spb-proxy-model mlp "
        "--spb-phases " +
        plans + " --out " + Path(out));
  }
  std::filesystem::path dir_;
};

TEST_F(PhasePlanCommandTest, TurnsARunFolderIntoAPlanTheSimulatorReads) {
  CommandResult result = PhasePlan();
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string plans = test_util::Slurp(dir_ / "plans.csv");
  EXPECT_EQ(plans.rfind(kPhasePlanFormatLine, 0), 0u) << plans;
  EXPECT_TRUE(Contains(plans, "mlp,2,10,adaptive,warmup,0.6,")) << plans;
  EXPECT_TRUE(Contains(plans, "mlp,2,10,adaptive,frozen,0.4,2,3,")) << plans;
  result = Sim(Path("plans.csv"), "sim");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(Contains(result.output, "PROXY phase plan")) << result.output;
  EXPECT_TRUE(Contains(test_util::Slurp(dir_ / "sim" / "summary.json"), "\"spb_phase_plans\""));
}

TEST_F(PhasePlanCommandTest, MalformedFreezeScheduleExitsTwoNamingFileLine) {
  Write("run/iterations.csv",
        "rank,epoch,iteration,phase,depth,forward_s\n0,0,0,x,3,0.1\n"
        "1,0,0,x,deep,0.1\n");
  const CommandResult result = PhasePlan();
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(Contains(result.output, "iterations.csv:3:")) << result.output;
  EXPECT_TRUE(Contains(result.output, "depth")) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "plans.csv"));
}

TEST_F(PhasePlanCommandTest, MalformedPlanFilesExitTwoNamingFileLineAndWhatWasExpected) {
  const std::string head =
      std::string(kPhasePlanFormatLine) + "\n" + std::string(kPhasePlanHeader) + "\n";
  struct Case {
    std::string body, expected;
  };
  const Case cases[] = {
      // A row with too few columns.
      {"lenet,1,32,adaptive,warmup,1,0,5\n", "bad.csv:3: expected 16"},
      // Phases that do not sum to 1, reported at the plan's first row.
      {"lenet,1,32,adaptive,warmup,0.5,0,5,1,1,1,1,1,1,1,t\n"
       "lenet,1,32,adaptive,frozen,0.3,2,5,0.8,0.7,0.6,0.5,0.9,0.8,1,t\n",
       "bad.csv:3: expected the fractions"},
      // A model neither the runtime nor the traces know, with the valid names.
      {"vgg99,1,32,adaptive,warmup,1,0,5,1,1,1,1,1,1,1,t\n", "bad.csv:3: "},
  };
  for (const Case& c : cases) {
    Write("bad.csv", head + c.body);
    const CommandResult result = Sim(Path("bad.csv"), "bad");
    EXPECT_EQ(result.exit_code, 2) << c.body << result.output;
    EXPECT_TRUE(Contains(result.output, c.expected)) << c.body << result.output;
  }
  EXPECT_TRUE(Contains(Sim(Path("bad.csv"), "bad").output, "unknown model 'vgg99'"));
  // Not a phase-plan file at all.
  Write("bad.csv", "model,workers\n");
  const CommandResult result = Sim(Path("bad.csv"), "bad");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(Contains(result.output, "bad.csv:1: expected")) << result.output;
}

}  // namespace
}  // namespace jigsaw
