// Chakra execution traces: the hand-written protobuf reader on traces built here byte by byte,
// its errors (file, node, what was expected), the cross-rank checks, and execution on the packet
// simulator with exact times (a compute -> all-reduce -> compute chain on a 2-host fabric).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/chakra_job.h"
#include "net/chakra_reader.h"
#include "net/chakra_workload.h"
#include "net/collective.h"
#include "net/topology.h"

namespace jigsaw::net {
namespace {

// A minimal protobuf writer for the test traces.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string Key(uint32_t field, int wire) { return Varint((uint64_t{field} << 3) | wire); }
std::string VarintField(uint32_t field, uint64_t v) { return Key(field, 0) + Varint(v); }
std::string Bytes(uint32_t field, const std::string& b) {
  return Key(field, 2) + Varint(b.size()) + b;
}
std::string Attr(const std::string& name, uint64_t v, uint32_t value_field = 9) {
  return Bytes(10, Bytes(1, name) + VarintField(value_field, v));
}
std::string Delimited(const std::string& message) { return Varint(message.size()) + message; }
std::string Metadata() { return Delimited(Bytes(1, "0.0.4")); }

std::string Node(uint64_t id, int type, const std::vector<uint64_t>& data_deps,
                 const std::string& extra) {
  std::string m = VarintField(1, id) + Bytes(2, "n" + std::to_string(id)) + VarintField(3, type);
  std::string packed;
  for (uint64_t d : data_deps) packed += Varint(d);
  if (!packed.empty()) m += Bytes(5, packed);
  return Delimited(m + extra);
}
std::string Comp(uint64_t id, uint64_t micros, const std::vector<uint64_t>& deps) {
  return Node(id, 4, deps, VarintField(7, micros));
}
std::string AllReduce(uint64_t id, uint64_t bytes, const std::vector<uint64_t>& deps) {
  return Node(id, 7, deps, Attr("comm_type", 0) + Attr("comm_size", bytes));
}

std::string ErrorOf(const std::string& bytes) {
  try {
    ParseChakraTrace("t.0.et", bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ChakraReader, ReadsNodesDependenciesAndAttributes) {
  const std::string trace =
      Metadata() + Comp(1, 5, {}) +
      Node(2, 7, {1},
           Attr("comm_type", 2) + Attr("comm_size", 4096, 13) + Attr("pg_name", 0, 9) +
               Bytes(10, Bytes(1, "involved_dim") + Bytes(28, "\x01\x01"))) +
      Delimited(VarintField(1, 3) + VarintField(3, 4) + VarintField(4, 1) + VarintField(4, 2) +
                Bytes(10, Bytes(1, "is_cpu_op") + VarintField(27, 1)) + Bytes(8, "x"));
  const ChakraTrace t = ParseChakraTrace("t.0.et", trace);
  EXPECT_EQ(t.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].type, ChakraNodeType::kComp);
  EXPECT_EQ(t.nodes[0].duration_micros, 5u);
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{1}));
  EXPECT_EQ(t.nodes[1].comm_type, 2u);
  EXPECT_EQ(t.nodes[1].comm_size, 4096u);
  EXPECT_EQ(t.nodes[2].ctrl_deps, (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(t.nodes[2].is_cpu_op);
  EXPECT_EQ(t.ignored.at("attribute pg_name"), 1u);
  EXPECT_EQ(t.ignored.at("attribute involved_dim"), 1u);
  EXPECT_EQ(t.ignored.at("Node.inputs"), 1u);
}

TEST(ChakraReader, ErrorsNameTheFileTheNodeAndWhatWasExpected) {
  const std::string good = Metadata() + Comp(1, 5, {});
  // A truncated varint: the last byte of a multi-byte varint is missing.
  std::string truncated = Metadata() + Delimited(VarintField(1, 7) + Key(7, 0) + "\xff");
  EXPECT_NE(ErrorOf(truncated).find("node message #0 (id 7): truncated varint"), std::string::npos)
      << ErrorOf(truncated);
  EXPECT_NE(ErrorOf(good.substr(0, good.size() - 2)).find("runs past the end"), std::string::npos);
  // A known field with the wrong wire type.
  const std::string wrong = Metadata() + Delimited(VarintField(1, 4) + Bytes(3, "COMP"));
  EXPECT_NE(
      ErrorOf(wrong).find("t.0.et: byte 11, node message #0 (id 4): Node.type (3) has wire type "
                          "length-delimited (2), expected varint (0)"),
      std::string::npos)
      << ErrorOf(wrong);
  const std::string bad_attr =
      Metadata() + Node(3, 7, {}, Bytes(10, Bytes(1, "comm_size") + Bytes(29, "1MB")));
  EXPECT_NE(ErrorOf(bad_attr).find("attribute 'comm_size': expected an integer or bool value, "
                                   "found string_val"),
            std::string::npos)
      << ErrorOf(bad_attr);
  // A dependency on a missing node, and a cycle.
  EXPECT_NE(
      ErrorOf(Metadata() + Comp(1, 1, {9}))
          .find("t.0.et: node 1 (#0 in the file) depends on node 9, which is not in the file"),
      std::string::npos);
  EXPECT_NE(ErrorOf(Metadata() + Comp(1, 1, {3}) + Comp(2, 1, {1}) + Comp(3, 1, {2}))
                .find("is on a dependency cycle (1 -> 3 -> 2 -> 1"),
            std::string::npos)
      << ErrorOf(Metadata() + Comp(1, 1, {3}) + Comp(2, 1, {1}) + Comp(3, 1, {2}));
  EXPECT_NE(ErrorOf(Metadata() + Comp(1, 1, {}) + Comp(1, 1, {})).find("already used"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Metadata() + Node(5, 0, {}, "")).find("INVALID_NODE"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("empty"), std::string::npos);
}

ChakraTrace Trace(const std::string& file, const std::string& bytes) {
  return ParseChakraTrace(file, bytes);
}

std::string JobError(std::vector<ChakraTrace> ranks, double tflops = 0) {
  try {
    MakeChakraJob("j", std::move(ranks), tflops);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ChakraJob, RanksMustAgree) {
  const std::string ar = Metadata() + AllReduce(0, 1000, {});
  const std::string ag =
      Metadata() + Node(0, 7, {}, Attr("comm_type", 2) + Attr("comm_size", 1000));
  EXPECT_EQ(JobError({Trace("j.0.et", ar), Trace("j.1.et", ar)}), "no error");
  EXPECT_NE(
      JobError({Trace("j.0.et", ar), Trace("j.1.et", ag)})
          .find("j.1.et: node 0 (#0): collective #0 is ALL_GATHER of 1000 bytes, but j.0.et's "
                "collective #0 (node 0) is ALL_REDUCE of 1000 bytes"),
      std::string::npos)
      << JobError({Trace("j.0.et", ar), Trace("j.1.et", ag)});
  EXPECT_NE(JobError({Trace("j.0.et", ar), Trace("j.1.et", Metadata())}).find("has 0 collectives"),
            std::string::npos);
  // A send to a rank the job does not have, and a send without its receive.
  const std::string send =
      Metadata() +
      Node(0, 5, {}, Attr("comm_dst", 2) + Attr("comm_size", 10) + Attr("comm_tag", 0));
  EXPECT_NE(JobError({Trace("j.0.et", send), Trace("j.1.et", Metadata())})
                .find("comm_dst 2, but the job has 2 ranks"),
            std::string::npos);
  const std::string send1 =
      Metadata() + Node(0, 5, {}, Attr("comm_dst", 1) + Attr("comm_size", 10));
  EXPECT_NE(JobError({Trace("j.0.et", send1), Trace("j.1.et", Metadata())})
                .find("1 more send(s) from rank 0 to rank 1 with tag 0 than receives"),
            std::string::npos);
  const std::string flops = Metadata() + Node(0, 4, {}, Attr("num_ops", 1000000));
  EXPECT_NE(JobError({Trace("j.0.et", flops)}).find("give --npu-tflops"), std::string::npos);
  EXPECT_EQ(JobError({Trace("j.0.et", flops)}, 100), "no error");
}

TEST(ChakraJob, RankFilesMustBeNumberedWithoutGaps) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("jigsaw_chakra_gap_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "t").string();
  for (int rank : {0, 1, 3}) {
    std::ofstream(ChakraRankFile(prefix, rank), std::ios::binary) << Metadata() << Comp(1, 1, {});
  }
  try {
    LoadChakraJob(prefix, 0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.3.et: rank 3, but " + prefix +
                                         ".2.et is missing; expected rank files numbered 0..1"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(ChakraRankFile(prefix, 3));
  EXPECT_EQ(LoadChakraJob(prefix, 0).ranks.size(), 2u);
  std::filesystem::remove_all(dir);
}

// compute 10 us -> all-reduce of 64 KB -> compute 7 us on each of 2 ranks, one host each: the
// all-reduce starts at exactly 10 us and takes exactly as long as the same collective alone on
// an idle copy of the fabric; the iteration ends 7 us after it.
TEST(ChakraWorkload, ComputeAllReduceComputeChainInExactTimes) {
  RackSpec rack;
  rack.hosts = 2;
  const Topology topology = MakeRack(rack);
  Time alone = 0;
  {
    Network network(topology, NetConfig{});
    CollectiveEngine engine(&network);
    CollectiveSpec spec;
    spec.bytes = 64'000;
    spec.hosts = {0, 1};
    spec.chunks = 2;
    const uint32_t id = engine.Start(spec, nullptr);
    network.Run();
    alone = engine.end_time(id) - engine.start_time(id);
  }
  ASSERT_GT(alone, 0);
  const std::string rank =
      Metadata() + Comp(1, 10, {}) + AllReduce(2, 64'000, {1}) + Comp(3, 7, {2});
  const ChakraJob job =
      MakeChakraJob("chain", {Trace("chain.0.et", rank), Trace("chain.1.et", rank)}, 0);
  Network network(topology, NetConfig{});
  ChakraJobSpec spec;
  spec.job = &job;
  spec.hosts = {0, 1};
  spec.chunks = 2;
  const std::vector<ChakraJobResult> results = RunChakraJobs(&network, {spec});
  ASSERT_EQ(results.size(), 1u);
  const ChakraJobResult& r = results[0];
  ASSERT_EQ(r.comms.size(), 1u);
  EXPECT_EQ(r.comms[0].type, "ALL_REDUCE");
  EXPECT_EQ(r.comms[0].started, 10 * kMicrosecond);
  EXPECT_EQ(r.comms[0].finished, 10 * kMicrosecond + alone);
  EXPECT_EQ(r.finished, 17 * kMicrosecond + alone);
  EXPECT_EQ(r.iteration_times, (std::vector<Time>{17 * kMicrosecond + alone}));
  EXPECT_EQ(r.nodes_done, 6u);
}

// Point-to-point: a send on rank 0 matched by a receive on rank 1 whose data dependency is a
// compute; the receive finishes when the message is delivered.
TEST(ChakraWorkload, SendsMatchReceivesByTag) {
  RackSpec rack;
  rack.hosts = 2;
  const Topology topology = MakeRack(rack);
  const std::string r0 =
      Metadata() +
      Node(1, 5, {}, Attr("comm_dst", 1) + Attr("comm_size", 3000) + Attr("comm_tag", 4));
  const std::string r1 =
      Metadata() + Comp(1, 100, {}) +
      Node(2, 6, {1}, Attr("comm_src", 0) + Attr("comm_size", 3000) + Attr("comm_tag", 4)) +
      Comp(3, 1, {2});
  const ChakraJob job = MakeChakraJob("p2p", {Trace("p2p.0.et", r0), Trace("p2p.1.et", r1)}, 0);
  Network network(topology, NetConfig{});
  ChakraJobSpec spec;
  spec.job = &job;
  spec.hosts = {0, 1};
  const auto results = RunChakraJobs(&network, {spec});
  ASSERT_EQ(results[0].comms.size(), 1u);
  EXPECT_LT(results[0].comms[0].finished, 100 * kMicrosecond);  // sent before it was received
  EXPECT_EQ(results[0].finished, 101 * kMicrosecond);
}

}  // namespace
}  // namespace jigsaw::net
