// `jigsaw faas-sim` end to end: outputs in --out, byte-identical reruns, and exit 2 with file:line
// for a malformed DAG file and with the option's name for bad options; the real platform's and
// faas-load's option checks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

struct Result {
  int status;
  std::string stdout_text;
  std::string stderr_text;
};

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("jigsaw_faas_cli_" + name + "_" + std::to_string(getpid())))
      .string();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Result RunJigsaw(const std::string& args) {
  const std::string out = TempPath("stdout.txt"), err = TempPath("stderr.txt");
  const std::string command = std::string(JIGSAW_BINARY) + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(command.c_str());
  return {WEXITSTATUS(raw), Slurp(out), Slurp(err)};
}

Result RunCli(const std::string& args) { return RunJigsaw("faas-sim " + args); }

// `jigsaw ARGS` is refused with exit status 2 and `fragment` in its error message.
void ExpectExit2With(const std::string& args, const std::string& fragment) {
  const Result r = RunJigsaw(args);
  EXPECT_EQ(r.status, 2) << args;
  EXPECT_NE(r.stderr_text.find(fragment), std::string::npos) << args << "\n" << r.stderr_text;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

// Every request arrives before a 1000 s warm-up ends: each platform measured nothing, says so
// on stderr (also with --quiet), shows 0 in the measured column, and the run still exits 0. The
// default warm-up (auto, a tenth of the arrival span) measures most of the same run.
TEST(FaasSimCli, NothingMeasuredWarnsAndExitsZero) {
  const std::string out = TempPath("unmeasured"), auto_out = TempPath("auto_warmup");
  const std::string args =
      "--apps 10 --cores 32 --cores-per-worker 8 --workers-per-sgs 2 --worker-memory 16GiB "
      "--requests 400 --load 0.5 --platforms archipelago,openwhisk --quiet ";
  const Result r = RunCli(args + "--warmup 1000s --out " + out);
  EXPECT_EQ(r.status, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("faas-sim: warning: archipelago/rlsf measured no request"),
            std::string::npos)
      << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("openwhisk"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--warmup 1000s"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("measured"), std::string::npos) << r.stdout_text;
  const std::string csv = Slurp(out + "/results.csv");
  EXPECT_EQ(csv.find("platform,policy,requests,completed,failed,lost,measured,"), 0u) << csv;
  EXPECT_NE(csv.find("archipelago,rlsf,400,400,0,0,0,"), std::string::npos) << csv;

  const Result automatic = RunCli(args + "--out " + auto_out);
  EXPECT_EQ(automatic.status, 0) << automatic.stderr_text;
  EXPECT_EQ(automatic.stderr_text.find("warning"), std::string::npos) << automatic.stderr_text;
  const auto summary = nlohmann::json::parse(Slurp(auto_out + "/summary.json"));
  EXPECT_EQ(summary["inputs"]["warmup"], "auto");
  EXPECT_NEAR(summary["inputs"]["warmup_s"].get<double>(),
              0.1 * summary["inputs"]["expected_arrival_span_s"].get<double>(), 0.01);
  for (const auto& result : summary["results"]) {
    EXPECT_GT(result["measured"].get<int>(), 300) << result.dump();
    EXPECT_FALSE(result["latency_quantiles_ms"].empty());
  }
  std::filesystem::remove_all(out);
  std::filesystem::remove_all(auto_out);
}

TEST(FaasSimCli, WritesSummaryAndCsvDeterministically) {
  const std::string out1 = TempPath("out1"), out2 = TempPath("out2");
  const std::string args =
      "--apps 30 --cores 64 --cores-per-worker 8 --workers-per-sgs 2 --worker-memory 16GiB "
      "--requests 5000 --warmup 1s --load 0.5 --policies lsf,edf --quiet --out ";
  const Result first = RunCli(args + out1);
  ASSERT_EQ(first.status, 0) << first.stderr_text;
  const Result second = RunCli(args + out2);
  ASSERT_EQ(second.status, 0) << second.stderr_text;
  EXPECT_EQ(Slurp(out1 + "/summary.json"), Slurp(out2 + "/summary.json"));
  EXPECT_EQ(Slurp(out1 + "/results.csv"), Slurp(out2 + "/results.csv"));
  const auto summary = nlohmann::json::parse(Slurp(out1 + "/summary.json"));
  ASSERT_EQ(summary["results"].size(), 4u);  // archipelago lsf + edf, openwhisk, sparrow
  EXPECT_EQ(summary["results"][0]["platform"], "archipelago");
  EXPECT_EQ(summary["results"][1]["policy"], "edf");
  for (const auto& r : summary["results"]) {
    EXPECT_EQ(r["requests"], 5000);
    EXPECT_EQ(r["lost"], 0);
    EXPECT_EQ(r["completed"].get<int>() + r["failed"].get<int>(), 5000);
  }
  EXPECT_NE(first.stdout_text.find("openwhisk"), std::string::npos);
  std::filesystem::remove_all(out1);
  std::filesystem::remove_all(out2);
}

TEST(FaasSimCli, MalformedDagFileIsExit2WithFileAndLine) {
  const std::string dags = WriteFile("cycle.json", R"({
  "format": "jigsaw-faas-dags-v1",
  "dags": [
    {"name": "a", "deadline": "100ms", "functions": [{"name": "x", "duration": "1ms"}]},
    {"name": "b", "deadline": "100ms", "functions": [
      {"name": "x", "duration": "1ms", "after": ["y"]},
      {"name": "y", "duration": "1ms", "after": ["x"]}]}
  ]
})");
  const Result r = RunCli("--dags " + dags + " --out " + TempPath("bad"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.stderr_text.find(dags + ":5:"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("cycle"), std::string::npos) << r.stderr_text;
  std::filesystem::remove(dags);
}

TEST(FaasSimCli, RunsADagFileAndRefusesBadOptions) {
  const std::string dags = WriteFile("ok.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "thumb", "deadline": "300ms", "rate": 200, "functions": [
      {"name": "fetch", "duration": "10ms"}, {"name": "resize", "duration": "30ms",
       "after": ["fetch"]}]}]})");
  const std::string out = TempPath("dagfile");
  const Result ok = RunCli("--dags " + dags +
                           " --cores 32 --cores-per-worker 8 --requests 3000 --quiet "
                           "--platforms archipelago,openwhisk --kill 1@3s --out " +
                           out);
  ASSERT_EQ(ok.status, 0) << ok.stderr_text;
  const auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["inputs"]["request_rate_per_s"], 200.0);
  EXPECT_EQ(summary["results"].size(), 2u);
  // One per-DAG row per platform (the DAG had measured requests on both).
  const std::string per_dag = Slurp(out + "/per_dag.csv");
  EXPECT_EQ(per_dag.rfind("platform,policy,dag,trigger,functions,rate_per_s,offered_cores,", 0),
            0u);
  EXPECT_NE(per_dag.find("\narchipelago,rlsf,thumb,"), std::string::npos) << per_dag;
  EXPECT_NE(per_dag.find("\nopenwhisk,fifo,thumb,"), std::string::npos) << per_dag;
  // Per DAG and burst period: thumb offers 8 of the 32 cores, so every period has a row (the
  // warm-up period 0 too), with 2,000 arrivals in the first 10 s (200/s).
  const std::string per_period = Slurp(out + "/per_dag_period.csv");
  EXPECT_EQ(per_period.rfind("platform,policy,dag,period_start_s,arrived,offered_cores,sgs,", 0),
            0u);
  EXPECT_NE(per_period.find("\narchipelago,rlsf,thumb,0.0,"), std::string::npos) << per_period;
  EXPECT_NE(per_period.find("\narchipelago,rlsf,thumb,10.0,"), std::string::npos) << per_period;
  EXPECT_NE(per_period.find("\nopenwhisk,fifo,thumb,0.0,"), std::string::npos) << per_period;
  std::filesystem::remove_all(out);

  EXPECT_EQ(RunCli("--out " + out + " --platforms lambda").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --policies sjf").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --warmup soon").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --kill x@1s").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --load 0").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --duration-model long").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --ow-unpause-cost soon").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --invoker-memory 0").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --ow-stem-cells 65").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --ow-stem-cell-memory 0").status, 2);
  EXPECT_EQ(RunCli("--out " + out + " --ow-stem-cell-memory 40GiB").status, 2);  // 2 x 40 > 64
  EXPECT_EQ(RunCli("--out " + out + " --ow-stem-cell-init-share 1.5").status, 2);
  ExpectExit2With("faas-sim --out " + out + " --platforms archipelago,sparrow --ow-stem-cells 2",
                  "apply to the openwhisk platform only");
  EXPECT_EQ(RunCli("--out " + out + " --worker-memory 1KB --apps 5 --requests 10").status, 2);
  const Result missing = RunCli("--dags /nonexistent/dags.json --out " + out);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.stderr_text.find("/nonexistent/dags.json"), std::string::npos);
  std::filesystem::remove(dags);
}

