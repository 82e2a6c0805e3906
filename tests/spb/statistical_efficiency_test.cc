// Loading data/spb_statistical_efficiency.json-style files, their errors, and the lookup rules.
#include "spb/statistical_efficiency.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace jigsaw {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("jigsaw_spb_stat_eff_" + name + "_" + std::to_string(getpid())))
                               .string();
  std::ofstream(path) << text;
  return path;
}

std::string Entry(const std::string& model, const std::string& plan, int workers,
                  const std::string& efficiency) {
  return "    {\"model\": \"" + model + "\", \"plan\": \"" + plan +
         "\", \"workers\": " + std::to_string(workers) +
         ", \"batch_per_worker\": 32,\n"
         "     \"plan_iterations\": 1404, \"epoch_test_accuracy\": [0.7, 0.8],\n"
         "     \"statistical_efficiency\": " +
         efficiency + ", \"command\": \"jigsaw train ...\"}";
}

std::string File(const std::vector<std::string>& entries) {
  std::string text =
      "{\n  \"format\": \"jigsaw-spb-statistical-efficiency-v1\",\n"
      "  \"source\": {\"machine\": {\"nproc\": 2}},\n  \"entries\": [\n";
  for (size_t i = 0; i < entries.size(); ++i)
    text += entries[i] + (i + 1 < entries.size() ? ",\n" : "\n");
  return text + "  ]\n}\n";
}

void ExpectInputError(const std::string& path, int line, const std::string& what) {
  try {
    ReadStatisticalEfficiency(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(SpbStatisticalEfficiency, LooksUpTheNearestMeasuredWorkerCount) {
  StatisticalEfficiencyTable table = ReadStatisticalEfficiency(WriteTemp(
      "ok", File({Entry("lenet", "staircase", 4, "0.8"), Entry("lenet", "staircase", 8, "0.6"),
                  Entry("lenet", "freeze:3", 4, "0.5")})));
  ASSERT_EQ(table.entries.size(), 3u);
  EXPECT_EQ(table.entries[1].line, 8);
  StatisticalEfficiency e =
      LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("staircase"), 5);
  EXPECT_TRUE(e.known);
  EXPECT_DOUBLE_EQ(e.efficiency, 0.8);
  EXPECT_EQ(e.measured_workers, 4);
  EXPECT_EQ(e.source, table.path + ":5");
  EXPECT_EQ(
      LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("staircase"), 6).measured_workers,
      4);  // tie: the smaller
  EXPECT_DOUBLE_EQ(
      LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("staircase"), 16).efficiency, 0.6);
  EXPECT_DOUBLE_EQ(
      LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("freeze:3"), 4).efficiency, 0.5);
  // Full is the reference, measured or not.
  StatisticalEfficiency full =
      LookupStatisticalEfficiency(table, "resnet", ParseSpbPlan("full"), 4);
  EXPECT_TRUE(full.known);
  EXPECT_DOUBLE_EQ(full.efficiency, 1.0);
  // Never measured: unknown, no invented number.
  EXPECT_FALSE(LookupStatisticalEfficiency(table, "resnet", ParseSpbPlan("staircase"), 4).known);
  EXPECT_FALSE(LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("rotating"), 4).known);
  EXPECT_FALSE(LookupStatisticalEfficiency(table, "lenet", ParseSpbPlan("freeze:2"), 4).known);
}

TEST(SpbStatisticalEfficiency, MalformedFilesNameTheLineAndWhatWasExpected) {
  ExpectInputError(WriteTemp("syntax", "{\n  \"format\": \n  ]\n"), 3, "not valid JSON");
  ExpectInputError(WriteTemp("format", "{\"entries\": []}"), 0,
                   "jigsaw-spb-statistical-efficiency-v2");
  ExpectInputError(WriteTemp("missing", File({Entry("lenet", "staircase", 4, "0.8"),
                                              "    {\"model\": \"mlp\", \"plan\": \"full\"}"})),
                   8, "expected an entry with model, plan, workers");
  ExpectInputError(WriteTemp("plan", File({Entry("lenet", "sideways", 4, "0.8")})), 5,
                   "expected an SPB plan");
  ExpectInputError(WriteTemp("range", File({Entry("lenet", "staircase", 4, "1.5")})), 5,
                   "statistical_efficiency in [0, 1]");
  ExpectInputError(WriteTemp("workers", File({Entry("lenet", "staircase", 0, "0.5")})), 5,
                   "workers: expected an integer in [1, 1000000]");
}

TEST(SpbStatisticalEfficiency, VersionTwoEntriesCarryTheirIntervalAndSeeds) {
  const std::string path =
      WriteTemp("v2",
                "{\"format\": \"jigsaw-spb-statistical-efficiency-v2\", \"entries\": [\n"
                "  {\"model\": \"resnet20\", \"dataset\": \"cifar10\", \"plan\": \"staircase\",\n"
                "   \"workers\": 4, \"batch_per_worker\": 32, \"plan_iterations\": 1560,\n"
                "   \"seeds\": 3, \"statistical_efficiency\": 0.8, \"ci_95\": [0.7, 0.9],\n"
                "   \"command\": \"bench/spb_bench.sh\"},\n"
                "  {\"model\": \"lenet\", \"dataset\": \"fashion-mnist\", \"plan\": \"rotating\",\n"
                "   \"workers\": 4, \"batch_per_worker\": 32, \"plan_iterations\": 1560,\n"
                "   \"seeds\": 3, \"statistical_efficiency\": 0.8, \"ci_95\": [0.9, 0.7],\n"
                "   \"command\": \"bench/spb_bench.sh\"}]}\n");
  ExpectInputError(path, 6, "ci_95");
  const std::string good =
      WriteTemp("v2good",
                "{\"format\": \"jigsaw-spb-statistical-efficiency-v2\", \"entries\": [\n"
                "  {\"model\": \"resnet20\", \"dataset\": \"cifar10\", \"plan\": "
                "\"staircase\", \"workers\": 4, \"batch_per_worker\": 32, \"plan_iterations\": "
                "1560, \"seeds\": 3, \"statistical_efficiency\": 0.8, \"ci_95\": [0.7, 0.9], "
                "\"command\": \"bench/spb_bench.sh\"}]}\n");
  StatisticalEfficiency e = LookupStatisticalEfficiency(ReadStatisticalEfficiency(good), "resnet20",
                                                        ParseSpbPlan("staircase"), 4);
  ASSERT_TRUE(e.known);
  EXPECT_DOUBLE_EQ(e.efficiency, 0.8);
  EXPECT_DOUBLE_EQ(e.low, 0.7);
  EXPECT_DOUBLE_EQ(e.high, 0.9);
  EXPECT_EQ(e.seeds, 3);
}

