// `jigsaw train` end to end: real worker processes, Gloo over TCP, fault handling.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/output.h"
#include "core/text_input.h"
#include "runtime/model_spec.h"
#include "runtime/models.h"
#include "spb/cost_model.h"

namespace {

struct JigsawRun {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

JigsawRun RunJigsaw(const std::string& args) {
  JigsawRun run;
  auto start = std::chrono::steady_clock::now();
  std::string command = std::string(JIGSAW_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

std::string TinyJob(const std::string& out, int epochs = 1) {
  std::filesystem::remove_all(out);
  return "train --model mlp --dataset synthetic --synthetic-train 512 --synthetic-test 64 "
         "--synthetic-size 8 --workers 2 --batch 8 --quiet --epochs " +
         std::to_string(epochs) + " --out " + out;
}

std::string TempDir(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("jigsaw_runtime_cli_" + name + "_" + std::to_string(getpid())))
      .string();
}

std::vector<std::string> SplitCommas(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

// Median over the rows of `column`, or of column / `divisor_column` row by row.
double MedianColumn(const std::string& csv_path, const std::string& column,
                    const std::string& divisor_column = "") {
  std::istringstream in(jigsaw::ReadWholeFile(csv_path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = SplitCommas(line);
  const size_t index = std::find(header.begin(), header.end(), column) - header.begin();
  const size_t divisor = std::find(header.begin(), header.end(), divisor_column) - header.begin();
  std::vector<double> values;
  while (std::getline(in, line)) {
    std::vector<std::string> fields = SplitCommas(line);
    if (index >= fields.size()) continue;
    values.push_back(std::stod(fields[index]) /
                     (divisor < fields.size() ? std::stod(fields[divisor]) : 1.0));
  }
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

TEST(RuntimeTrainCli, TwoProcessesTrainAndWriteSummary) {
  const std::string out = TempDir("ok");
  JigsawRun run = RunJigsaw(TinyJob(out) + " --spb rotating --max-iters-per-epoch 8");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/iterations.csv"));
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  // The TCP payload the workers' sockets carried matches the estimate (Gloo adds a small header
  // per message). Medians over rows: a row's acknowledged bytes can include late
  // acknowledgements of earlier traffic (the initial parameter broadcast), which a short run's
  // mean would not average out.
  EXPECT_GT(summary["bytes_sent_per_iter"].get<double>(), 0);
  const std::string csv = out + "/iterations.csv";
  EXPECT_NEAR(MedianColumn(csv, "wire_sent", "bytes_sent"), 1.0, 0.1);
  EXPECT_NEAR(MedianColumn(csv, "wire_received", "bytes_received"), 1.0, 0.1);
  // The busiest rank comes first, next to the means.
  EXPECT_GE(summary["max_rank_backward_s"].get<double>(), summary["mean_backward_s"].get<double>());
  EXPECT_GT(summary["max_rank_activation_mb"].get<double>(), 0);
  EXPECT_GE(summary["max_rank_wire_bytes_per_iter"].get<double>(),
            summary["wire_sent_per_iter"].get<double>());
}

// Not quiet: a line per epoch and, at the end, the result summary naming the files written; the
// global -q before the subcommand silences them (the run still succeeds).
TEST(RuntimeTrainCli, ResultSummaryUnlessQuiet) {
  const std::string out = TempDir("summary");
  std::string args = TinyJob(out) + " --max-iters-per-epoch 4";
  args.replace(args.find(" --quiet"), 8, "");
  JigsawRun run = RunJigsaw(args);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("train: epoch 1/1: test accuracy"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("files written:"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(out + "/iterations.csv"), std::string::npos) << run.output;
  run = RunJigsaw("-q " + args);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "");
}

TEST(RuntimeTrainCli, FrozenBlocksExchangeNoBytes) {
  // The MLP's blocks hold 16,640 / 32,896 / 8,256 / 650 parameter bytes... x 4; freeze:1 trains
  // only the 650-parameter head, so only its 2,600 bytes (padded to whole floats per worker)
  // may travel: 2 (N-1)/N x 2,600 per worker.
  const std::string frozen = TempDir("frozen_bytes");
  JigsawRun run = RunJigsaw(TinyJob(frozen) + " --spb freeze:1 --max-iters-per-epoch 8");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(frozen + "/summary.json"));
  EXPECT_DOUBLE_EQ(summary["bytes_sent_per_iter"].get<double>(), 2 * 0.5 * 2600);
  // Measured (median over iterations: the first one also sees the late acknowledgements of the
  // initial parameter broadcast): the head's bytes plus Gloo's per-message headers, nothing of
  // the frozen blocks.
  EXPECT_LT(MedianColumn(frozen + "/iterations.csv", "wire_sent"), 2600 + 1024);
  const std::string full = TempDir("full_bytes");
  ASSERT_EQ(RunJigsaw(TinyJob(full) + " --spb full --max-iters-per-epoch 8").exit_code, 0);
  jigsaw::Json full_summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(full + "/summary.json"));
  EXPECT_GT(full_summary["wire_sent_per_iter"].get<double>(), 50 * 2600);
  // Frozen blocks hold no gradient or momentum buffers.
  EXPECT_LT(summary["max_rank_state_mb"].get<double>() * 20,
            full_summary["max_rank_state_mb"].get<double>());
}

TEST(RuntimeTrainCli, ReplicaChecksumMismatchFailsTheJobLoudly) {
  const std::string out = TempDir("corrupt");
  JigsawRun run = RunJigsaw(TinyJob(out) + " --max-iters-per-epoch 3 --corrupt-rank 1");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("replica checksum mismatch after epoch 1"), std::string::npos)
      << run.output;
  // A healthy job passes the same check.
  EXPECT_EQ(RunJigsaw(TinyJob(out) + " --max-iters-per-epoch 3").exit_code, 0);
}

TEST(RuntimeTrainCli, AdaptivePlanFreezesBlocksAndLogsEveryDecision) {
  const std::string out = TempDir("adaptive");
  // Thresholds that make every block a freeze candidate at every decision after the reference:
  // one block freezes per decision (the top one never does), then only the head trains.
  JigsawRun run = RunJigsaw(TinyJob(out) +
                            " --max-iters-per-epoch 16 --spb adaptive --spb-warmup 0 "
                            "--spb-window 4 --spb-freeze-below 50 --spb-full-above 60 "
                            "--spb-patience 1 --spb-signal plasticity --spb-span 3 "
                            "--spb-min-trained-blocks 1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string decisions = jigsaw::ReadWholeFile(out + "/decisions.csv");
  EXPECT_NE(decisions.find("7,0,2-2-2-2,1.000-1.000-1.000-1.000,reference window"),
            std::string::npos)
      << decisions;
  EXPECT_NE(decisions.find("11,1,0-2-2-2,"), std::string::npos) << decisions;
  EXPECT_NE(decisions.find("15,2,0-0-2-2,"), std::string::npos) << decisions;
  std::string csv = jigsaw::ReadWholeFile(out + "/iterations.csv");
  // Iterations 12..15 run partial backpropagation: contributors 0-2-2-2, depth 3; before the first
  // freeze every worker trained every block.
  EXPECT_NE(csv.find("\n0,0,12,spb,3,0-2-2-2,"), std::string::npos) << csv.substr(0, 600);
  EXPECT_NE(csv.find("\n0,0,0,full,4,2-2-2-2,"), std::string::npos) << csv.substr(0, 600);
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  EXPECT_EQ(summary["final_frozen_blocks"], 2);
}

TEST(RuntimeTrainCli, AdaptiveCoherenceFreezesTheSettledPrefixAtOnceAndLogsTheSignal) {
  const std::string out = TempDir("coherence");
  // A mark above 1 (coherence never exceeds 1): every block below the top is settled at the
  // first decision after the warm-up, and they freeze together.
  JigsawRun run = RunJigsaw(TinyJob(out) +
                            " --max-iters-per-epoch 16 --spb adaptive --spb-signal coherence "
                            "--spb-warmup 0 --spb-window 4 --spb-freeze-below 1.01 "
                            "--spb-patience 1 --spb-span 1 --spb-min-trained-blocks 1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string decisions = jigsaw::ReadWholeFile(out + "/decisions.csv");
  const size_t at = decisions.find("\n7,3,0-0-0-2,");
  ASSERT_NE(at, std::string::npos) << decisions;
  EXPECT_NE(decisions.find("froze blocks 0-2: coherence", at), std::string::npos) << decisions;
  // The logged coherences are in (0, 1].
  std::istringstream line(decisions.substr(at + std::string("\n7,3,0-0-0-2,").size()));
  std::string signal;
  std::getline(line, signal, ',');
  std::istringstream values(signal);
  std::string value;
  int count = 0;
  while (std::getline(values, value, '-')) {
    const double v = std::stod(value);
    EXPECT_GT(v, 0) << signal;
    EXPECT_LE(v, 1) << signal;
    ++count;
  }
  EXPECT_EQ(count, 4) << signal;
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  EXPECT_EQ(summary["final_frozen_blocks"], 3);
  // Coherence decides freezes only: other structures are a usage error.
  run = RunJigsaw(TinyJob(out) + " --spb adaptive --spb-signal coherence --spb-structure rotating");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--spb-signal coherence needs --spb-structure freeze"),
            std::string::npos)
      << run.output;
}

TEST(RuntimeTrainCli, AdaptiveDefaultsFreezeAfterAWarmupGivenAsAShareOfTheRun) {
  const std::string out = TempDir("adaptive_defaults");
  // Only the window and the mark are given (a mark above 1: every block is settled at once);
  // the signal is coherence, the three top blocks keep training. A warm-up of a quarter of the 16
  // iterations ends after iteration 3; the first decision comes a window later.
  JigsawRun run = RunJigsaw(TinyJob(out) +
                            " --max-iters-per-epoch 16 --spb adaptive --spb-window 4 "
                            "--spb-freeze-below 1.01 --spb-warmup-fraction 0.25");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string decisions = jigsaw::ReadWholeFile(out + "/decisions.csv");
  EXPECT_NE(decisions.find("\n7,1,0-2-2-2,"), std::string::npos) << decisions;
  EXPECT_NE(decisions.find("coherence"), std::string::npos) << decisions;
  // Epochs and a fraction together are a usage error.
  run = RunJigsaw(TinyJob(out) + " --spb adaptive --spb-warmup 1 --spb-warmup-fraction 0.5");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  run = RunJigsaw(TinyJob(out) + " --spb adaptive --spb-warmup-fraction 1.5");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--spb-warmup-fraction"), std::string::npos) << run.output;
}

// Two "hosts" (network namespaces joined by a veth pair, no shared loopback): each rank must
// advertise the address its peer can reach, not its hostname's (which resolves to loopback).
TEST(RuntimeTrainCli, TwoHostsInNetworkNamespacesTrainTogether) {
  const std::string tag = std::to_string(getpid() % 100000);
  const std::string a = "jigsaw-mh-a-" + tag, b = "jigsaw-mh-b-" + tag;
  auto sh = [](const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str());
  };
  if (sh("ip netns add " + a) != 0) {
    GTEST_SKIP() << "cannot create network namespaces here (needs root or CAP_NET_ADMIN and ip)";
  }
  const bool ok =
      sh("ip netns add " + b) == 0 &&
      sh("ip -n " + a + " link add mh0 type veth peer name mh1 netns " + b) == 0 &&
      sh("ip -n " + a + " addr add 10.77.0.1/24 dev mh0") == 0 &&
      sh("ip -n " + b + " addr add 10.77.0.2/24 dev mh1") == 0 &&
      sh("ip -n " + a + " link set mh0 up") == 0 && sh("ip -n " + b + " link set mh1 up") == 0 &&
      sh("ip -n " + a + " link set lo up") == 0 && sh("ip -n " + b + " link set lo up") == 0;
  if (ok) {
    const std::string out = TempDir("two_hosts");
    std::filesystem::remove_all(out);
    const std::string token = TempDir("two_hosts_token");
    std::ofstream(token) << "00112233445566778899aabbccddeeff\n";  // copied to both "hosts"
    const std::string job = std::string(JIGSAW_BINARY) +
                            " train --model mlp --dataset synthetic --synthetic-train 256 "
                            "--synthetic-test 64 --synthetic-size 8 --batch 8 --epochs 1 "
                            "--max-iters-per-epoch 4 --quiet --timeout-s 20 --world 2 "
                            "--master 10.77.0.1:29611 --token-file " +
                            token + " --out " + out;
    const std::string both = "ip netns exec " + a + " " + job + " --rank 0 & p=$!; " +
                             "ip netns exec " + b + " " + job + " --rank 1; r1=$?; wait $p; " +
                             "exit $(( $? | r1 ))";
    JigsawRun run;
    FILE* pipe = popen(("sh -c '" + both + "' 2>&1").c_str(), "r");
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
    const int status = pclose(pipe);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << run.output;
    EXPECT_TRUE(std::filesystem::exists(out + "/summary.json")) << run.output;
    std::filesystem::remove(token);
  }
  sh("ip netns del " + a);
  sh("ip netns del " + b);
  EXPECT_TRUE(ok) << "could not wire the two namespaces";
}

TEST(RuntimeTrainCli, ARankWithoutTheJobTokenIsAUsageError) {
  JigsawRun run = RunJigsaw(
      "train --model mlp --dataset synthetic --quiet --rank 1 --world 2 --master 127.0.0.1:9");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--token-file is required with --rank"), std::string::npos)
      << run.output;
}

TEST(RuntimeTrainCli, KilledWorkerFailsTheJobWithinTheTimeout) {
  const std::string out = TempDir("fault");
  JigsawRun run =
      RunJigsaw(TinyJob(out) + " --spb full --timeout-s 5 --kill-rank 1 --kill-at-iter 3");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("worker 1 was killed by signal 9"), std::string::npos) << run.output;
}

TEST(RuntimeTrainCli, ResumeAfterAKilledWorkerFinishesTheJob) {
  const std::string out = TempDir("kill_resume");
  const std::string job = TinyJob(out, 3) + " --spb staircase --max-iters-per-epoch 4";
  JigsawRun killed = RunJigsaw(job + " --timeout-s 5 --kill-rank 0 --kill-at-iter 9");
  ASSERT_NE(killed.exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(
      out + "/checkpoint.pt"));  // after epochs 1 and 2
                                 // Outputs of the finished epochs survive the failure.
  EXPECT_EQ(jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"))["epochs_done"], 2);
  JigsawRun resumed = RunJigsaw(job + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"));
  EXPECT_EQ(summary["resumed_from_epoch"], 2);
  EXPECT_EQ(summary["epoch_test_accuracy"].size(), 3u);
  std::string csv = jigsaw::ReadWholeFile(out + "/iterations.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2 * 4);
}

// The checkpoint is one file of each epoch's output set: rank 0 killed right after each step of
// epoch 2's commit (the checkpoint staged, the folder's other files carried over, the swap) leaves
// a folder wholly at epoch 1 or wholly at epoch 2, which --resume continues; a folder whose
// summary.json and checkpoint.pt disagree is refused with a message naming both epochs.
TEST(RuntimeTrainCli, KillDuringTheOutputCommitLeavesAConsistentFolder) {
  for (const std::string step : {"staged checkpoint.pt", "carried over", "swapped"}) {
    SCOPED_TRACE(step);
    const std::string out = TempDir("commit_kill");
    const std::string job = TinyJob(out, 2) + " --max-iters-per-epoch 2";
    JigsawRun killed =
        RunJigsaw(job + " --kill-at-commit-epoch 1 --kill-at-commit-step '" + step + "'");
    ASSERT_NE(killed.exit_code, 0) << killed.output;
    EXPECT_NE(killed.output.find("worker 0 was killed by signal 9"), std::string::npos)
        << killed.output;
    const int done =
        jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"))["epochs_done"];
    EXPECT_EQ(done, step == "swapped" ? 2 : 1);
    EXPECT_FALSE(std::filesystem::exists(out + "/checkpoint.pt.tmp"));
    // One more epoch, so the resumed run commits (the next commit removes a killed one's
    // staging folder).
    std::string three_epochs = job;
    three_epochs.replace(three_epochs.find("--epochs 2"), 10, "--epochs 3");
    JigsawRun resumed = RunJigsaw(three_epochs + " --resume");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_EQ(jigsaw::Json::parse(jigsaw::ReadWholeFile(out + "/summary.json"))["epochs_done"], 3);
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(out).parent_path())) {
      EXPECT_NE(entry.path().filename().string().rfind(
                    "." + std::filesystem::path(out).filename().string() + ".partial-", 0),
                0u)
          << entry.path();  // no staging folder left behind
    }
  }
  const std::string out = TempDir("mixed");
  ASSERT_EQ(RunJigsaw(TinyJob(out, 1) + " --max-iters-per-epoch 2").exit_code, 0);
  const std::string epoch1 = jigsaw::ReadWholeFile(out + "/summary.json");
  const std::string job =
      "train --model mlp --dataset synthetic --synthetic-train 512 "
      "--synthetic-test 64 --synthetic-size 8 --workers 2 --batch 8 --quiet "
      "--max-iters-per-epoch 2 --resume --out " +
      out + " --epochs ";
  ASSERT_EQ(RunJigsaw(job + "2").exit_code, 0);
  std::ofstream(out + "/summary.json") << epoch1;  // as an older writer killed in between left it
  JigsawRun refused = RunJigsaw(job + "3");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("holds outputs of different epochs: summary.json is at epoch 1, "
                                "checkpoint.pt at epoch 2"),
            std::string::npos)
      << refused.output;
}

TEST(RuntimeTrainCli, StalledWorkerFailsTheJobAfterTheTimeout) {
  const std::string out = TempDir("stall");
  JigsawRun run = RunJigsaw(TinyJob(out) +
                            " --spb staircase --timeout-s 2 --kill-rank 1 --kill-at-iter 3 "
                            "--stall-instead-of-kill");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("worker 0: lost contact with a peer"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("worker 1 did not exit in time, killed"), std::string::npos)
      << run.output;
}

TEST(RuntimeProfileCli, WritesAProfileTheCostModelReads) {
  const std::string out = TempDir("profile");  // --out is a folder; profile.json inside
  JigsawRun run = RunJigsaw(
      "profile --model mlp --dataset synthetic --synthetic-test 64 --synthetic-size 8 "
      "--batch 16 --repeats 3 --out " +
      out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  jigsaw::ModelProfile profile = jigsaw::ReadProfile(out + "/profile.json");
  EXPECT_EQ(profile.model, "mlp");
  EXPECT_EQ(profile.batch, 16);
  EXPECT_EQ(profile.input_shape, (std::vector<int>{1, 8, 8}));
  ASSERT_EQ(profile.blocks.size(), 4u);
  EXPECT_EQ(profile.blocks[0].parameter_bytes, (64 * 256 + 256) * 4);
  EXPECT_EQ(profile.blocks[3].activation_bytes, 16 * 10 * 4);
  for (const jigsaw::BlockProfile& b : profile.blocks) {
    EXPECT_GT(b.forward_s, 0);
    EXPECT_GT(b.backward_weight_s, 0);
  }
}

TEST(RuntimeProfileCli, MalformedProfileNamesTheFile) {
  const std::string path = TempDir("bad_profile.json");
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs("{\"model\": \"mlp\", \"batch\": 4}", file);
  std::fclose(file);
  try {
    jigsaw::ReadProfile(path);
    FAIL() << "accepted a profile without blocks";
  } catch (const jigsaw::InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find("malformed block profile"), std::string::npos);
  }
}

TEST(RuntimeTrainCli, BadPlanIsAUsageError) {
  JigsawRun run = RunJigsaw(TinyJob(TempDir("bad")) + " --spb stairs");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("--spb 'stairs'"), std::string::npos) << run.output;
}

// The pids of the live (not zombie) processes whose parent is `parent`.
std::vector<pid_t> LiveChildren(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...; comm may hold spaces, so parse after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') children.push_back(std::stoi(name));
  }
  return children;
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  return line.substr(line.rfind(')') + 2, 1) != "Z";
}

// Listening TCP sockets (IPv4 and IPv6) of process `pid`: "address:port" in /proc/net/tcp* hex
// notation, with whether the address is loopback.
std::vector<std::pair<std::string, bool>> Listeners(pid_t pid) {
  std::set<std::string> inodes;
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator(fd_dir, ec)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<std::pair<std::string, bool>> found;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, skip, inode;
      fields >> slot >> local >> remote >> state;
      for (int i = 0; i < 5; ++i) fields >> skip;
      fields >> inode;
      if (state != "0A" || inodes.count(inode) == 0) continue;
      const std::string address = local.substr(0, local.find(':'));
      const bool loopback = address.size() == 8 ? address.substr(6) == "7F"  // 127.x.x.x
                                                : address == "00000000000000000000000001000000" ||
                                                      address.substr(24) == "0100007F";
      found.emplace_back(local, loopback);
    }
  }
  return found;
}

