// The one-screen result summary: aligned figure lines, the files written, bounded length, and
// silence at --quiet.
#include "core/result_summary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/progress.h"

namespace jigsaw {
namespace {

TEST(ResultSummary, AlignsFiguresAndListsFiles) {
  ResultSummary summary("net: topo, rdma dcqcn: simulated 10 us");
  summary.Add("flows", "3 (0 unfinished)");
  summary.Add("FCT", "mean 4.9 us");
  summary.AddFile("out/net", "flows.csv", "one row per flow");
  EXPECT_EQ(summary.Text(),
            "net: topo, rdma dcqcn: simulated 10 us\n"
            "  flows  3 (0 unfinished)\n"
            "  FCT    mean 4.9 us\n"
            "files written:\n"
            "  out/net/flows.csv  one row per flow\n");
}

TEST(ResultSummary, FitsOnOneScreen) {
  ResultSummary summary("many");
  for (int i = 0; i < 30; ++i) summary.Add("k" + std::to_string(i), "v");
  const std::string text = summary.Text();
  EXPECT_NE(text.find("... 18 more"), std::string::npos) << text;
  EXPECT_EQ(text.find("k12 "), std::string::npos) << text;
}

TEST(ResultSummary, QuietPrintsNothing) {
  ResultSummary summary("title");
  summary.Add("a", "b");
  std::FILE* stream = std::tmpfile();
  SetVerbosity(Verbosity::kQuiet);
  summary.Print(stream);
  SetVerbosity(Verbosity::kNormal);
  EXPECT_EQ(std::ftell(stream), 0);
  summary.Print(stream);
  EXPECT_GT(std::ftell(stream), 0);
  std::fclose(stream);
}

}  // namespace
}  // namespace jigsaw
