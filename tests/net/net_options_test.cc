// `jigsaw net`'s options as the module owns them (net/net_options.h): every Validate() error names
// its flag, the enum tables round trip and feed the error lists, the --transport presets set what
// docs/net.md says, and RunSimulation reports an incomplete run. No binary needed.
#include "net/net_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "net/config.h"
#include "net/simulation.h"
#include "net/transport_preset.h"

namespace jigsaw::net {
namespace {

// A valid run: synthetic traffic on a small rack.
NetOptions Traffic() {
  NetOptions options;
  options.topology = "rack:hosts=4,gbps=100";
  options.traffic = "incast:2:10KB";
  return options;
}

std::string ErrorOf(const NetOptions& options) {
  try {
    options.Validate();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

template <typename T, size_t N>
void ExpectRoundTrip(const EnumName<T> (&table)[N]) {
  for (const EnumName<T>& row : table) {
    T value{};
    ASSERT_TRUE(ParseEnum(table, row.name, &value)) << row.name;
    EXPECT_TRUE(value == row.value) << row.name;
    if (!row.alias) {
      EXPECT_STREQ(EnumNameOf(table, value), row.name);
      EXPECT_NE(EnumNames(table).find(row.name), std::string::npos) << row.name;
    }
  }
  T value{};
  EXPECT_FALSE(ParseEnum(table, "no-such-name", &value));
}

TEST(NetEnumTables, RoundTrip) {
  ExpectRoundTrip(kCcModes);
  ExpectRoundTrip(kAckPriorities);
  ExpectRoundTrip(kTransportKinds);
  ExpectRoundTrip(kTransportPresets);
  ExpectRoundTrip(kOnOff);
  ExpectRoundTrip(kPl2BulkOrders);
  ExpectRoundTrip(kMlPlacements);
  ExpectRoundTrip(kMlPatterns);
  ExpectRoundTrip(kTimeseriesPorts);
  ExpectRoundTrip(kJobPlacements);
}

TEST(NetEnumTables, ListsAndHelpComeFromTheTable) {
  // Every mode the simulator accepts, reno included; the alias "pfc" parses but is not listed.
  EXPECT_EQ(EnumNames(kCcModes), "none, dcqcn, dctcp, timely, hpcc or reno");
  CcMode mode = CcMode::kHpcc;
  EXPECT_TRUE(ParseCcMode("pfc", &mode));
  EXPECT_EQ(mode, CcMode::kNone);
  EXPECT_EQ(EnumHelp(kCcModes),
            "none (line rate + PFC), dcqcn, dctcp, timely, hpcc, reno (TCP-like AIMD)");
  EXPECT_EQ(EnumNames(kTransportPresets), "pl2, homa, dctcp, dcqcn or lossy");
  EXPECT_EQ(EnumNames(kAckPriorities), "data or high");
  NetOptions options = Traffic();
  options.fabric.cc = "cubic";
  EXPECT_EQ(ErrorOf(options), "--cc 'cubic': expected none, dcqcn, dctcp, timely, hpcc or reno");
}

TEST(TransportPresets, SetTransportCcPfcAndEcn) {
  struct Expected {
    const char* name;
    TransportKind transport;
    CcMode cc;
    bool pfc;
    bool ecn;
  };
  // --cc dcqcn before the preset: pl2 and homa keep it, the others replace it.
  const Expected kExpected[] = {
      {"pl2", TransportKind::kPl2, CcMode::kDcqcn, false, false},
      {"homa", TransportKind::kHoma, CcMode::kDcqcn, false, false},
      {"dctcp", TransportKind::kRdma, CcMode::kDctcp, false, true},
      {"dcqcn", TransportKind::kRdma, CcMode::kDcqcn, true, true},
      {"lossy", TransportKind::kRdma, CcMode::kReno, false, false},
  };
  ASSERT_EQ(std::size(kExpected), std::size(kTransportPresets));
  for (const Expected& expected : kExpected) {
    NetOptions options = Traffic();
    options.fabric.cc = "dcqcn";
    options.fabric.pfc = "on";
    options.fabric.transport = expected.name;
    const NetRunSpec spec = options.Validate();
    EXPECT_EQ(spec.fabric.config.transport, expected.transport) << expected.name;
    EXPECT_EQ(spec.fabric.config.cc, expected.cc) << expected.name;
    EXPECT_EQ(spec.fabric.config.pfc, expected.pfc) << expected.name;
    EXPECT_EQ(spec.fabric.config.ecn, expected.ecn) << expected.name;
    ASSERT_TRUE(spec.fabric.transport.has_value());
    EXPECT_STREQ(EnumNameOf(kTransportPresets, *spec.fabric.transport), expected.name);
  }
}

TEST(NetOptions, ValidateTypesTheFields) {
  NetOptions options = Traffic();
  options.seed = 7;
  options.fabric.buffer = "1MiB";
  options.fabric.cc_params = {"dcqcn.rate_ai=10Mbps", "ecn_pmax=0.5"};
  options.output.timeseries_given = true;
  options.output.quiet = true;
  options.output.stop = "2ms";
  options.output.fail_links = {"0-4@1us"};
  options.jobs.dims = "2x2";
  const NetRunSpec spec = options.Validate();
  EXPECT_TRUE(spec.fabric.buffer_given);
  EXPECT_EQ(spec.fabric.config.buffer_bytes, uint64_t{1} << 20);
  EXPECT_EQ(spec.fabric.config.seed, 7u);
  EXPECT_FALSE(spec.fabric.config.progress);
  EXPECT_DOUBLE_EQ(spec.fabric.config.dcqcn.rate_ai_bps, 10e6);
  EXPECT_EQ(spec.fabric.cc_params.size(), 2u);
  EXPECT_EQ(spec.sample_interval, 10 * kMicrosecond);  // --timeseries alone: nonzero ports
  EXPECT_FALSE(spec.timeseries_all);
  EXPECT_EQ(spec.stop, 2 * kMillisecond);
  ASSERT_EQ(spec.failures.size(), 1u);
  EXPECT_EQ(spec.failures[0].b, 4u);
  EXPECT_EQ(spec.failures[0].at, kMicrosecond);
  EXPECT_EQ(spec.jobs.dims, (std::vector<int>{2, 2}));
  EXPECT_FALSE(spec.rack || spec.ps || spec.chakra || spec.background_cdf);
}

TEST(NetOptions, OneTrafficSource) {
  NetOptions none;
  none.topology = "rack:hosts=4";
  EXPECT_NE(ErrorOf(none).find("give one of --workload"), std::string::npos);
  NetOptions two = Traffic();
  two.flows = "flows.txt";
  EXPECT_NE(ErrorOf(two).find("give one of"), std::string::npos);
  NetOptions rack_and_background = none;
  rack_and_background.rack.load = "400%";
  rack_and_background.background.cdf = "websearch";
  EXPECT_NE(ErrorOf(rack_and_background).find("but --load"), std::string::npos);
  NetOptions background_only = none;
  background_only.background.cdf = "websearch";
  EXPECT_TRUE(background_only.Validate().background_cdf.has_value());
}

TEST(NetOptions, EveryErrorNamesItsFlag) {
  using Edit = void (*)(NetOptions*);
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](NetOptions* o) { o->fabric.window = "maybe"; }, "--window 'maybe': expected on or off"},
      {[](NetOptions* o) { o->fabric.pfc = "yes"; }, "--pfc 'yes': expected on or off"},
      {[](NetOptions* o) { o->fabric.ack_priority = "low"; },
       "--ack-priority 'low': expected data or high"},
      {[](NetOptions* o) { o->fabric.buffer = "1KiB"; }, "--buffer '1KiB'"},
      {[](NetOptions* o) { o->fabric.payload = 10; }, "--payload must be 64..9000"},
      {[](NetOptions* o) { o->fabric.transport = "tcp"; },
       "--transport 'tcp': expected pl2, homa, dctcp, dcqcn or lossy"},
      {[](NetOptions* o) { o->fabric.homa_overcommit = 0; }, "--homa-overcommit"},
      {[](NetOptions* o) { o->fabric.homa_per_sender = 9; }, "--homa-per-sender"},
      {[](NetOptions* o) { o->fabric.pl2_bulk_order = "newest"; },
       "--pl2-bulk-order 'newest': expected oldest or shared"},
      {[](NetOptions* o) { o->fabric.egress_shift = 17; }, "--egress-shift"},
      {[](NetOptions* o) { o->fabric.cc_params = {"rate"}; }, "--cc-param 'rate': expected NAME="},
      {[](NetOptions* o) { o->fabric.cc_params = {"dcqcn.g=2"}; }, "--cc-param dcqcn.g='2'"},
      {[](NetOptions* o) { o->output.stop = "soon"; }, "--stop 'soon'"},
      {[](NetOptions* o) {
         o->output.timeseries_given = true;
         o->output.timeseries = "some";
       },
       "--timeseries 'some': expected nothing, nonzero or all"},
      {[](NetOptions* o) {
         o->output.timeseries_given = true;
         o->output.sample_interval = "0us";
       },
       "--sample-interval '0us'"},
      {[](NetOptions* o) { o->output.fail_links = {"0-x@1us"}; }, "--fail-link '0-x@1us'"},
      {[](NetOptions* o) { o->jobs.iterations = 0; }, "--iterations must be in"},
      {[](NetOptions* o) { o->jobs.chunks = 0; }, "--chunks must be in"},
      {[](NetOptions* o) { o->jobs.max_active = 0; }, "--max-active must be in"},
      {[](NetOptions* o) { o->jobs.cycle_ns = -1; }, "--cycle-ns must be in"},
      {[](NetOptions* o) { o->jobs.dims = "0x2"; }, "--dims '0x2'"},
      {[](NetOptions* o) { o->jobs.placement = "diagonal"; },
       "--placement 'diagonal': expected interleave, block or random"},
      {[](NetOptions* o) {
         o->background.cdf = "websearch";
         o->background.load = "2";
       },
       "--background-load '2'"},
      {[](NetOptions* o) {
         o->background.cdf = "websearch";
         o->background.start = "x";
       },
       "--background-start 'x'"},
      {[](NetOptions* o) {
         o->background.cdf = "websearch";
         o->background.duration = "0us";
       },
       "--background-duration '0us'"},
      {[](NetOptions* o) {
         o->background.cdf = "websearch";
         o->background.priority = 8;
       },
       "--background-priority"},
  };
  for (const auto& [edit, expected] : cases) {
    NetOptions options = Traffic();
    edit(&options);
    const std::string error = ErrorOf(options);
    EXPECT_NE(error.find(expected), std::string::npos) << expected << " | " << error;
  }
}

TEST(NetOptions, RackErrorsNameTheirFlag) {
  using Edit = void (*)(RackOptions*);
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](RackOptions* r) { r->load = "lots"; }, "--load 'lots'"},
      {[](RackOptions* r) { r->rpc_load = 1; }, "--rpc-load must be in"},
      {[](RackOptions* r) { r->duration = "0ms"; }, "--duration '0ms'"},
      {[](RackOptions* r) { r->drain = "11s"; }, "--drain '11s'"},
      {[](RackOptions* r) { r->ml_bytes = "much"; }, "--ml-bytes 'much'"},
      {[](RackOptions* r) { r->ml_hosts = 1; }, "--ml-hosts must be in"},
      {[](RackOptions* r) { r->ml_chunks = 0; }, "--ml-chunks must be in"},
      {[](RackOptions* r) { r->ml_placement = "side"; },
       "--ml-placement 'side': expected away or with-server"},
      {[](RackOptions* r) { r->ml_pattern = "tree"; }, "--ml-pattern 'tree': expected ring or ps"},
  };
  for (const auto& [edit, expected] : cases) {
    NetOptions options;
    options.topology = "rack:hosts=4";
    options.rack.load = "400%";
    edit(&options.rack);
    const std::string error = ErrorOf(options);
    EXPECT_NE(error.find(expected), std::string::npos) << expected << " | " << error;
  }
  NetOptions ok;
  ok.topology = "rack:hosts=4";
  ok.rack.load = "400%";
  ok.rack.ml_pattern = "ps";
  ok.rack.ml_placement = "with-server";
  const NetRunSpec spec = ok.Validate();
  ASSERT_TRUE(spec.rack.has_value());
  EXPECT_DOUBLE_EQ(spec.rack->load, 4.0);
  EXPECT_EQ(spec.rack->ml_pattern, MlPattern::kParameterServer);
  EXPECT_TRUE(spec.rack->ml_with_server);
}

TEST(NetOptions, PsJobsTakeTheRunSeed) {
  NetOptions options;
  options.topology = "rack:hosts=4";
  options.seed = 42;
  options.ps.jobs = 1;
  options.ps.workers = 2;
  options.ps.model = "mlp";
  const NetRunSpec spec = options.Validate();
  ASSERT_TRUE(spec.ps.has_value());
  EXPECT_EQ(spec.ps->seed, 42u);
}

TEST(RunSimulation, WritesOutputsAndReportsAnIncompleteRun) {
  const std::string out =
      (std::filesystem::temp_directory_path() / "jigsaw_net_options_test").string();
  std::filesystem::remove_all(out);
  NetOptions options = Traffic();
  options.output.out = out;
  options.output.quiet = true;
  const NetRunResult done = RunSimulation(options.Validate());
  EXPECT_FALSE(done.incomplete());
  EXPECT_EQ(done.flows, 2u);
  EXPECT_TRUE(std::filesystem::exists(out + "/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(out + "/flows.csv"));
  options.output.stop = "0s";
  const NetRunResult stopped = RunSimulation(options.Validate());
  EXPECT_TRUE(stopped.incomplete());
  EXPECT_EQ(stopped.unfinished_flows, 2u);
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace jigsaw::net