TEST(SpbStatisticalEfficiency, ASingleSeedHasNoIntervalAndSaysSo) {
  auto file = [](int seeds) {
    return "{\"format\": \"jigsaw-spb-statistical-efficiency-v2\", \"entries\": [\n"
           "  {\"model\": \"resnet20\", \"dataset\": \"cifar10\", \"plan\": \"staircase\",\n"
           "   \"workers\": 4, \"batch_per_worker\": 32, \"plan_iterations\": 1170,\n"
           "   \"seeds\": " +
           std::to_string(seeds) +
           ", \"statistical_efficiency\": 0.6, \"ci_95\": null,\n"
           "   \"command\": \"bench/spb_bench.sh\"}]}\n";
  };
  StatisticalEfficiency e =
      LookupStatisticalEfficiency(ReadStatisticalEfficiency(WriteTemp("oneseed", file(1))),
                                  "resnet20", ParseSpbPlan("staircase"), 4);
  ASSERT_TRUE(e.known);
  EXPECT_FALSE(e.has_interval);
  EXPECT_EQ(e.seeds, 1);
  EXPECT_DOUBLE_EQ(e.low, 0.6);
  EXPECT_DOUBLE_EQ(e.high, 0.6);
  ExpectInputError(WriteTemp("threeseeds", file(3)), 2, "null only for one seed");
}

TEST(SpbStatisticalEfficiency, IntervalsAndModelNamesAsTheRuntimeSpellsThem) {
  const std::string with_interval =
      "    {\"model\": \"resnet18\", \"plan\": \"staircase\", \"workers\": 4,\n"
      "     \"statistical_efficiency\": 0.9, \"statistical_efficiency_interval\": [0.85, 0.97],"
      " \"seeds\": 3}";
  StatisticalEfficiencyTable table =
      ReadStatisticalEfficiency(WriteTemp("interval", File({with_interval})));
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(table.entries[0].seeds, 3);
  // The trace's "ResNet-18" is the runtime's "resnet18".
  StatisticalEfficiency e =
      LookupStatisticalEfficiency(table, "ResNet-18", ParseSpbPlan("staircase"), 8);
  ASSERT_TRUE(e.known);
  EXPECT_TRUE(e.has_interval);
  EXPECT_DOUBLE_EQ(e.low, 0.85);
  EXPECT_DOUBLE_EQ(e.efficiency, 0.9);
  EXPECT_DOUBLE_EQ(e.high, 0.97);
  EXPECT_EQ(e.measured_model, "resnet18");
  EXPECT_EQ(NormalizedModelName("ResNet-18"), "resnet18");
  EXPECT_FALSE(LookupStatisticalEfficiency(table, "ResNet-50", ParseSpbPlan("staircase"), 4).known);
  // An interval that does not contain the value, or is not two numbers, is an error.
  const std::string outside =
      "    {\"model\": \"lenet\", \"plan\": \"staircase\", \"workers\": 4,\n"
      "     \"statistical_efficiency\": 0.9, \"statistical_efficiency_interval\": [0.5, 0.8]}";
  ExpectInputError(WriteTemp("outside", File({outside})), 5, "0 <= low <= statistical_efficiency");
  const std::string three =
      "    {\"model\": \"lenet\", \"plan\": \"staircase\", \"workers\": 4,\n"
      "     \"statistical_efficiency\": 0.9, \"statistical_efficiency_interval\": [0.5, 0.8, 1]}";
  ExpectInputError(WriteTemp("three", File({three})), 5, "as [low, high]");
}

TEST(SpbStatisticalEfficiency, TheMeasuredDataFileLoads) {
  StatisticalEfficiencyTable table = ReadStatisticalEfficiency(
      std::string(JIGSAW_SOURCE_DIR) + "/data/spb_statistical_efficiency.json");
  ASSERT_FALSE(table.entries.empty());
  // Every measured model has its own entries, from three seeds, with their interval.
  for (const char* model : {"lenet"}) {
    for (const char* plan : {"staircase", "rotating", "adaptive"}) {
      StatisticalEfficiency e = LookupStatisticalEfficiency(table, model, ParseSpbPlan(plan), 4);
      EXPECT_TRUE(e.known) << model << " " << plan;
      EXPECT_EQ(e.measured_workers, 4);
      EXPECT_GT(e.efficiency, 0);
      EXPECT_LE(e.efficiency, 1);
      EXPECT_GE(e.seeds, 3);
      EXPECT_TRUE(e.has_interval);
      EXPECT_LE(e.low, e.high);
    }
  }
}

}  // namespace
}  // namespace jigsaw
