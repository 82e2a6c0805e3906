// Real parameter-server training through the CLI: `jigsaw ps` and two `jigsaw ps-worker`
// processes (LibTorch MLP) over loopback TCP. Small and fast (about 2-3 s).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "core/output.h"
#include "core/text_input.h"

namespace {

std::string RunShell(const std::string& command, int* exit_code) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

TEST(PsTrainCli, ServerAndTwoWorkersTrainAnMlp) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("jigsaw_ps_train_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string j = JIGSAW_BINARY;
  const std::string d = dir.string();
  // The server picks a free port and writes it to a file; then the workers start.
  const std::string port_file = d + "/port";
  // The server creates the job's token file before it listens; the workers read it.
  const std::string token_file = d + "/token";
  const std::string server =
      j + " ps --port 0 --port-file " + port_file + " --token-file " + token_file +
      " --workers 2 --lr 0.05 --momentum 0.9 --timeout-s 30 --quiet --out " + d;
  std::string workers;
  for (int k = 0; k < 2; ++k) {
    workers += j + " ps-worker --server 127.0.0.1:$(cat " + port_file + ") --rank " +
               std::to_string(k) +
               " --workers 2 --iters 60 --batch 16 --synthetic-size 14 --synthetic-train 1024 "
               "--quiet --timeout-s 30 --token-file " +
               token_file + " --out " + d + " > " + d + "/result" + std::to_string(k) + ".json & ";
  }
  const std::string wait_for_port =
      "for i in $(seq 200); do test -s " + port_file + " && break; sleep 0.05; done; ";
  int code = -1;
  const std::string output = RunShell(
      "( " + server + " & " + wait_for_port + workers + " wait ) && test -s " + d + "/server.json",
      &code);
  ASSERT_EQ(code, 0) << output;

  jigsaw::Json stats = jigsaw::Json::parse(jigsaw::ReadWholeFile(d + "/server.json"));
  EXPECT_EQ(stats["steps"].get<int>(), 60);
  EXPECT_EQ(stats["workers"].get<int>(), 2);
  jigsaw::Json result0 = jigsaw::Json::parse(jigsaw::ReadWholeFile(d + "/result0.json"));
  jigsaw::Json result1 = jigsaw::Json::parse(jigsaw::ReadWholeFile(d + "/result1.json"));
  // The MLP on 14x14 inputs: 196*256+256 + 256*128+128 + 128*64+64 + 64*10+10 parameters.
  EXPECT_EQ(result0["parameters"].get<int>(), 50432 + 32896 + 8256 + 650);
  // Training works: the loss falls far below chance (ln 10 = 2.30) and the model classifies the
  // held-out synthetic samples.
  EXPECT_GT(result0["first_loss"].get<double>(), 1.5);
  EXPECT_LT(result0["last_loss"].get<double>(), 0.25 * result0["first_loss"].get<double>());
  EXPECT_LT(result1["last_loss"].get<double>(), 0.25 * result1["first_loss"].get<double>());
  EXPECT_GT(result0["test_accuracy"].get<double>(), 0.9);
  // Only rank 0 evaluates: rank 1 says null, never -1 (docs/outputs.md).
  EXPECT_TRUE(result1["test_accuracy"].is_null()) << result1.dump();
  // One CSV row per iteration per worker, with end times after start times.
  jigsaw::TextFile csv(d + "/worker1.csv");
  std::string_view line;
  int rows = 0;
  while (csv.NextLine(&line)) ++rows;
  EXPECT_EQ(rows, 61);
  fs::remove_all(dir);
}

// A job's server needs its token; without one it refuses to start (exit 2).
TEST(PsTrainCli, AServerWithoutATokenRefusesToStart) {
  int code = -1;
  const std::string output =
      RunShell(std::string(JIGSAW_BINARY) + " ps --workers 1 --port 0 --quiet", &code);
  EXPECT_EQ(code, 2) << output;
  EXPECT_NE(output.find("--token HEX (32 hex digits) or --token-file FILE"), std::string::npos)
      << output;
  const std::string bad =
      RunShell(std::string(JIGSAW_BINARY) + " ps --workers 1 --token 12345 --quiet", &code);
  EXPECT_EQ(code, 2) << bad;
}

}  // namespace
