#include "model/trace_readers.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"

namespace jigsaw {
namespace {

std::string Data(const std::string& relative) {
  return std::string(JIGSAW_SHARED_DATA) + "/" + relative;
}

#define SKIP_WITHOUT(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not found: " << path

void ExpectErrorAt(const std::string& text, TraceFormat format, int line,
                   const std::string& fragment) {
  try {
    ParseTrace("bad.trace", text, format);
    FAIL() << "expected InputError for: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("bad.trace:", 0), 0u) << e.what();
  }
}

TEST(TraceReaders, ShockwaveLineIsParsedAndSortedByArrival) {
  const std::string text =
      "ResNet-18 (batch size 32)\tpython3 main.py\tcifar10\t--num_steps\t1\t143450\t2\taccordion"
      "\t1\t-1.000000\t3338\t55\n"
      "LM (batch size 10)\tpython3 main.py\tlm\t--steps\t1\t1000\t1\tgns\t1\t-1\t1418\t0\n";
  Trace trace = ParseTrace("t.trace", text);
  ASSERT_EQ(trace.jobs.size(), 2u);
  const JobSpec& first = trace.jobs[0];
  EXPECT_EQ(first.id, 0);
  EXPECT_EQ(first.model, "LM");
  EXPECT_EQ(first.batch_size, 10);
  EXPECT_EQ(first.mode, AdaptationMode::kGns);
  const JobSpec& second = trace.jobs[1];
  EXPECT_EQ(second.job_type, "ResNet-18 (batch size 32)");
  EXPECT_EQ(second.scale_factor, 2);
  EXPECT_DOUBLE_EQ(second.total_steps, 143450);
  EXPECT_DOUBLE_EQ(second.duration_s, 3338);
  EXPECT_DOUBLE_EQ(second.arrival_s, 55);
  EXPECT_EQ(second.mode, AdaptationMode::kAccordion);
  EXPECT_EQ(second.source, "t.trace:1");
}

TEST(TraceReaders, GavelAndMsrFormats) {
  Trace gavel = ParseTrace(
      "g.trace", "ResNet-50 (batch size 64)\tcmd\tdir\t--n\t1\t2931\t4\t1\t-1.000000\t7\n");
  ASSERT_EQ(gavel.jobs.size(), 1u);
  EXPECT_EQ(gavel.jobs[0].scale_factor, 4);
  EXPECT_DOUBLE_EQ(gavel.jobs[0].arrival_s, 7);
  Trace msr = ParseTrace("m.trace", "A3C\tcmd\t-n\t1\t10000\t6.000000\t8\n");
  ASSERT_EQ(msr.jobs.size(), 1u);
  EXPECT_EQ(msr.jobs[0].model, "A3C");
  EXPECT_EQ(msr.jobs[0].scale_factor, 8);
  EXPECT_DOUBLE_EQ(msr.jobs[0].arrival_s, 6);
}

TEST(TraceReaders, CsvFormats) {
  Trace philly = ParseTrace("p.csv",
                            "timestamp,duration,num_gpus,gpu_time,cluster\n"
                            "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                            "2017-10-09 06:13:03,2951.0,2,5902.0,6214e9\n");
  ASSERT_EQ(philly.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(philly.jobs[0].arrival_s, 0);
  EXPECT_DOUBLE_EQ(philly.jobs[1].arrival_s, 48 * 60 + 52);
  EXPECT_EQ(philly.jobs[0].scale_factor, 2);
  EXPECT_FALSE(philly.jobs[0].typed());
  Trace pollux = ParseTrace("w.csv",
                            "name,time,application,num_replicas,batch_size\n"
                            "cifar10-0,107,cifar10,6,2048\n");
  ASSERT_EQ(pollux.jobs.size(), 1u);
  EXPECT_EQ(pollux.jobs[0].scale_factor, 6);
  EXPECT_GT(pollux.jobs[0].total_steps, 0);
}

TEST(TraceReaders, MalformedInputGivesFileLineAndExpectation) {
  const std::string good = "LM (batch size 10)\tc\tlm\t--steps\t1\t1000\t1\tgns\t1\t-1\t1418\t0\n";
  ExpectErrorAt(good + "LM (batch size 10)\tc\tlm\t--steps\t1\tlots\t1\tgns\t1\t-1\t1418\t0\n",
                TraceFormat::kShockwave, 2, "expected a number in column 6 (total_steps)");
  ExpectErrorAt(good + "LM (batch size 10)\tc\tlm\t--steps\t1\t10\t0\tgns\t1\t-1\t1418\t0\n",
                TraceFormat::kShockwave, 2, "positive GPU count in column 7");
  ExpectErrorAt(good + "LM (batch size 10)\tc\tlm\t--steps\t1\t10\t1\tfast\t1\t-1\t1418\t0\n",
                TraceFormat::kShockwave, 2, "mode static, accordion or gns");
  ExpectErrorAt(good + "LM\tc\n", TraceFormat::kShockwave, 2, "expected 12 columns");
  ExpectErrorAt("a\tb\tc\n", TraceFormat::kAuto, 1, "cannot tell the trace format");
  ExpectErrorAt("timestamp,duration,num_gpus,gpu_time,cluster\n2017-13-09 07:01:55,6,1,6,x\n",
                TraceFormat::kAuto, 2, "YYYY-MM-DD HH:MM:SS");
  ExpectErrorAt("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,-6,1,6,x\n",
                TraceFormat::kPhilly, 2, "positive duration");
  ExpectErrorAt("name,time,application\n", TraceFormat::kPollux, 1, "expected the header");
  ExpectErrorAt("name,time,application,num_replicas,batch_size\nx,1,mnist,1,32\n",
                TraceFormat::kPollux, 2, "application cifar10");
  EXPECT_THROW(ParseTrace("empty", "\n\n"), InputError);
}

// Every numeric trace field has a documented maximum (docs/limits.md), checked with file:line at
// read time: unchecked, 1e11 steps use 1.8 GB and run on, 1e300 disables the deadline, an arrival
// of 1e20 gives JCT 0 and a batch size of 2^63-1 becomes -1.
TEST(TraceReaders, MagnitudesBeyondTheLimitsAreRefusedAtTheirLine) {
  auto shockwave = [](const std::string& steps, const std::string& sf, const std::string& weight,
                      const std::string& duration, const std::string& arrival) {
    return "LM (batch size 10)\tc\tlm\t--steps\t1\t1000\t1\tgns\t1\t-1\t1418\t0\n"
           "LM (batch size 10)\tc\tlm\t--steps\t1\t" +
           steps + "\t" + sf + "\tgns\t" + weight + "\t-1\t" + duration + "\t" + arrival + "\n";
  };
  ExpectErrorAt(shockwave("1e11", "1", "1", "1", "0"), TraceFormat::kShockwave, 2,
                "expected at most 1000000 epochs of LM");
  // Found by the fuzz harness: 1e-320 steps gave an isolated time of 0 and an infinite rho.
  ExpectErrorAt(shockwave("1e-320", "1", "1", "1", "0"), TraceFormat::kShockwave, 2,
                "expected a positive step count (at least 1) in column 6 (total_steps)");
  ExpectErrorAt(shockwave("1e300", "1", "1", "1", "0"), TraceFormat::kShockwave, 2,
                "expected at most 1000000000000 steps in column 6 (total_steps)");
  ExpectErrorAt(shockwave("10", "1099511627776", "1", "1", "0"), TraceFormat::kShockwave, 2,
                "expected an integer in [1, 1048576] in column 7 (scale_factor)");
  ExpectErrorAt(shockwave("10", "1", "1e30", "1", "0"), TraceFormat::kShockwave, 2,
                "column 9 (priority_weight)");
  ExpectErrorAt(shockwave("10", "1", "1", "1e300", "0"), TraceFormat::kShockwave, 2,
                "expected a value in [0, 100000000] in column 11 (duration)");
  ExpectErrorAt(shockwave("10", "1", "1", "1", "1e20"), TraceFormat::kShockwave, 2,
                "expected a value in [0, 100000000] in column 12 (arrival_time)");
  ExpectErrorAt("ResNet-18 (batch size 2000000)\tc\td\t--n\t1\t100\t1\t1\t-1\t0\n",
                TraceFormat::kGavel, 1, "expected a batch size of at most 1048576");
  ExpectErrorAt("A3C\tcmd\t-n\t1\t10000\t1e15\t8\n", TraceFormat::kGavelMsr, 1,
                "column 6 (arrival_time)");
  ExpectErrorAt(
      "name,time,application,num_replicas,batch_size\nx,1,cifar10,1,9223372036854775807\n",
      TraceFormat::kPollux, 2, "expected an integer in [1, 1048576] in column 5 (batch_size)");
  ExpectErrorAt("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,1e12,1,6,x\n",
                TraceFormat::kPhilly, 2, "expected a value in [0, 100000000] in column 2");
  ExpectErrorAt(
      "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,6,1,6,x\n"
      "9999-10-09 07:01:55,6,1,6,x\n",
      TraceFormat::kPhilly, 3, "s after the earliest one in column 1 (timestamp)");
}

TEST(TraceReaders, ReadsEveryRealTrace) {
  SKIP_WITHOUT(Data("traces"));
  EXPECT_EQ(ReadTrace(Data("traces/shockwave/shockwave_120.trace")).jobs.size(), 120u);
  EXPECT_EQ(ReadTrace(Data("traces/shockwave/shockwave_900.trace")).jobs.size(), 900u);
  EXPECT_EQ(ReadTrace(Data("traces/philly/philly.csv")).jobs.size(), 82247u);
  EXPECT_EQ(ReadTrace(Data("traces/pollux/workloads/workload-1.csv")).jobs.size(), 160u);
  for (const auto& entry : std::filesystem::directory_iterator(Data("traces/gavel/msr"))) {
    if (entry.path().extension() != ".trace") continue;
    EXPECT_GT(ReadTrace(entry.path().string(), TraceFormat::kGavelMsr).jobs.size(), 0u);
  }
  for (const auto& entry :
       std::filesystem::directory_iterator(Data("traces/gavel/physical_cluster"))) {
    EXPECT_GT(ReadTrace(entry.path().string(), TraceFormat::kGavel).jobs.size(), 0u);
  }
}

}  // namespace
}  // namespace jigsaw
