// Unit tests of the report's data extraction: CSV reading and its errors, CDF points,
// downsampling, kind detection, sweep expansion, and the specs and tables built from run folders.
#include "report/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "report/csv_table.h"
#include "report/run_dir.h"
#include "report/series.h"
#include "report_test_util.h"

namespace jigsaw::report {
namespace {

template <typename F>
InputError CatchInputError(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", 0, "");
}

TEST(EmpiricalCdf, SortsAndGivesRankFractions) {
  const Series cdf = EmpiricalCdf({3, 1, std::nan(""), 2}, 100);
  ASSERT_EQ(cdf.points.size(), 3u);
  EXPECT_EQ(cdf.source_points, 3u);
  EXPECT_FALSE(cdf.downsampled());
  EXPECT_DOUBLE_EQ(cdf.points[0].x, 1);
  EXPECT_DOUBLE_EQ(cdf.points[0].y, 1.0 / 3);
  EXPECT_DOUBLE_EQ(cdf.points[1].x, 2);
  EXPECT_DOUBLE_EQ(cdf.points[1].y, 2.0 / 3);
  EXPECT_DOUBLE_EQ(cdf.points[2].x, 3);
  EXPECT_DOUBLE_EQ(cdf.points[2].y, 1);
  EXPECT_TRUE(EmpiricalCdf({}, 10).points.empty());
}

TEST(EmpiricalCdf, DownsamplesKeepingTheExtremes) {
  std::vector<double> values;
  for (int i = 10000; i >= 1; --i) values.push_back(i);
  const Series cdf = EmpiricalCdf(values, 101);
  ASSERT_EQ(cdf.points.size(), 101u);
  EXPECT_TRUE(cdf.downsampled());
  EXPECT_DOUBLE_EQ(cdf.points.front().x, 1);
  EXPECT_DOUBLE_EQ(cdf.points.front().y, 1e-4);
  EXPECT_DOUBLE_EQ(cdf.points[50].x, 5001);  // rank 5000 of 0..9999
  EXPECT_DOUBLE_EQ(cdf.points.back().x, 10000);
  EXPECT_DOUBLE_EQ(cdf.points.back().y, 1);
  for (size_t i = 1; i < cdf.points.size(); ++i) {
    EXPECT_GT(cdf.points[i].x, cdf.points[i - 1].x);
    EXPECT_GT(cdf.points[i].y, cdf.points[i - 1].y);
  }
}

TEST(Downsample, BoundsPointsAndKeepsSpikes) {
  std::vector<Point> points;
  for (int i = 0; i < 10000; ++i) points.push_back({static_cast<double>(i), i == 4321 ? 1e6 : 1});
  points[7777].y = -5;
  const Series series = Downsample(points, 200);
  EXPECT_LE(series.points.size(), 200u);
  EXPECT_GE(series.points.size(), 100u);
  EXPECT_TRUE(series.downsampled());
  EXPECT_EQ(series.source_points, 10000u);
  bool spike = false, dip = false;
  for (size_t i = 0; i < series.points.size(); ++i) {
    spike |= series.points[i].x == 4321 && series.points[i].y == 1e6;
    dip |= series.points[i].x == 7777 && series.points[i].y == -5;
    if (i > 0) {
      EXPECT_GT(series.points[i].x, series.points[i - 1].x);
    }
  }
  EXPECT_TRUE(spike);
  EXPECT_TRUE(dip);
  const Series small = Downsample({{0, 1}, {1, 2}}, 200);
  EXPECT_EQ(small.points.size(), 2u);
  EXPECT_FALSE(small.downsampled());
  EXPECT_EQ(DownsampleNote({&small}, 200), "");
  EXPECT_EQ(DownsampleNote({&small, &series}, 200),
            " (downsampled to at most 200 points per line)");
}

TEST(StepCount, CountsOverlappingIntervals) {
  const std::vector<Point> steps = StepCount({{0, 10}, {5, 15}, {20, 20}});
  double peak = 0;
  for (const Point& p : steps) peak = std::max(peak, p.y);
  EXPECT_EQ(peak, 2);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().x, 15);
  EXPECT_EQ(steps.back().y, 0);
  EXPECT_EQ(steps.size(), 8u);  // the empty [20, 20) is dropped
}

TEST(CsvTable, ReadsQuotedFieldsAndEmptyNumbers) {
  const CsvTable table = CsvTable::Parse("t.csv", "a,b,c\n1,\"x, \"\"y\"\"\",\n\n2.5,z,3\n");
  ASSERT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.Cell(0, 1), "x, \"y\"");
  EXPECT_TRUE(std::isnan(table.Number(0, 2)));
  EXPECT_EQ(table.Number(1, 0), 2.5);
  EXPECT_EQ(table.Line(1), 4);
  EXPECT_TRUE(table.Has("c"));
  EXPECT_FALSE(table.Has("d"));
}

