// The HPCC flow file, size CDFs and Poisson background traffic: good inputs, and malformed ones
// refused with file:line.
#include "net/flow_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace jigsaw::net {
namespace {

// Switch first (node 0), then hosts 1..3: node ids differ from host ranks.
Topology SwitchFirst() {
  return ParseTopologyText("tri",
                           "4 1 3\n0\n1 0 100Gbps 1us 0\n2 0 100Gbps 1us 0\n3 0 100Gbps 1us 0\n");
}

std::vector<FlowSpec> Parse(const std::string& text) {
  TextFile file("flows.txt", text);
  return ParseFlowFile(file, SwitchFirst());
}

std::string ErrorOf(const std::string& text) {
  try {
    Parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NetFlowFile, ReadsHpccFlows) {
  const auto flows = Parse("2\n1 3 3 100 200000 2\n\n3 2 0 100 5000 2.000001\n");
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].src_host, 0u);  // node 1 is host rank 0
  EXPECT_EQ(flows[0].dst_host, 2u);
  EXPECT_EQ(flows[0].priority, 3);
  EXPECT_EQ(flows[0].bytes, 200000u);
  EXPECT_EQ(flows[0].start, 2 * kSecond);
  EXPECT_EQ(flows[1].start, 2 * kSecond + kMicrosecond);
  EXPECT_TRUE(Parse("0\n").empty());
}

TEST(NetFlowFile, MalformedFilesNameFileAndLine) {
  EXPECT_NE(ErrorOf("").find("flows.txt"), std::string::npos);
  EXPECT_NE(ErrorOf("x\n").find("flows.txt:1"), std::string::npos);
  EXPECT_NE(ErrorOf("2\n1 3 3 100 1 0\n").find("but 1 follow"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 100 1 0\n1 2 3 100 1 0\n").find("flows.txt:3"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 100 1\n").find("flows.txt:2: expected 6"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n0 3 3 100 1 0\n").find("is a switch"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 9 3 100 1 0\n").find("flows.txt:2"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 1 3 100 1 0\n").find("same node"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 8 100 1 0\n").find("priority"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 100 0 0\n").find("size"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 100 1 -1\n").find("start time"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 100 1 nan\n").find("flows.txt:2"), std::string::npos);
  EXPECT_NE(ErrorOf("1\n1 3 3 70000 1 0\n").find("dport"), std::string::npos);
}

TEST(NetSizeCdf, InterpolatesLikeTrafficGen) {
  TextFile file("u.txt", "0 0\n2000 100\n");
  const SizeCdf uniform = SizeCdf::Parse(file);
  EXPECT_DOUBLE_EQ(uniform.Mean(), 1000);
  EXPECT_EQ(uniform.SizeAt(0.25), 500u);
  EXPECT_EQ(uniform.SizeAt(0), 1u);  // at least one byte
  // Web search by hand: the trapezoids of HPCC's WebSearch_distribution.txt.
  const SizeCdf web = SizeCdf::Load("websearch");
  EXPECT_NEAR(web.Mean(), 1'711'250, 1);
  EXPECT_EQ(web.SizeAt(0.15), 10000u);
  EXPECT_EQ(web.SizeAt(0.65), 600'000u);
  EXPECT_GT(SizeCdf::Load("datamining").Mean(), 1e6);
}

TEST(NetSizeCdf, MalformedCdfIsRefused) {
  for (const char* text : {"5 1\n10 100\n", "0 0\n10 50\n", "0 0\n10 50\n5 100\n",
                           "0 0\n10 50\n20 50\n", "0 0 1\n10 100\n", "0 0\n"}) {
    TextFile file("c.txt", text);
    EXPECT_THROW(SizeCdf::Parse(file), InputError) << text;
  }
}

TEST(NetBackground, OffersTheRequestedLoad) {
  TextFile file("u.txt", "0 0\n2000 100\n");  // mean 1000 bytes
  const SizeCdf cdf = SizeCdf::Parse(file);
  BackgroundSpec spec;
  spec.load = 0.25;
  spec.start = 10 * kMicrosecond;
  spec.duration = 1 * kMillisecond;
  spec.priority = 2;
  const std::vector<uint32_t> hosts = {0, 1, 2, 3};
  const std::vector<uint64_t> rates(4, 10'000'000'000);  // 10 Gbps
  const auto flows = GenerateBackground(cdf, spec, hosts, rates);
  // 0.25 x 10 Gbps x 1 ms = 312,500 bytes per host, about 312 flows of 1000 bytes each.
  std::vector<uint64_t> bytes(4, 0);
  Time previous = 0;
  for (const FlowSpec& f : flows) {
    EXPECT_NE(f.src_host, f.dst_host);
    EXPECT_GE(f.start, spec.start);
    EXPECT_LT(f.start, spec.start + spec.duration);
    EXPECT_GE(f.start, previous);
    EXPECT_EQ(f.priority, 2);
    previous = f.start;
    bytes[f.src_host] += f.bytes;
  }
  for (uint64_t b : bytes) EXPECT_NEAR(static_cast<double>(b), 312'500, 312'500 * 0.25);
  EXPECT_EQ(GenerateBackground(cdf, spec, hosts, rates).size(), flows.size());  // seeded
  spec.load = 1.5;
  EXPECT_THROW(GenerateBackground(cdf, spec, hosts, rates), UsageError);
}

}  // namespace
}  // namespace jigsaw::net
