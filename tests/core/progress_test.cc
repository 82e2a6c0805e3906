// core/progress.h with a fake clock and a file stream: throttling by time (not call counts),
// the rewritten terminal line with percentage and ETA, plain lines elsewhere, and the levels.
#include "core/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace jigsaw {
namespace {

class CapturedStream {
 public:
  CapturedStream() : file_(std::tmpfile()) {}
  ~CapturedStream() { std::fclose(file_); }
  std::FILE* get() { return file_; }
  std::string Text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[1024];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) text.append(buffer, n);
    return text;
  }

 private:
  std::FILE* file_;
};

struct VerbosityGuard {
  explicit VerbosityGuard(Verbosity v) { SetVerbosity(v); }
  ~VerbosityGuard() { SetVerbosity(Verbosity::kNormal); }
};

TEST(Progress, ThrottledByTimeNotByCalls) {
  CapturedStream stream;
  double now = 100;
  Progress progress("sim", true, 2.0, stream.get(), false, [&] { return now; });
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(progress.Due());  // many calls, no time passed
  now += 1.9;
  EXPECT_FALSE(progress.Due());
  now += 0.2;
  EXPECT_TRUE(progress.Due());  // one call is enough once the interval has passed
  progress.Report("step");
  EXPECT_FALSE(progress.Due());
  now += 2.0;
  EXPECT_TRUE(progress.Due());
}

TEST(Progress, PlainLinesWithShareAndEtaOffTerminal) {
  CapturedStream stream;
  double now = 0;
  Progress progress("sim", true, 1.0, stream.get(), false, [&] { return now; });
  now = 10;
  progress.Report(25, 100, "round 7");
  progress.Final("done");
  // 25% in 10 s: 30 s to go.
  EXPECT_EQ(stream.Text(), "sim: [25.0%, ETA 30s] round 7\nsim: done\n");
}

TEST(Progress, TerminalRewritesOneLine) {
  CapturedStream stream;
  double now = 0;
  {
    Progress progress("net", true, 1.0, stream.get(), true, [&] { return now; });
    now = 60;
    progress.Report(1, 4, "a");
    now = 120;
    progress.Report(2, 4, "b");
    progress.Final("done");
  }
  EXPECT_EQ(
      stream.Text(),
      "\rnet: [25.0%, ETA 3m00s] a\x1b[K\rnet: [50.0%, ETA 2m00s] b\x1b[K\rnet: done\x1b[K\n");
}

TEST(Progress, QuietSilencesAndVerboseAddsDetail) {
  CapturedStream quiet_stream;
  {
    VerbosityGuard quiet(Verbosity::kQuiet);
    double now = 0;
    Progress progress("d2r", true, 1.0, quiet_stream.get(), false, [&] { return now; });
    now = 5;
    EXPECT_FALSE(progress.Due());
    progress.Report("x");
    progress.Detail("y");
    progress.Final("z");
  }
  EXPECT_EQ(quiet_stream.Text(), "");
  CapturedStream normal_stream;
  {
    double now = 0;
    Progress progress("d2r", true, 1.0, normal_stream.get(), false, [&] { return now; });
    progress.Detail("hidden");
    progress.Final("z");
  }
  EXPECT_EQ(normal_stream.Text(), "d2r: z\n");
  CapturedStream verbose_stream;
  {
    VerbosityGuard verbose(Verbosity::kVerbose);
    double now = 0;
    Progress progress("d2r", true, 1.0, verbose_stream.get(), false, [&] { return now; });
    progress.Detail("shown");
  }
  EXPECT_EQ(verbose_stream.Text(), "d2r: shown\n");
}

TEST(Progress, EtaFormatting) {
  EXPECT_EQ(FormatEta(42), "42s");
  EXPECT_EQ(FormatEta(185), "3m05s");
  EXPECT_EQ(FormatEta(7260), "2h01m");
  EXPECT_EQ(FormatEta(-1), "?");
}

}  // namespace
}  // namespace jigsaw
