#include "model/throughput_table.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"

namespace jigsaw {
namespace {

const char* kSmall = R"J({
  "v100": {
    "('ResNet-18 (batch size 16)', 1)": {
      "null": 57.5,
      "('LM (batch size 5)', 1)": [30.0, 10.0]
    },
    "('LM (batch size 5)', 2)": {"null": 12.0}
  }
})J";

TEST(ThroughputTable, ParsesIsolatedAndColocated) {
  ThroughputTable table = ThroughputTable::Parse("t.json", kSmall);
  EXPECT_DOUBLE_EQ(table.Isolated("v100", {"ResNet-18 (batch size 16)", 1}), 57.5);
  EXPECT_DOUBLE_EQ(table.Isolated("v100", {"LM (batch size 5)", 2}), 12.0);
  EXPECT_DOUBLE_EQ(table.Isolated("v100", {"LM (batch size 5)", 4}), 0.0);
  EXPECT_DOUBLE_EQ(table.Isolated("k80", {"LM (batch size 5)", 2}), 0.0);
  const ThroughputEntry* entry = table.Find("v100", {"ResNet-18 (batch size 16)", 1});
  ASSERT_NE(entry, nullptr);
  auto pair = entry->colocated.at({"LM (batch size 5)", 1});
  EXPECT_DOUBLE_EQ(pair.first, 30.0);
  EXPECT_DOUBLE_EQ(pair.second, 10.0);
}

TEST(ThroughputTable, ParsesJobKeys) {
  JobKey key;
  ASSERT_TRUE(ParseJobKey("('A3C', 1)", &key));
  EXPECT_EQ(key.job_type, "A3C");
  EXPECT_EQ(key.scale_factor, 1);
  EXPECT_FALSE(ParseJobKey("(A3C, 1)", &key));
  EXPECT_FALSE(ParseJobKey("('A3C', x)", &key));
  EXPECT_FALSE(ParseJobKey("('A3C', 0)", &key));
}

void ExpectErrorAt(const std::string& text, int line, const std::string& fragment) {
  try {
    ThroughputTable::Parse("bad.json", text);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ThroughputTable, MalformedInputNamesTheLine) {
  ExpectErrorAt("{\n \"v100\": {\n  \"('A', 1)\": {\"null\": 1.0,}\n }\n}", 3, "malformed JSON");
  ExpectErrorAt("{\n \"v100\": {\n  \"(A, 1)\": {\"null\": 1.0}\n }\n}", 3, "expected a key");
  ExpectErrorAt("{\n \"v100\": {\n  \"('A', 1)\": {\"x\": 1.0}\n }\n}", 3, "\"null\"");
  ExpectErrorAt("{\n \"v100\": {\n  \"('A', 1)\": {\"null\": \"fast\"}\n }\n}", 3,
                "expected a number");
  ExpectErrorAt("{\n \"v100\": {\n  \"('A', 1)\": {\"null\": 1, \"('B', 1)\": [1]}\n }\n}", 3,
                "[self, partner]");
  ExpectErrorAt("[]", 1, "expected an object");
}

TEST(ThroughputTable, ReadsTheShockwaveTable) {
  const std::string path =
      std::string(JIGSAW_SHARED_DATA) + "/throughputs/shockwave_tacc_throughputs.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not found: " << path;
  ThroughputTable table = ThroughputTable::Load(path);
  EXPECT_EQ(table.worker_types().size(), 6u);
  EXPECT_NEAR(table.Isolated("v100", {"ResNet-18 (batch size 16)", 1}), 57.68343332, 1e-6);
}

}  // namespace
}  // namespace jigsaw