// The local rendezvous once listened on every interface, and killing the launcher
// left its workers training to the end. The local workers now rendezvous through a file and
// listen on loopback only, and they are tied to the launcher with PR_SET_PDEATHSIG. (The waits
// below bound events that take milliseconds, they are not speed assertions; whatever is left is
// killed, so a failure leaves nothing running.)
TEST(RuntimeTrainCli, LocalWorkersListenOnLoopbackOnlyAndDieWithTheLauncher) {
  const std::string out = TempDir("launcher_kill");
  const std::string command = std::string(JIGSAW_BINARY) + " " + TinyJob(out, 1000) + " --spb full";
  const pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  std::vector<pid_t> workers;
  for (int i = 0; i < 600 && workers.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = LiveChildren(launcher);
  }
  ASSERT_EQ(workers.size(), 2u) << "the launcher did not start 2 workers";
  // Wait until the workers train (iterations.csv appears after the first epoch), then look at
  // every listening socket of the job.
  for (int i = 0; i < 600 && !std::filesystem::exists(out + "/iterations.csv"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (pid_t pid : {launcher, workers[0], workers[1]}) {
    for (const auto& [address, loopback] : Listeners(pid)) {
      EXPECT_TRUE(loopback) << "process " << pid << " listens on " << address;
    }
  }
  kill(launcher, SIGKILL);
  waitpid(launcher, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 600 && !gone; ++i) {
    gone = std::none_of(workers.begin(), workers.end(), Alive);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (pid_t worker : workers) {
    if (Alive(worker)) kill(worker, SIGKILL);
  }
  EXPECT_TRUE(gone) << "the workers outlived their launcher";
}

// --resume with another worker count was once accepted silently (and went on with
// another data order and plan). It is a usage error now, before any worker starts.
TEST(RuntimeTrainCli, ResumeWithAnotherWorkerCountIsRefused) {
  const std::string out = TempDir("resume_world");
  std::filesystem::remove_all(out);
  auto job = [&](int workers, int epochs) {  // unlike TinyJob, keeps `out` (the checkpoint)
    return "train --model mlp --dataset synthetic --synthetic-train 512 --synthetic-test 64 "
           "--synthetic-size 8 --batch 8 --quiet --spb full --max-iters-per-epoch 2 --workers " +
           std::to_string(workers) + " --epochs " + std::to_string(epochs) + " --out " + out;
  };
  JigsawRun first = RunJigsaw(job(2, 1));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_TRUE(std::filesystem::exists(out + "/checkpoint.pt"));
  const std::string resume_three = job(3, 2) + " --resume";
  JigsawRun resumed = RunJigsaw(resume_three);
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_NE(resumed.output.find("was written by a run with 2 workers, this run has 3"),
            std::string::npos)
      << resumed.output;
  JigsawRun same = RunJigsaw(job(2, 2) + " --resume");
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

TEST(RuntimeTrainCli, OptionsOutsideTheirRangesAreUsageErrors) {
  for (const char* bad : {"--lr nan", "--momentum 2", "--timeout-s 0", "--threads 0"}) {
    JigsawRun run = RunJigsaw(TinyJob(TempDir("range")) + " " + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.output;
    EXPECT_NE(run.output.find("must be in"), std::string::npos) << bad << ": " << run.output;
  }
}

TEST(RuntimeTrainCli, DeviceThatLibTorchCannotUseIsAUsageError) {
  JigsawRun unknown = RunJigsaw(TinyJob(TempDir("device")) + " --device tpu");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("expected cpu, cuda or cuda:N"), std::string::npos)
      << unknown.output;
  // CI's LibTorch (Debian's) has no CUDA: refused. With a CUDA LibTorch and a GPU, TinyJob's two
  // workers share it, exchanging through host copies.
  JigsawRun cuda = RunJigsaw(TinyJob(TempDir("device")) + " --device cuda");
  if (cuda.output.find("sees no CUDA device") != std::string::npos) {
    EXPECT_EQ(cuda.exit_code, 2) << cuda.output;
  } else {
    EXPECT_EQ(cuda.exit_code, 0) << cuda.output;
  }
  JigsawRun cpu = RunJigsaw(TinyJob(TempDir("device")) + " --device cpu");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  // The tree exchange hands training tensors to Gloo directly: not with host staging.
  JigsawRun tree = RunJigsaw(TinyJob(TempDir("device")) + " --exchange tree --stage-through-host");
  EXPECT_EQ(tree.exit_code, 2) << tree.output;
  EXPECT_NE(tree.output.find("--exchange tree runs on CPU tensors only"), std::string::npos)
      << tree.output;
}

// The model of a checkpoint, loaded as `jigsaw serve` loads it.
jigsaw::BlockModel CheckpointModel(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, torch::kCPU);
  const std::optional<jigsaw::ModelSpec> spec = jigsaw::ReadModelSpec(archive);
  EXPECT_TRUE(spec.has_value()) << path;
  jigsaw::BlockModel model =
      jigsaw::MakeModel(spec->model, spec->channels, spec->height, spec->width, spec->classes);
  torch::serialize::InputArchive weights;
  archive.read("model", weights);
  model->load(weights);
  return model;
}

// Every collective through host copies (`--stage-through-host`, the path of every worker on a
// GPU) trains bitwise like the direct exchange: ResNet-20 with batch norm (the initial parameter
// broadcast, the statistics average, the replica checksum), the staircase plan's partial
// buckets, the exchange overlapped with backward.
TEST(RuntimeTrainCli, StagingThroughHostTrainsBitwiseLikeTheDirectExchange) {
  const std::string job =
      "train --model resnet20 --dataset synthetic --synthetic-train 512 --synthetic-test 64 "
      "--synthetic-size 8 --workers 2 --batch 8 --epochs 2 --max-iters-per-epoch 4 "
      "--spb staircase --quiet --out ";
  const std::string direct = TempDir("direct");
  const std::string staged = TempDir("staged");
  std::filesystem::remove_all(direct);
  std::filesystem::remove_all(staged);
  JigsawRun a = RunJigsaw(job + direct);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  JigsawRun b = RunJigsaw(job + staged + " --stage-through-host");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  jigsaw::Json summary = jigsaw::Json::parse(jigsaw::ReadWholeFile(staged + "/summary.json"));
  EXPECT_TRUE(summary["stage_through_host"].get<bool>());
  EXPECT_EQ(jigsaw::ReadWholeFile(direct + "/evals.csv"),
            jigsaw::ReadWholeFile(staged + "/evals.csv"));
  jigsaw::BlockModel x = CheckpointModel(direct + "/checkpoint.pt");
  jigsaw::BlockModel y = CheckpointModel(staged + "/checkpoint.pt");
  auto xp = x->named_parameters();
  auto yp = y->named_parameters();
  for (const auto& item : xp) {
    EXPECT_TRUE(torch::equal(item.value(), yp[item.key()])) << item.key();
  }
  auto xb = x->named_buffers();
  auto yb = y->named_buffers();
  for (const auto& item : xb) {
    EXPECT_TRUE(torch::equal(item.value(), yb[item.key()])) << item.key();
  }
}

}  // namespace