TEST(CsvTable, ErrorsNameFileLineAndColumn) {
  InputError e = CatchInputError([] { CsvTable::Parse("t.csv", "a,b\n1,2\n1,2,3\n"); });
  EXPECT_EQ(e.file(), "t.csv");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("expected 2 comma-separated fields"), std::string::npos);

  const CsvTable table = CsvTable::Parse("t.csv", "a,fct_us\n1,2\n1,fast\n");
  e = CatchInputError([&] { table.Number(1, 1); });
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("column 2 (fct_us): expected a finite number, got 'fast'"),
            std::string::npos)
      << e.message();
  e = CatchInputError([&] { table.Number(0, table.Column("bytes")); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_NE(e.message().find("expected a column 'bytes'"), std::string::npos);
  e = CatchInputError([] { CsvTable::Parse("t.csv", ""); });
  EXPECT_EQ(e.line(), 1);
  e = CatchInputError([] { CsvTable::Parse("t.csv", "a\n\"open\n"); });
  EXPECT_EQ(e.line(), 2);
  e = CatchInputError([] { CsvTable::Read("/nonexistent/flows.csv"); });
  EXPECT_EQ(e.file(), "/nonexistent/flows.csv");
}

TEST(RunDir, DetectsEachKind) {
  const auto dir = TempDir("kinds");
  WriteSimRun(dir / "sim", 1);
  WriteNetRun(dir / "net", false);
  WriteTrainRun(dir / "train");
  WriteText(dir / "sweep/runs.csv", "run\n");
  EXPECT_EQ(DetectRunKind((dir / "sim").string()), RunKind::kSim);
  EXPECT_EQ(DetectRunKind((dir / "net").string()), RunKind::kNet);
  EXPECT_EQ(DetectRunKind((dir / "train").string()), RunKind::kTrain);
  EXPECT_EQ(DetectRunKind((dir / "sweep").string()), RunKind::kSweep);
  std::filesystem::remove_all(dir);
}

TEST(RunDir, ClearErrorsForUnusableFolders) {
  const auto dir = TempDir("bad");
  InputError e = CatchInputError([&] { DetectRunKind((dir / "missing").string()); });
  EXPECT_EQ(e.file(), (dir / "missing").string());
  EXPECT_NE(e.message().find("does not exist"), std::string::npos);

  WriteText(dir / "odd/notes.txt", "x");
  e = CatchInputError([&] { DetectRunKind((dir / "odd").string()); });
  EXPECT_NE(e.message().find("expected a jigsaw run folder"), std::string::npos);
  EXPECT_NE(e.message().find("found notes.txt"), std::string::npos) << e.message();

  e = CatchInputError([&] { DetectRunKind((dir / "odd/notes.txt").string()); });
  EXPECT_NE(e.message().find("got a file"), std::string::npos);

  WriteSimRun(dir / "broken", 1);
  WriteText(dir / "broken/summary.json", "{\n  \"gpus\": 4,\n  oops\n}\n");
  e = CatchInputError([&] { ExpandRunDirs({(dir / "broken").string()}); });
  EXPECT_EQ(e.file(), (dir / "broken/summary.json").string());
  EXPECT_EQ(e.line(), 3);

  WriteSimRun(dir / "badjobs", 1);
  WriteText(dir / "badjobs/jobs.csv", "job_id,jct_s,rho,finish_s\n0,1,1,1\n1,x,1,1\n");
  e = CatchInputError([&] { BuildReport({(dir / "badjobs").string()}); });
  EXPECT_EQ(e.file(), (dir / "badjobs/jobs.csv").string());
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("(jct_s)"), std::string::npos);

  WriteText(dir / "emptysweep/runs.csv", "run\n");
  e = CatchInputError([&] { ExpandRunDirs({(dir / "emptysweep").string()}); });
  EXPECT_NE(e.message().find("run folders"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(RunDir, ExpandsSweepsAndNamesRunsUniquely) {
  const auto dir = TempDir("sweep");
  WriteText(dir / "sweep/runs.csv", "run,policy\nb,x\na,y\n");
  WriteSimRun(dir / "sweep/b", 1);
  WriteSimRun(dir / "sweep/a", 2);
  WriteNetRun(dir / "other/a", false);
  const std::vector<RunDir> runs =
      ExpandRunDirs({(dir / "sweep").string() + "/", (dir / "other/a").string()});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "sweep/a");
  EXPECT_EQ(runs[1].name, "b");
  EXPECT_EQ(runs[2].name, "other/a");
  EXPECT_EQ(runs[2].kind, RunKind::kNet);
  EXPECT_EQ(runs[0].summary["makespan_s"], 600.0);
  EXPECT_EQ(UniqueRunNames({"x/run/", "y/run", "z"}),
            (std::vector<std::string>{"x/run", "y/run", "z"}));
  std::filesystem::remove_all(dir);
}

const Chart* FindChart(const Report& report, const std::string& title_start) {
  for (const Section& s : report.sections) {
    for (const Chart& c : s.charts) {
      if (c.title.rfind(title_start, 0) == 0) return &c;
    }
  }
  return nullptr;
}

TEST(Report, SimChartsAndComparison) {
  const auto dir = TempDir("sim");
  WriteSimRun(dir / "one", 1);
  WriteSimRun(dir / "two", 2);
  const Report report = BuildReport({(dir / "one").string(), (dir / "two").string()});
  ASSERT_EQ(report.sections.size(), 1u);
  EXPECT_EQ(report.sections[0].charts.size(), 5u);
  const Chart* jct = FindChart(report, "JCT CDF");
  ASSERT_NE(jct, nullptr);
  const Json& values = jct->spec["data"]["values"];
  ASSERT_EQ(values.size(), 6u);  // 3 jobs x 2 runs
  EXPECT_EQ(values[0]["run"], "one");
  EXPECT_EQ(values[0]["jct_s"], 50.0);
  EXPECT_DOUBLE_EQ(values[2]["fraction"].get<double>(), 1.0);
  EXPECT_EQ(jct->spec["encoding"]["x"]["scale"]["type"], "log");
  // Running jobs from started/stopped ids: 2, then 1, then 1; pending = active - running.
  const Chart* jobs = FindChart(report, "Running and pending");
  ASSERT_NE(jobs, nullptr);
  std::vector<double> running, pending;
  for (const Json& row : jobs->spec["data"]["values"]) {
    if (row["run"] != "one") continue;
    (row["state"] == "running" ? running : pending).push_back(row["jobs"].get<double>());
  }
  EXPECT_EQ(running, (std::vector<double>{2, 1, 1}));
  EXPECT_EQ(pending, (std::vector<double>{0, 1, 0}));
  const Chart* util = FindChart(report, "GPU utilisation");
  ASSERT_NE(util, nullptr);
  EXPECT_DOUBLE_EQ(util->spec["data"]["values"][0]["utilisation"].get<double>(), 0.75);

  const std::string csv = ComparisonCsv(report);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "run,kind,path,policy,gpus,jobs,makespan_s,avg_jct_s,worst_ftf_rho,"
            "cluster_efficiency");
  EXPECT_NE(csv.find("two,sim," + (dir / "two").string() + ",p,4,3,600.0,150.0,1.5,0.6"),
            std::string::npos)
      << csv;
  const std::string md = ComparisonMarkdown(report);
  EXPECT_EQ(md.substr(0, md.find('\n')), "## sim runs");
  EXPECT_NE(md.find("| one | p | 4 | 3 | 300.0 | 150.0 | 1.5 | 0.6 |"), std::string::npos) << md;
  std::filesystem::remove_all(dir);
}

TEST(Report, NetChartsSkipMissingTimeSeriesWithANote) {
  const auto dir = TempDir("net");
  WriteNetRun(dir / "plain", false);
  WriteNetRun(dir / "full", true);
  const Report report = BuildReport({(dir / "plain").string(), (dir / "full").string()});
  ASSERT_EQ(report.sections.size(), 1u);
  const Section& net = report.sections[0];
  ASSERT_EQ(net.charts.size(), 5u);
  ASSERT_EQ(net.notes.size(), 3u);
  EXPECT_NE(net.notes[0].find("no slowdown column in flows.csv of plain"), std::string::npos);
  EXPECT_NE(net.notes[1].find("no timeseries/queue.csv in plain"), std::string::npos);
  const Chart* fct = FindChart(report, "FCT CDF by flow size");
  ASSERT_NE(fct, nullptr);
  EXPECT_EQ(fct->spec["facet"]["field"], "size");
  EXPECT_EQ(fct->spec["data"]["values"].size(), 6u);  // 3 finished flows x 2 runs
  std::set<std::string> buckets;
  for (const Json& row : fct->spec["data"]["values"]) buckets.insert(row["size"]);
  EXPECT_EQ(buckets, (std::set<std::string>{"< 10 KB", "100 KB - 1 MB"}));
  const Chart* queue = FindChart(report, "Largest port queue");
  ASSERT_NE(queue, nullptr);
  const Json& q = queue->spec["data"]["values"];
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0]["queue_bytes"], 3000.0);
  EXPECT_EQ(q[1]["queue_bytes"], 500.0);
  const Chart* ports = FindChart(report, "Queue of the 8 ports");
  ASSERT_NE(ports, nullptr);
  const Json& port_rows = ports->spec["data"]["values"];
  ASSERT_EQ(port_rows.size(), 3u);
  EXPECT_EQ(port_rows[0]["port"], "node 4 port 1");  // the larger peak first
  EXPECT_EQ(port_rows[1]["port"], "node 4 port 0");
  EXPECT_EQ(port_rows[2]["queue_bytes"], 500.0);
  const Chart* pfc = FindChart(report, "PFC pauses");
  ASSERT_NE(pfc, nullptr);
  double peak = 0;
  for (const Json& row : pfc->spec["data"]["values"])
    peak = std::max(peak, row["paused"].get<double>());
  EXPECT_EQ(peak, 2);
  EXPECT_EQ(report.metrics[1]["pfc_pauses"], 2);
  EXPECT_EQ(report.metrics[1]["pfc_pause_total_us"], 5.0);
  EXPECT_EQ(report.metrics[1]["mean_slowdown"], 2.0);
  EXPECT_EQ(report.metrics[0]["flows"], 4);
  EXPECT_EQ(report.metrics[0]["flows_finished"], 3);
  EXPECT_EQ(FlowSizeBucket(9999), "< 10 KB");
  EXPECT_EQ(FlowSizeBucket(1e6), "1 MB - 10 MB");
  std::filesystem::remove_all(dir);
}

