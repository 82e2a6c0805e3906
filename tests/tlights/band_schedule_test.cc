// TensorLights' band schedule, shared by the tc agent and the packet simulator: the policy table,
// rotation instants, and the agent's tc plan following the schedule rotation after rotation.
#include "tlights/band_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/error.h"
#include "tlights/plan.h"

namespace jigsaw::tlights {
namespace {

TEST(BandSchedule, PolicyTableFeedsParsingAndErrors) {
  EXPECT_EQ(PolicyNames(), "fifo, static or rotate");
  for (const PolicyEntry& entry : kPolicies) {
    EXPECT_EQ(ParsePolicy(entry.name), entry.policy);
    EXPECT_STREQ(PolicyName(entry.policy), entry.name);
  }
  try {
    ParsePolicy("tlsone", "--host-priority");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--host-priority 'tlsone': expected fifo, static or rotate");
  }
}

TEST(BandSchedule, RotationsBeginEveryInterval) {
  const BandSchedule rotate(Policy::kRotate, 3, 20);
  EXPECT_EQ(rotate.RotationAt(0), 0);
  EXPECT_EQ(rotate.RotationAt(19.999), 0);
  EXPECT_EQ(rotate.RotationAt(20), 1);
  EXPECT_EQ(rotate.RotationAt(65), 3);
  EXPECT_DOUBLE_EQ(rotate.RotationStart(2), 40);
  EXPECT_EQ(rotate.Bands(1), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(rotate.ChangedJobs(1), (std::vector<int>{0, 1, 2}));
  const BandSchedule fixed(Policy::kStatic, 3, 20);
  EXPECT_EQ(fixed.RotationAt(100), 0);
  EXPECT_TRUE(std::isinf(fixed.RotationStart(1)));
  EXPECT_EQ(fixed.Bands(5), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(fixed.ChangedJobs(1).empty());
  const BandSchedule fifo(Policy::kFifo, 3, 20);
  EXPECT_FALSE(fifo.prioritized());
  EXPECT_TRUE(fifo.Bands(0).empty());
  EXPECT_THROW(BandSchedule(Policy::kRotate, 3, 0), UsageError);
}

// The agent's tc commands carry exactly the schedule's bands: the install those of rotation 0,
// each rotation's `tc class change` commands the jobs the schedule moves, to their new bands.
TEST(BandSchedule, AgentPlanFollowsTheScheduleEveryRotation) {
  for (int jobs : {1, 3, 7, 10, 21}) {
    TlightsConfig config;
    config.policy = Policy::kRotate;
    config.dev = "eth0";
    for (int j = 0; j < jobs; ++j) config.ports.push_back(5001 + j);
    const BandSchedule schedule = AgentSchedule(config);
    std::map<std::string, int> prio;  // class id -> prio
    auto apply = [&](const std::vector<TcCommand>& plan) {
      for (const TcCommand& c : plan) {
        // tc class add|change dev D parent 1:1 classid ID htb rate R ceil C prio P
        if (c.size() != 16 || c[1] != "class" || c[8] == "1:10") continue;
        prio[c[8]] = std::stoi(c.back());
      }
    };
    apply(InstallPlan(config, 0));
    for (int r = 0; r <= 2 * jobs + 1; ++r) {
      if (r > 0) apply(RotatePlan(config, r));
      const std::vector<int> bands = schedule.Bands(r);
      for (int j = 0; j < jobs; ++j) {
        EXPECT_EQ(prio[JobClassId(j)], bands[static_cast<size_t>(j)])
            << jobs << " jobs, rotation " << r << ", job " << j;
      }
    }
  }
}

}  // namespace
}  // namespace jigsaw::tlights
