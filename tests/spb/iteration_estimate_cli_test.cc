// Issue 4 (5): the cost model against the runtime's own measurements on this machine. In each of
// five rounds it profiles LeNet with whole steps and the communication calibration (`jigsaw
// profile --step-workers 2 --comm-workers 2`), then trains it with 2 worker processes (`jigsaw
// train`, full and staircase), and compares EstimateSpbIteration's iteration time with the median
// measured iteration time. The machine's speed drifts over tens of seconds (its 2 cores are
// shared), so each round's prediction comes from the profile taken right before its runs, and the
// check is on the median ratio over the rounds: one disturbed round cannot decide the outcome.
// A second five-round measurement is taken only if the first misses.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/output.h"
#include "core/stats.h"
#include "core/text_input.h"
#include "spb/iteration_estimate.h"

namespace jigsaw {
namespace {

int RunJigsaw(const std::string& args, std::string* output) {
  FILE* pipe = popen((std::string(JIGSAW_BINARY) + " " + args + " 2>&1").c_str(), "r");
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Median over iterations (after the first `skip`, the warm-up) of the iteration time averaged
// over the ranks, from iterations.csv (iter_s is column 8).
double MedianIterationS(const std::string& path, int skip) {
  std::map<int64_t, std::pair<double, int>> by_iteration;
  std::istringstream text(ReadWholeFile(path));
  std::string line;
  std::getline(text, line);  // header
  while (std::getline(text, line)) {
    if (line.empty()) continue;
    std::vector<std::string_view> f = SplitFields(line, ',');
    const int64_t iteration = std::stoll(std::string(f[2]));
    if (iteration < skip) continue;
    by_iteration[iteration].first += std::stod(std::string(f[7]));
    by_iteration[iteration].second += 1;
  }
  std::vector<double> seconds;
  for (const auto& [iteration, sum] : by_iteration) seconds.push_back(sum.first / sum.second);
  return Percentile(seconds, 50);
}

constexpr int kWarmUpIterations = 5;
constexpr int kRounds = 5;
constexpr int kAttempts = 2;

const char kData[] =
    " --model lenet --dataset synthetic --synthetic-train 16384 --synthetic-test 64"
    " --synthetic-size 28 --batch 32 --threads 1";

// One measurement: kRounds rounds of profile + full run + staircase run; per plan the median
// over rounds of predicted / measured. Returns false (with a gtest failure) if a command fails.
bool MeasureRatios(const std::string& dir, std::map<std::string, double>* median_ratio) {
  std::map<std::string, std::vector<double>> ratios;
  for (int round = 0; round < kRounds; ++round) {
    std::string output;
    const std::string profile_path = dir + "/profile" + std::to_string(round) + ".json";
    if (RunJigsaw(std::string("profile") + kData +
                      " --repeats 20 --comm-workers 2 --step-workers 2 --out " + profile_path,
                  &output) != 0) {
      ADD_FAILURE() << output;
      return false;
    }
    const ModelProfile profile = ReadProfile(profile_path);
    EXPECT_FALSE(profile.comm.empty());
    for (const char* plan : {"full", "staircase"}) {
      const std::string out = dir + "/" + plan + std::to_string(round);
      if (RunJigsaw(std::string("train") + kData + " --workers 2 --epochs 1" +
                        " --max-iters-per-epoch 100 --quiet --spb " + plan + " --out " + out,
                    &output) != 0) {
        ADD_FAILURE() << output;
        return false;
      }
      const Json summary = Json::parse(ReadWholeFile(out + "/summary.json"));
      const double median = MedianIterationS(out + "/iterations.csv", kWarmUpIterations);
      const SpbIterationEstimate estimate =
          EstimateSpbIteration(profile, profile.comm, 2, ParseSpbPlan(plan), 32);
      std::printf(
          "round %d %s: predicted %.6f s (slowest compute %.6f, comm %.6f, optimizer %.6f); "
          "measured median %.6f s (ratio %.3f), mean_iter_s %.6f s (forward %.6f, backward "
          "%.6f, comm %.6f)\n",
          round, plan, estimate.iteration_s, estimate.slowest_compute_s, estimate.comm_s,
          estimate.optimizer_s, median, estimate.iteration_s / median,
          summary["mean_iter_s"].get<double>(), summary["mean_forward_s"].get<double>(),
          summary["mean_backward_s"].get<double>(), summary["mean_comm_s"].get<double>());
      ratios[plan].push_back(estimate.iteration_s / median);
    }
  }
  for (const auto& [plan, plan_ratios] : ratios) {
    (*median_ratio)[plan] = Percentile(plan_ratios, 50);
    std::printf("%s: median predicted/measured over %d rounds %.3f\n", plan.c_str(), kRounds,
                (*median_ratio)[plan]);
  }
  return true;
}

// A second measurement is taken only if the first misses: the machine's 2 cores are shared with
// other tenants, and a burst of their load can shift a whole measurement by 20-40% (seen in
// development); a wrong model misses in both.
TEST(SpbIterationEstimateCli, PredictedIterationTimeWithin15PercentOfMeasured) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "jigsaw_spb_estimate_cli").string();
  std::map<std::string, double> median_ratio;
  bool within = false;
  for (int attempt = 0; attempt < kAttempts && !within; ++attempt) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::printf("attempt %d\n", attempt + 1);
    ASSERT_TRUE(MeasureRatios(dir, &median_ratio));
    within = true;
    for (const auto& [plan, ratio] : median_ratio) within &= std::abs(ratio - 1.0) <= 0.15;
  }
  for (const auto& [plan, ratio] : median_ratio) EXPECT_NEAR(ratio, 1.0, 0.15) << plan;
}

}  // namespace
}  // namespace jigsaw