TEST(Report, TrainCharts) {
  const auto dir = TempDir("train");
  WriteTrainRun(dir / "t");
  const Report report = BuildReport({(dir / "t").string()});
  ASSERT_EQ(report.sections.size(), 1u);
  EXPECT_EQ(report.sections[0].charts.size(), 4u);
  const Chart* loss = FindChart(report, "Training loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_DOUBLE_EQ(loss->spec["data"]["values"][0]["loss"].get<double>(), 2.05);
  const Chart* backward = FindChart(report, "Mean backward time per worker");
  ASSERT_NE(backward, nullptr);
  EXPECT_DOUBLE_EQ(backward->spec["data"]["values"][1]["backward_s"].get<double>(), 0.03);
  EXPECT_EQ(report.metrics[0]["workers"], 2);
  EXPECT_EQ(report.metrics[0]["final_accuracy"], 0.5);
  std::filesystem::remove_all(dir);
}

TEST(Report, HtmlInlinesBundleAndSpecs) {
  const auto dir = TempDir("html");
  WriteSimRun(dir / "x<!--y", 1);
  const Report report = BuildReport({(dir / "x<!--y").string()});
  const std::string html = ReportHtml(report);
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);  // nothing loaded from the network
  EXPECT_NE(html.find("id=\"chart-4\""), std::string::npos);
  EXPECT_NE(html.find("x\\u003c!--y"), std::string::npos);  // escaped inside the JSON
  EXPECT_NE(html.find("x&lt;!--y"), std::string::npos);     // escaped in the table
  EXPECT_NE(html.find("Copyright (c) 2015"), std::string::npos);
  EXPECT_NE(html.find("vega-lite 6.5.0"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw::report
