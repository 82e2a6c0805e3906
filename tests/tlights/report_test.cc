// The experiment report: JCT and straggler spread from worker CSVs, file:line errors, and a whole
// fabricated experiment folder.
#include "tlights/report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/output.h"

namespace jigsaw::tlights {
namespace {
namespace fs = std::filesystem;

std::string Csv(const std::string& job, int rank, const std::vector<double>& ends) {
  std::string text = "job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,loss\n";
  for (size_t t = 0; t < ends.size(); ++t) {
    text += job + "," + std::to_string(rank) + "," + std::to_string(t) + ",0,0,0,0," +
            FormatFixed(ends[t], 6) + ",1.0\n";
  }
  return text;
}

TEST(TlightsReport, SpreadAndJct) {
  std::vector<IterationRow> rows = ParseWorkerCsv("w0", Csv("a", 0, {101.0, 102.0}));
  std::vector<IterationRow> more = ParseWorkerCsv("w1", Csv("a", 1, {101.5, 102.25}));
  rows.insert(rows.end(), more.begin(), more.end());
  const std::vector<double> spreads = StragglerSpreads(rows, 2);
  ASSERT_EQ(spreads.size(), 2u);
  EXPECT_NEAR(spreads[0], 0.5, 1e-9);
  EXPECT_NEAR(spreads[1], 0.25, 1e-9);
  EXPECT_NEAR(JobCompletionTime(100.0, rows), 2.25, 1e-9);
  EXPECT_THROW(StragglerSpreads(rows, 3), std::invalid_argument);  // a worker's rows missing
}

TEST(TlightsReport, MalformedCsvNamesFileAndLine) {
  try {
    ParseWorkerCsv("w.csv",
                   "job,rank,iteration,start_wall_s,compute_s,push_s,pull_s,end_wall_s,"
                   "loss\na,0,0,0,0,0,0,x,1\n");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("w.csv:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseWorkerCsv("w.csv", "nonsense\n"), InputError);
}

void WriteJob(const fs::path& dir, const std::string& name, double start,
              const std::vector<std::vector<double>>& ends) {
  fs::create_directories(dir);
  Json server;
  server["job"] = name;
  server["workers"] = ends.size();
  server["start_wall_s"] = start;
  WriteJsonFile((dir / "server.json").string(), server);
  for (size_t k = 0; k < ends.size(); ++k) {
    WriteFileAtomically((dir / ("worker" + std::to_string(k) + ".csv")).string(),
                        Csv(name, static_cast<int>(k), ends[k]));
  }
}

TEST(TlightsReport, WholeExperiment) {
  const fs::path dir =
      fs::temp_directory_path() / ("jigsaw_tlights_report_" + std::to_string(getpid()));
  fs::remove_all(dir);
  // fifo: both jobs end at 10 s with 1 s spreads; static: 5 s and 10 s, no spread.
  WriteJob(dir / "fifo/rep0/job0", "job0", 0, {{5, 10}, {4, 9}});
  WriteJob(dir / "fifo/rep0/job1", "job1", 0, {{5, 10}, {4, 9}});
  WriteJob(dir / "static/rep0/job0", "job0", 0, {{2.5, 5}, {2.5, 5}});
  WriteJob(dir / "static/rep0/job1", "job1", 0, {{7.5, 10}, {7.5, 10}});
  WriteJob(dir / "static/rep1/job0", "job0", 0, {{2.5, 7}, {2.5, 7}});
  WriteJob(dir / "static/rep1/job1", "job1", 0, {{7.5, 10}, {7.5, 10}});
  WriteJob(dir / "rotate-20s/rep0/job0", "job0", 0, {{5, 9}, {5, 9}});
  WriteJob(dir / "rotate-20s/rep0/job1", "job1", 0, {{5, 9}, {5, 9}});
  const std::vector<PolicyResult> results = AnalyzeExperiment(dir.string());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].policy, "rotate-20s");
  EXPECT_DOUBLE_EQ(results[2].avg_jct_s, 9);
  EXPECT_EQ(results[0].policy, "fifo");
  EXPECT_DOUBLE_EQ(results[0].avg_jct_s, 10);
  EXPECT_DOUBLE_EQ(results[0].mean_spread_s, 1);
  EXPECT_EQ(results[1].policy, "static");
  EXPECT_EQ(results[1].repetitions, 2);
  EXPECT_DOUBLE_EQ(results[1].job_jct_s[0], 6);
  EXPECT_DOUBLE_EQ(results[1].job_jct_s[1], 10);
  EXPECT_DOUBLE_EQ(results[1].avg_jct_s, 8);
  EXPECT_DOUBLE_EQ(results[1].mean_spread_s, 0);
  const Json json = ExperimentJson(results);
  EXPECT_DOUBLE_EQ(json["static"]["avg_jct_change_vs_fifo"].get<double>(), -0.2);
  const std::string table = ExperimentTable(results);
  // The run-to-run range next to each mean: static's repetitions average 7.5 and 8.5 s.
  EXPECT_NE(table.find("| static | 2 | 8.00 | 7.50-8.50 | -20.0% | 6.0 / 10.0 | 0.000 | "
                       "0.000-0.000 |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| fifo | 1 | 10.00 | 10.00-10.00 | +0.0% |"), std::string::npos) << table;
  EXPECT_EQ(json["static"]["rep_mean_straggler_spread_s"].size(), 2u);
  fs::remove_all(dir);
  EXPECT_THROW(AnalyzeExperiment(dir.string()), InputError);
}

}  // namespace
}  // namespace jigsaw::tlights
