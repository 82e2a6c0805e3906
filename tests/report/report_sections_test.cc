// The report's sections for d2r, faas-sim and faas-load, fl and serve-bench runs; one colour per
// run across every chart; notes instead of empty or one-point charts; sweep runs named by their
// axis values.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "report/report.h"
#include "report/run_colors.h"
#include "report/run_dir.h"
#include "report_test_util.h"

namespace jigsaw::report {
namespace {

const Chart* FindChart(const Report& report, const std::string& title_start) {
  for (const Section& s : report.sections) {
    for (const Chart& c : s.charts) {
      if (c.title.rfind(title_start, 0) == 0) return &c;
    }
  }
  return nullptr;
}

const Section* FindSection(const Report& report, const std::string& heading_start) {
  for (const Section& s : report.sections) {
    if (s.heading.rfind(heading_start, 0) == 0) return &s;
  }
  return nullptr;
}

bool AnyNote(const Section& section, const std::string& part) {
  for (const std::string& note : section.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

// Every colour scale keyed on "run" in `spec`, as run -> colour.
void CollectRunColours(const Json& spec, std::map<std::string, std::string>* colours,
                       bool* consistent) {
  if (spec.is_object()) {
    if (spec.contains("encoding") && spec["encoding"].contains("color") &&
        spec["encoding"]["color"].value("field", "") == "run") {
      const Json& scale = spec["encoding"]["color"]["scale"];
      for (size_t i = 0; i < scale["domain"].size(); ++i) {
        const std::string run = scale["domain"][i], colour = scale["range"][i];
        auto [it, inserted] = colours->emplace(run, colour);
        *consistent = *consistent && it->second == colour;
      }
    }
    for (const auto& [key, value] : spec.items()) CollectRunColours(value, colours, consistent);
  } else if (spec.is_array()) {
    for (const Json& item : spec) CollectRunColours(item, colours, consistent);
  }
}

TEST(ReportSections, DetectsEveryKind) {
  const auto dir = TempDir("every_kind");
  WriteD2rRun(dir / "d2r", 1);
  WriteFaasSimRun(dir / "faas-sim");
  WriteFaasLoadRun(dir / "faas-load");
  WriteFlRun(dir / "fl");
  WriteServeBenchRun(dir / "serve", 1);
  EXPECT_EQ(DetectRunKind((dir / "d2r").string()), RunKind::kD2r);
  EXPECT_EQ(DetectRunKind((dir / "faas-sim").string()), RunKind::kFaasSim);
  EXPECT_EQ(DetectRunKind((dir / "faas-load").string()), RunKind::kFaasLoad);
  EXPECT_EQ(DetectRunKind((dir / "fl").string()), RunKind::kFl);
  EXPECT_EQ(DetectRunKind((dir / "serve").string()), RunKind::kServeBench);
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, D2rRecoveryBothMetricsAndLosses) {
  const auto dir = TempDir("d2r");
  WriteD2rRun(dir / "a", 1);
  WriteD2rRun(dir / "b", 2);
  const Report report = BuildReport({(dir / "a").string(), (dir / "b").string()});
  const Chart* cdf = FindChart(report, "Recovery time CDF");
  ASSERT_NE(cdf, nullptr);
  std::set<std::string> panels;
  for (const Json& row : cdf->spec["data"]["values"]) panels.insert(row["panel"]);
  EXPECT_EQ(panels,
            (std::set<std::string>{"d2r: recovery", "d2r: bounded recovery", "controller: recovery",
                                   "controller: bounded recovery"}));
  ASSERT_NE(FindChart(report, "Median bounded recovery"), nullptr);
  const Chart* lost = FindChart(report, "Packets lost per scheme");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->spec["data"]["values"][0]["lost"], 21.0);    // 10 + 11 over the two scenarios
  EXPECT_EQ(report.metrics[1]["d2r_recovery_p50_us"], 300.0);  // 200 and 400
  EXPECT_EQ(report.metrics[0]["scenarios"], 2);
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, FaasSimAndLoadShareDeadlinesAndLatencyCdfsPerPlatform) {
  const auto dir = TempDir("faas");
  WriteFaasSimRun(dir / "sim");
  WriteFaasLoadRun(dir / "real");
  const Report report = BuildReport({(dir / "sim").string(), (dir / "real").string()});
  const Section* faas = FindSection(report, "Serverless");
  ASSERT_NE(faas, nullptr);
  const Chart* met = FindChart(report, "Requests that met their deadline");
  ASSERT_NE(met, nullptr);
  std::set<std::string> bars;
  for (const Json& row : met->spec["data"]["values"]) {
    bars.insert(row["run"].get<std::string>() + " " + row["platform"].get<std::string>());
  }
  EXPECT_EQ(bars, (std::set<std::string>{"sim archipelago", "sim openwhisk", "real openwhisk"}));
  const Chart* cdf = FindChart(report, "Request latency CDF per platform");
  ASSERT_NE(cdf, nullptr);
  EXPECT_EQ(cdf->spec["facet"]["field"], "platform");
  size_t real_points = 0;
  for (const Json& row : cdf->spec["data"]["values"]) real_points += row["run"] == "real";
  EXPECT_EQ(real_points, 3u);  // the answered requests only
  EXPECT_TRUE(AnyNote(*faas, "Measured nothing")) << faas->notes.size();
  EXPECT_TRUE(AnyNote(*faas, "sim sparrow"));
  EXPECT_EQ(report.metrics[0]["sparrow_measured"], 0);
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, FlAccuracyOverRoundsAndCohorts) {
  const auto dir = TempDir("fl");
  WriteFlRun(dir / "fl");
  const Report report = BuildReport({(dir / "fl").string()});
  const Chart* accuracy = FindChart(report, "Test accuracy over rounds");
  ASSERT_NE(accuracy, nullptr);
  EXPECT_EQ(accuracy->spec["data"]["values"].size(), 4u);  // 2 evaluated rounds x mean, worst
  ASSERT_NE(FindChart(report, "Cohorts over rounds"), nullptr);
  const Chart* clients = FindChart(report, "Clients per cohort");
  ASSERT_NE(clients, nullptr);
  EXPECT_EQ(clients->spec["data"]["values"][0]["clients"], 2.0);
  EXPECT_EQ(report.metrics[0]["cohorts"], 2);
  EXPECT_EQ(report.metrics[0]["algorithm"], "auxo+fedavg");
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, ServeBenchLatencyAgreementAndExitsPerLayer) {
  const auto dir = TempDir("serve");
  WriteServeBenchRun(dir / "knn", 1);
  WriteServeBenchRun(dir / "none", 2);
  const Report report = BuildReport({(dir / "knn").string(), (dir / "none").string()});
  ASSERT_NE(FindChart(report, "Request latency (ms)"), nullptr);
  const Chart* quality = FindChart(report, "Accuracy, and agreement");
  ASSERT_NE(quality, nullptr);
  for (const Json& row : quality->spec["data"]["values"]) EXPECT_EQ(row["measure"], "accuracy");
  const Chart* exits = FindChart(report, "Requests answered after k blocks");
  ASSERT_NE(exits, nullptr);
  EXPECT_EQ(exits->spec["data"]["values"].size(), 8u);
  EXPECT_DOUBLE_EQ(exits->spec["data"]["values"][0]["share"].get<double>(), 0.4);
  // answered_after_blocks[k] counts the requests answered after k blocks: the first bar is k = 0.
  EXPECT_EQ(exits->spec["data"]["values"][0]["blocks"], 0);
  EXPECT_FALSE(report.metrics[0].contains("agreement"));
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, OneColourPerRunAcrossEveryChart) {
  const auto dir = TempDir("colours");
  WriteSimRun(dir / "sim", 1);
  WriteTrainRun(dir / "train");
  WriteD2rRun(dir / "d2r", 1);
  WriteFaasSimRun(dir / "faas");
  WriteFlRun(dir / "fl");
  WriteServeBenchRun(dir / "serve", 1);
  const std::vector<std::string> args = {(dir / "sim").string(), (dir / "train").string(),
                                         (dir / "d2r").string(), (dir / "faas").string(),
                                         (dir / "fl").string(),  (dir / "serve").string()};
  const Report report = BuildReport(args);
  std::map<std::string, std::string> colours;
  bool consistent = true;
  size_t charts = 0;
  for (const Section& s : report.sections) {
    for (const Chart& c : s.charts) {
      CollectRunColours(c.spec, &colours, &consistent);
      ++charts;
    }
  }
  EXPECT_TRUE(consistent);
  EXPECT_GE(charts, 15u);
  ASSERT_EQ(colours.size(), 6u);  // every run got a colour, and a different one
  std::set<std::string> distinct;
  for (const auto& [run, colour] : colours) distinct.insert(colour);
  EXPECT_EQ(distinct.size(), 6u);
  EXPECT_EQ(colours["sim"], RunColors({"sim"}).Of("sim"));
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, OnePointLinesBecomeNotes) {
  const auto dir = TempDir("one_point");
  WriteTrainRun(dir / "t");
  WriteText(dir / "t/evals.csv", "iteration,epoch,samples,test_accuracy\n468,0,100,0.5\n");
  WriteNetRun(dir / "n", true);
  WriteText(dir / "n/timeseries/pfc.csv", "node,port,priority,start_us,end_us\n");
  const Report report = BuildReport({(dir / "t").string(), (dir / "n").string()});
  EXPECT_EQ(FindChart(report, "Test accuracy"), nullptr);
  const Section* train = FindSection(report, "Training");
  ASSERT_NE(train, nullptr);
  EXPECT_TRUE(AnyNote(*train, "Test accuracy: one point per line, not drawn (t: iteration 468"))
      << (train->notes.empty() ? "" : train->notes[0]);
  EXPECT_EQ(FindChart(report, "PFC pauses"), nullptr);
  const Section* net = FindSection(report, "Network");
  ASSERT_NE(net, nullptr);
  EXPECT_TRUE(AnyNote(*net, "no PFC pause in any run"));
  std::filesystem::remove_all(dir);
}

TEST(ReportSections, SweepRunsAreNamedByTheirAxisValues) {
  const auto dir = TempDir("sweep_names");
  WriteText(dir / "sweep/runs.csv",
            "run,status,--policy,--gpus,--trace,avg_jct_s\n"
            "fifo_t1-aaaa,complete,fifo,4,../x/t1.trace,1\n"
            "las_t1-bbbb,complete,las,4,../x/t1.trace,1\n"
            "fifo_t2-cccc,complete,fifo,4,../x/t2.trace,1\n");
  for (const char* run : {"fifo_t1-aaaa", "las_t1-bbbb", "fifo_t2-cccc"}) {
    WriteSimRun(dir / "sweep/runs" / run, 1);
  }
  const std::vector<RunDir> runs = ExpandRunDirs({(dir / "sweep").string()});
  std::set<std::string> names;
  for (const RunDir& run : runs) names.insert(run.name);
  EXPECT_EQ(names, (std::set<std::string>{"policy=fifo trace=t1", "policy=las trace=t1",
                                          "policy=fifo trace=t2"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw::report