TEST(FaasSimCli, MeasuredDurationsAndDispatchOverhead) {
  const std::string dags = WriteFile("measured.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "thumb", "deadline": "300ms", "rate": 20, "functions": [
      {"name": "fetch", "duration": "10ms"}]}]})");
  const std::string durations = WriteFile("durations.csv",
                                          "dag,function,quantile,duration\n"
                                          "thumb,fetch,0,4ms\n"
                                          "thumb,fetch,1,4ms\n");
  const std::string out = TempPath("measured");
  const std::string common = "--dags " + dags +
                             " --cores 8 --cores-per-worker 4 --requests 500 --warmup 10s "
                             "--platforms archipelago --quiet --durations ";
  const Result ok = RunCli(common + durations + " --dispatch-overhead 1ms --out " + out);
  ASSERT_EQ(ok.status, 0) << ok.stderr_text;
  const auto summary = nlohmann::json::parse(Slurp(out + "/summary.json"));
  EXPECT_EQ(summary["inputs"]["durations"], durations);
  EXPECT_EQ(summary["results"][0]["p50_ms"], 5.0);  // 4 ms, always, + 1 ms dispatch
  EXPECT_EQ(summary["results"][0]["max_ms"], 5.0);
  std::filesystem::remove_all(out);

  const std::string bad = WriteFile("bad_durations.csv",
                                    "dag,function,quantile,duration\n"
                                    "thumb,fetch,0,4ms\n"
                                    "thumb,resize,1,4ms\n");
  const Result refused = RunCli(common + bad + " --out " + out);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.stderr_text.find(bad + ":3:"), std::string::npos) << refused.stderr_text;
  EXPECT_EQ(RunCli(common + durations + " --dispatch-overhead soon --out " + out).status, 2);
  EXPECT_EQ(RunCli(common + "/nonexistent/d.csv --out " + out).status, 2);
  std::filesystem::remove(dags);
  std::filesystem::remove(durations);
  std::filesystem::remove(bad);
}

}  // namespace

