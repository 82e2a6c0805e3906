// The pieces under the real platform: function codes, the resize kernel, the framed pipe protocol
// (an oversized length is refused, never allocated), and one sandbox process driven directly:
// its answers match the function run here, and once SIGKILLed it reports the signal; pausing it
// (SIGSTOP, and the cgroup v2 freezer where usable) as OpenWhisk's pause-grace does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "faas/function_code.h"
#include "faas/sandbox_pause.h"
#include "faas/sandbox_process.h"

namespace jigsaw::faas {
namespace {

TEST(FunctionCode, ParsesAndRefuses) {
  FunctionCode code;
  std::string error;
  ASSERT_TRUE(ParseFunctionCode("sha256:2MiB", &code, &error));
  EXPECT_EQ(code.kind, FunctionCode::Kind::kSha256);
  EXPECT_EQ(code.bytes, 2u << 20);
  ASSERT_TRUE(ParseFunctionCode("resize:64x3", &code, &error));
  EXPECT_EQ(code.kind, FunctionCode::Kind::kResize);
  EXPECT_EQ(code.side, 64);
  EXPECT_EQ(code.count, 3);
  EXPECT_EQ(code.wait_us, 0);
  ASSERT_TRUE(ParseFunctionCode("sha256:64KiB+wait:20ms", &code, &error));
  EXPECT_EQ(code.kind, FunctionCode::Kind::kSha256);
  EXPECT_EQ(code.bytes, 64u << 10);
  EXPECT_EQ(code.wait_us, 20000);
  ASSERT_TRUE(ParseFunctionCode("resize:32x2+wait:1.5ms", &code, &error));
  EXPECT_EQ(code.count, 2);
  EXPECT_EQ(code.wait_us, 1500);
  for (const char* bad : {"", "sha256", "sha256:0B", "sha256:1TiB", "resize:", "resize:0",
                          "resize:64x0", "resize:64x65", "resize:-3", "md5:1KiB", "sha256:1KiB+",
                          "sha256:1KiB+wait:", "sha256:1KiB+wait:0ms", "sha256:1KiB+wait:11s",
                          "sha256:1KiB+sleep:1ms", "sha256:1KiB+wait:20", "+wait:20ms",
                          "sha256:1KiB+wait:1ms+wait:1ms"}) {
    EXPECT_FALSE(ParseFunctionCode(bad, &code, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

TEST(FunctionCode, ResizeKeepsConstantsAndCorners) {
  const std::vector<uint8_t> flat(3 * 4 * 4, 77);
  for (uint8_t v : ResizePlanarRgb(flat, 4, 4, 9)) EXPECT_EQ(v, 77);
  // 2x2 planes (R: 0 10 / 20 30) to 4x4: corners keep the source corners.
  std::vector<uint8_t> image = {0, 10, 20, 30, 1, 1, 1, 1, 2, 2, 2, 2};
  const std::vector<uint8_t> out = ResizePlanarRgb(image, 2, 2, 4);
  ASSERT_EQ(out.size(), 3u * 16);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[3], 10);
  EXPECT_EQ(out[12], 20);
  EXPECT_EQ(out[15], 30);
  EXPECT_EQ(out[16], 1);
  EXPECT_EQ(out[47], 2);
}

TEST(FunctionCode, Sha256IsDeterministicPerPayload) {
  FunctionCode code;
  std::string error;
  ASSERT_TRUE(ParseFunctionCode("sha256:4KiB", &code, &error));
  const FunctionRunner a(code, ""), b(code, "");
  EXPECT_EQ(a.Invoke("x"), b.Invoke("x"));
  EXPECT_NE(a.Invoke("x"), a.Invoke("y"));
  EXPECT_EQ(a.Invoke("x").size(), 64u);
  // The wait changes when the answer comes, never what it is.
  FunctionCode waiting;
  ASSERT_TRUE(ParseFunctionCode("sha256:4KiB+wait:1ms", &waiting, &error));
  EXPECT_EQ(FunctionRunner(waiting, "").Invoke("x"), a.Invoke("x"));
}

TEST(FunctionCode, ResizeWithoutTheArchiveIsAClearError) {
  FunctionCode code;
  std::string error;
  ASSERT_TRUE(ParseFunctionCode("resize:8", &code, &error));
  EXPECT_THROW(FunctionRunner(code, "/nonexistent/cifar.tar.gz"), InputError);
}

TEST(SandboxFrames, RoundTripAndOversizedLengthRefused) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_TRUE(WriteFrame(fds[1], "hello"));
  std::string data;
  ASSERT_TRUE(ReadFrame(fds[0], &data));
  EXPECT_EQ(data, "hello");
  const char huge[4] = {0, 0, 0, 0x40};  // 1 GiB claimed
  ASSERT_EQ(write(fds[1], huge, 4), 4);
  EXPECT_FALSE(ReadFrame(fds[0], &data));
  close(fds[1]);
  EXPECT_FALSE(ReadFrame(fds[0], &data));  // EOF
  close(fds[0]);
}

TEST(SandboxProcessTest, AnswersLikeTheFunctionAndReportsItsKill) {
  std::string error;
  auto sandbox = SandboxProcess::Spawn(JIGSAW_BINARY, "sha256:8KiB", "", &error);
  ASSERT_TRUE(sandbox) << error;
  EXPECT_GT(sandbox->RssBytes(), 0u);
  FunctionCode code;
  ASSERT_TRUE(ParseFunctionCode("sha256:8KiB", &code, &error));
  bool ok = false;
  std::string result;
  ASSERT_TRUE(sandbox->Invoke("payload", &ok, &result, &error)) << error;
  EXPECT_TRUE(ok);
  EXPECT_EQ(result, FunctionRunner(code, "").Invoke("payload"));
  sandbox->Kill();
  EXPECT_FALSE(sandbox->Invoke("again", &ok, &result, &error));
  EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
  EXPECT_EQ(sandbox->RssBytes(), 0u);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

char ProcessState(pid_t pid) {
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// Both mechanisms (the freezer only where this host offers one): a paused sandbox is stopped as
// the kernel reports it, answers exactly as before once resumed, and still dies on SIGKILL while
// paused (so an SGS can always kill it).
TEST(SandboxPauseTest, PausedSandboxIsStoppedAnswersAfterResumeAndDiesOnKill) {
  FunctionCode code;
  std::string error;
  ASSERT_TRUE(ParseFunctionCode("sha256:8KiB", &code, &error));
  const FunctionRunner runner(code, "");
  for (bool freezer : {false, true}) {
    if (freezer && !SandboxPause::FreezerUsable()) {
      std::printf("no usable cgroup v2 freezer here: only SIGSTOP/SIGCONT is tested\n");
      continue;
    }
    SCOPED_TRACE(freezer ? "freezer" : "signal");
    auto sandbox = SandboxProcess::Spawn(JIGSAW_BINARY, "sha256:8KiB", "", &error);
    ASSERT_TRUE(sandbox) << error;
    SandboxPause pause(sandbox->pid(), freezer);
    ASSERT_EQ(pause.mechanism(), freezer ? PauseMechanism::kFreezer : PauseMechanism::kSignal);
    bool ok = false;
    std::string result;
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE(pause.Pause());
      EXPECT_TRUE(pause.paused());
      if (freezer) {
        EXPECT_NE(ReadText(pause.cgroup() + "/cgroup.events").find("frozen 1"), std::string::npos);
      } else {
        EXPECT_EQ(ProcessState(sandbox->pid()), 'T');
      }
      ASSERT_TRUE(pause.Resume());
      EXPECT_FALSE(pause.paused());
      const std::string payload = "round " + std::to_string(round);
      ASSERT_TRUE(sandbox->Invoke(payload, &ok, &result, &error)) << error;
      EXPECT_TRUE(ok);
      EXPECT_EQ(result, runner.Invoke(payload));
    }
    ASSERT_TRUE(pause.Pause());
    sandbox->Kill();
    EXPECT_FALSE(sandbox->Invoke("again", &ok, &result, &error));
    EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
  }
}

TEST(SandboxProcessTest, InitialisationErrorIsReported) {
  std::string error;
  EXPECT_FALSE(
      SandboxProcess::Spawn(JIGSAW_BINARY, "resize:8", "/nonexistent/cifar.tar.gz", &error));
  EXPECT_NE(error.find("/nonexistent/cifar.tar.gz"), std::string::npos) << error;
}

}  // namespace
}  // namespace jigsaw::faas
