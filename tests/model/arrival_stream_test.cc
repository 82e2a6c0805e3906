#include "model/arrival_stream.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace jigsaw {
namespace {

Trace Source() {
  Trace trace;
  trace.name = "source";
  for (int i = 0; i < 50; ++i) {
    JobSpec job;
    job.id = i;
    job.total_steps = job.duration_s = 60.0 * (i + 1);  // type-less: work in seconds
    job.scale_factor = 1 + i % 4;
    job.arrival_s = 1000.0 * i;
    job.source = "source:" + std::to_string(i + 2);
    trace.jobs.push_back(job);
  }
  return trace;
}

TEST(ArrivalStream, PoissonArrivalsAtTheRateFromRandomSourceJobs) {
  ArrivalStreamOptions options;
  options.jobs = 20000;
  options.rate_per_hour = 30;
  options.seed = 4;
  const Trace a = MakeArrivalStream(Source(), options);
  const Trace b = MakeArrivalStream(Source(), options);
  ASSERT_EQ(a.jobs.size(), 20000u);
  double last = -1;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].id, static_cast<int>(i));
    EXPECT_GE(a.jobs[i].arrival_s, last);
    last = a.jobs[i].arrival_s;
    EXPECT_EQ(a.jobs[i].arrival_s, b.jobs[i].arrival_s);
    EXPECT_EQ(a.jobs[i].source, b.jobs[i].source);
  }
  EXPECT_EQ(a.jobs[0].arrival_s, 0);
  // 30 jobs/h: a mean gap of 120 s (within a few standard errors).
  EXPECT_NEAR(a.jobs.back().arrival_s / (a.jobs.size() - 1), 120, 3);
  EXPECT_NE(a.jobs[0].source.find("from source:"), std::string::npos);
  options.seed = 5;
  EXPECT_NE(MakeArrivalStream(Source(), options).jobs[10].arrival_s, a.jobs[10].arrival_s);
}

TEST(ArrivalStream, DrawsOnlyJobsWithinTheDurationLimit) {
  ArrivalStreamOptions options;
  options.jobs = 500;
  options.rate_per_hour = 10;
  options.max_duration_h = 0.25;  // 15 minutes: source jobs 0..14
  for (const JobSpec& job : MakeArrivalStream(Source(), options).jobs) {
    EXPECT_LE(job.duration_s, 900);
  }
  options.max_duration_h = 0.001;
  EXPECT_THROW(MakeArrivalStream(Source(), options), UsageError);
  options.max_duration_h = 0;
  options.rate_per_hour = 0;
  EXPECT_THROW(MakeArrivalStream(Source(), options), UsageError);
  options.rate_per_hour = 1;
  options.jobs = 0;
  EXPECT_THROW(MakeArrivalStream(Source(), options), UsageError);
}

}  // namespace
}  // namespace jigsaw