// The real platform's and faas-load's options that are refused before anything starts: the
// OpenWhisk-like invoker memory (openwhisk only, at least every function's memory), Sparrow's
// probes (sparrow only, 1..8), an unknown platform, and bursty arrivals' sigma and period.
TEST(FaasRealCli, RefusesBadInvokerMemoryAndBurstOptions) {
  const std::string dags = WriteFile("real.json", R"({"format": "jigsaw-faas-dags-v1", "dags": [
    {"name": "h", "deadline": "1s", "functions": [
      {"name": "f", "duration": "5ms", "code": "sha256:1KiB", "memory": "100MB"}]}]})");
  const std::string faas = "faas --dags " + dags + " --port 0 ";
  ExpectExit2With(faas + "--platform openwhisk --invoker-memory 50MB",
                  "more memory than --invoker-memory 50MB");
  ExpectExit2With(faas + "--platform openwhisk --invoker-memory lots", "--invoker-memory 'lots'");
  ExpectExit2With(faas + "--invoker-memory 1GB", "openwhisk only");
  ExpectExit2With(faas + "--ow-pause-grace 1s", "--ow-pause-grace applies to --platform openwhisk");
  ExpectExit2With(faas + "--platform openwhisk --ow-unpause-cost soon", "--ow-unpause-cost 'soon'");
  ExpectExit2With(faas + "--sparrow-probes 2", "--sparrow-probes applies to --platform sparrow");
  for (const std::string bad : {"0", "9", "two"}) {
    ExpectExit2With(faas + "--platform sparrow --sparrow-probes " + bad,
                    "--sparrow-probes '" + bad + "': expected 1..8");
  }
  ExpectExit2With(faas + "--platform sparrows", "expected archipelago, openwhisk or sparrow");
  const std::string load = "faas-load --dags " + dags + " --port 1 --out " + TempPath("load") + " ";
  ExpectExit2With(load + "--burst-sigma 9", "--burst-sigma");
  ExpectExit2With(load + "--burst-period 0s", "--burst-period '0s'");
  std::filesystem::remove(dags);
}
