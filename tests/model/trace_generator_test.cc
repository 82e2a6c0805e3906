#include "model/trace_generator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/trace_readers.h"

namespace jigsaw {
namespace {

TEST(TraceGenerator, SeededAndFaithfulToTheMixes) {
  ThroughputTable table = SyntheticThroughputTable();
  TraceGeneratorOptions options;
  options.jobs = 4000;
  Trace a = GenerateTrace(options, table);
  Trace b = GenerateTrace(options, table);
  options.seed = 1;
  Trace c = GenerateTrace(options, table);
  ASSERT_EQ(a.jobs.size(), 4000u);
  EXPECT_EQ(FormatShockwaveTrace(a), FormatShockwaveTrace(b));
  EXPECT_NE(FormatShockwaveTrace(a), FormatShockwaveTrace(c));
  int single = 0, statics = 0, short_jobs = 0;
  double last_arrival = 0;
  for (const JobSpec& job : a.jobs) {
    single += job.scale_factor == 1;
    statics += job.mode == AdaptationMode::kStatic;
    short_jobs += job.duration_s < 0.2 * 3600 + (4.8 * 3600) * 0.2;
    EXPECT_GE(job.arrival_s, last_arrival);
    last_arrival = job.arrival_s;
    EXPECT_GE(job.duration_s, 720);
    EXPECT_LE(job.duration_s, 18000);
  }
  // 4 of 21 templates are single-GPU only: P(sf=1) = 17/21 * 0.6 + 4/21.
  EXPECT_NEAR(single / 4000.0, 17.0 / 21 * 0.6 + 4.0 / 21, 0.03);
  EXPECT_LT(statics / 4000.0, 0.06);  // only short accordion jobs become static
  EXPECT_NEAR(short_jobs / 4000.0, 0.72, 0.03);
  EXPECT_NEAR(last_arrival / 3999.0, 40, 3);
}

TEST(TraceGenerator, OutputRoundTripsThroughTheShockwaveReader) {
  ThroughputTable table = SyntheticThroughputTable();
  TraceGeneratorOptions options;
  options.jobs = 50;
  Trace generated = GenerateTrace(options, table);
  Trace read = ParseTrace("generated.trace", FormatShockwaveTrace(generated));
  ASSERT_EQ(read.jobs.size(), generated.jobs.size());
  for (size_t i = 0; i < read.jobs.size(); ++i) {
    EXPECT_EQ(read.jobs[i].job_type, generated.jobs[i].job_type);
    EXPECT_EQ(read.jobs[i].scale_factor, generated.jobs[i].scale_factor);
    EXPECT_EQ(read.jobs[i].mode, generated.jobs[i].mode);
    EXPECT_DOUBLE_EQ(read.jobs[i].total_steps, generated.jobs[i].total_steps);
    EXPECT_DOUBLE_EQ(read.jobs[i].arrival_s, generated.jobs[i].arrival_s);
  }
}

}  // namespace
}  // namespace jigsaw

namespace jigsaw {
namespace {

TEST(AssignJobTypes, TypesPhillyJobsSoTheyStillRunForTheirDuration) {
  const ThroughputTable table = SyntheticThroughputTable();
  Trace trace;
  for (int gpus : {1, 2, 16, 4}) {
    JobSpec job;
    job.id = static_cast<int>(trace.jobs.size());
    job.scale_factor = gpus;
    job.duration_s = 3600;
    job.total_steps = 3600;
    trace.jobs.push_back(job);
  }
  Trace again = trace;
  EXPECT_EQ(AssignJobTypes(&trace, table, "v100", 7), 3);
  EXPECT_EQ(AssignJobTypes(&again, table, "v100", 7), 3);
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobSpec& job = trace.jobs[i];
    EXPECT_EQ(job.job_type, again.jobs[i].job_type);  // seeded
    if (job.scale_factor == 16) {
      EXPECT_FALSE(job.typed());  // no template at 16 GPUs: stays type-less
      EXPECT_EQ(job.total_steps, 3600);
      continue;
    }
    ASSERT_TRUE(job.typed());
    const double throughput = table.Isolated("v100", {job.job_type, job.scale_factor});
    EXPECT_EQ(job.total_steps, std::floor(3600 * throughput));
    if (job.scale_factor > 1) {
      EXPECT_NE(job.model, "Recommendation");  // single-GPU only
    }
  }
}

}  // namespace
}  // namespace jigsaw
