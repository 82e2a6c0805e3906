// GraphML reading: attributes, repairs (parallel edges, self-loops, missing coordinates and
// speeds), components, errors with file:line, and every Topology Zoo file.
#include "d2r/graphml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"

namespace jigsaw::d2r {
namespace {

const char kHeader[] = R"(<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="LinkSpeedRaw" attr.type="double" for="edge" id="d1" />
  <key attr.name="label" attr.type="string" for="node" id="d2" />
  <key attr.name="Latitude" attr.type="double" for="node" id="d3" />
  <key attr.name="Longitude" attr.type="double" for="node" id="d4" />
  <key attr.name="label" attr.type="string" for="graph" id="d5" />
  <graph edgedefault="undirected">
    <data key="d5">Test</data>
)";

std::string Graph(const std::string& body) { return kHeader + body + "  </graph>\n</graphml>\n"; }

std::string Node(const std::string& id, const std::string& label, double lat, double lon) {
  return "    <node id=\"" + id + "\"><data key=\"d2\">" + label + "</data><data key=\"d3\">" +
         std::to_string(lat) + "</data><data key=\"d4\">" + std::to_string(lon) +
         "</data></node>\n";
}

// The error's text for a bad input ("" when it parses).
std::string ErrorOf(const std::string& text) {
  try {
    ParseGraphml("bad.graphml", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(GreatCircle, KnownDistances) {
  // New York - Chicago ~1145 km; a quarter meridian = pi/2 * 6371 km.
  EXPECT_NEAR(GreatCircleKm(40.71427, -74.00597, 41.85003, -87.65005), 1145, 5);
  EXPECT_NEAR(GreatCircleKm(0, 0, 90, 0), 10007.5, 0.5);
  EXPECT_EQ(GreatCircleKm(10, 20, 10, 20), 0);
  // 2/3 c: about 5.0 us per km.
  EXPECT_NEAR(net::ToMicroseconds(FibreDelay(1000)), 5003.5, 0.5);
}

TEST(Graphml, ReadsNodesLinksDelaysAndSpeeds) {
  const std::string text =
      Graph(Node("0", "New York", 40.71427, -74.00597) + Node("1", "Chicago", 41.85003, -87.65005) +
            Node("2", "Denver", 39.73915, -104.9847) +
            "    <edge source=\"0\" target=\"1\"><data key=\"d1\">10000000000.0</data></edge>\n"
            "    <edge source=\"1\" target=\"2\" />\n");
  Topology t = ParseGraphml("t.graphml", text);
  ASSERT_EQ(t.num_nodes(), 3);
  ASSERT_EQ(t.num_links(), 2);
  EXPECT_EQ(t.nodes[1].label, "Chicago");
  EXPECT_EQ(t.nodes[0].line, 10);
  const int ny_chi = t.FindLink(0, 1);
  ASSERT_GE(ny_chi, 0);
  EXPECT_TRUE(t.links[ny_chi].rate_known);
  EXPECT_EQ(t.links[ny_chi].rate_bps, 10'000'000'000ULL);
  EXPECT_NEAR(net::ToMicroseconds(t.links[ny_chi].delay), 1145 * 5.0035, 30);
  const int chi_den = t.FindLink(1, 2);
  EXPECT_FALSE(t.links[chi_den].rate_known);
  EXPECT_EQ(t.links[chi_den].rate_bps, TopologyDefaults().link_rate_bps);
  EXPECT_EQ(t.links_without_rate, 1);
  EXPECT_EQ(t.num_components, 1);
  EXPECT_EQ(t.NodeName(2), "Denver");
  std::string why;
  EXPECT_EQ(t.ResolveNode("Chicago", &why), 1);
  EXPECT_EQ(t.ResolveNode("2", &why), 2);
  EXPECT_EQ(t.ResolveNode("Boston", &why), -1);
  EXPECT_NE(why.find("Boston"), std::string::npos);
  EXPECT_EQ(t.ResolveLink("New York-Chicago", &why), ny_chi);
  EXPECT_EQ(t.ResolveLink("Denver-Chicago", &why), chi_den);
  EXPECT_EQ(t.ResolveLink("New York-Denver", &why), -1);
}

TEST(Graphml, MergesParallelEdgesDropsSelfLoopsAndFindsComponents) {
  const std::string text =
      Graph(Node("a", "A", 0, 0) + Node("b", "B", 0, 1) + Node("c", "C", 0, 2) +
            Node("d", "D", 5, 5) + Node("e", "E", 5, 6) +
            "    <edge source=\"a\" target=\"b\"><data key=\"d1\">1000000000</data></edge>\n"
            "    <edge source=\"b\" target=\"a\"><data key=\"d1\">2000000000</data></edge>\n"
            "    <edge source=\"b\" target=\"c\" />\n"
            "    <edge source=\"c\" target=\"c\" />\n"
            "    <edge source=\"d\" target=\"e\" />\n");
  Topology t = ParseGraphml("t.graphml", text);
  EXPECT_EQ(t.num_links(), 3);
  EXPECT_EQ(t.parallel_edges_merged, 1);
  EXPECT_EQ(t.self_loops_dropped, 1);
  const Link& ab = t.links[t.FindLink(0, 1)];
  EXPECT_EQ(ab.parallel_edges, 2);
  EXPECT_EQ(ab.rate_bps, 3'000'000'000ULL);  // parallel circuits add up
  EXPECT_EQ(t.num_components, 2);
  EXPECT_EQ(t.component[0], t.component[2]);
  EXPECT_NE(t.component[0], t.component[3]);
  // Adjacency is sorted by neighbour index.
  ASSERT_EQ(t.adjacency[1].size(), 2u);
  EXPECT_EQ(t.adjacency[1][0].node, 0);
  EXPECT_EQ(t.adjacency[1][1].node, 2);
}

TEST(Graphml, MissingCoordinatesUseTheMedianOrTheDefault) {
  const std::string some = Graph(Node("a", "A", 0, 0) + Node("b", "B", 0, 1) +
                                 Node("c", "C", 0, 3) + "    <node id=\"x\" />\n" +
                                 "    <edge source=\"a\" target=\"b\" />\n"
                                 "    <edge source=\"b\" target=\"c\" />\n"
                                 "    <edge source=\"a\" target=\"c\" />\n"
                                 "    <edge source=\"c\" target=\"x\" />\n");
  Topology t = ParseGraphml("t.graphml", some);
  // Geo delays: 1, 2 and 3 degrees of longitude at the equator; the median is 2 degrees.
  EXPECT_EQ(t.links_without_coordinates, 1);
  EXPECT_EQ(t.links[t.FindLink(2, 3)].delay, t.links[t.FindLink(1, 2)].delay);

  const std::string none = Graph(
      "    <node id=\"p\" />\n    <node id=\"q\" />\n    <edge source=\"p\" target=\"q\" />\n");
  TopologyDefaults defaults;
  defaults.link_delay = 3 * net::kMillisecond;
  Topology u = ParseGraphml("u.graphml", none, defaults);
  EXPECT_EQ(u.links[0].delay, 3 * net::kMillisecond);
  EXPECT_FALSE(u.links[0].delay_from_coordinates);
}

TEST(Graphml, MalformedInputNamesFileAndLine) {
  // Lines: 1-9 header, 10 node a, 11 the broken tag, 12 "</graph>".
  EXPECT_EQ(ErrorOf(Graph(Node("a", "A", 0, 0) + "    <node id=\"b\"\n")),
            "bad.graphml:12: not well-formed XML: Error parsing start element tag");
  EXPECT_EQ(ErrorOf(Graph(Node("a", "A", 0, 0) + "    <edge source=\"a\" target=\"z\" />\n")),
            "bad.graphml:11: edge target 'z' is not a node id");
  EXPECT_EQ(ErrorOf(Graph(Node("a", "A", 0, 0) + "    <edge target=\"a\" />\n")),
            "bad.graphml:11: <edge> needs both source and target attributes");
  EXPECT_EQ(ErrorOf(Graph(Node("a", "A", 0, 0) + Node("a", "B", 1, 1))),
            "bad.graphml:11: node id 'a' is defined twice (first at line 10)");
  EXPECT_EQ(ErrorOf(Graph("    <node id=\"a\"><data key=\"d3\">north</data><data key=\"d4\">1"
                          "</data></node>\n")),
            "bad.graphml:10: node 'a': Latitude 'north' is not a number");
  EXPECT_EQ(ErrorOf(Graph("    <node id=\"a\"><data key=\"d3\">95</data><data key=\"d4\">1"
                          "</data></node>\n")),
            "bad.graphml:10: node 'a': Latitude must be within [-90, 90]");
  EXPECT_EQ(ErrorOf(Graph("    <node id=\"a\"><data key=\"d3\">5</data></node>\n")),
            "bad.graphml:10: node 'a' has a Latitude but no Longitude");
  EXPECT_EQ(ErrorOf(Graph(Node("a", "A", 0, 0) + Node("b", "B", 1, 1) +
                          "    <edge source=\"a\" target=\"b\"><data key=\"d1\">fast</data>"
                          "</edge>\n")),
            "bad.graphml:12: edge a-b: LinkSpeedRaw 'fast' is not a number");
  EXPECT_EQ(ErrorOf(Graph("")), "bad.graphml:8: the <graph> has no <node> elements");
  EXPECT_EQ(ErrorOf("<topology/>"),
            "bad.graphml:1: expected a <graphml> root element (GraphML topology)");
  EXPECT_EQ(ErrorOf("<graphml>\n<key id=\"x\"/>\n</graphml>"),
            "bad.graphml:1: expected a <graph> element inside <graphml>");
  EXPECT_EQ(ErrorOf(""), "bad.graphml:1: not well-formed XML: No document element found");
}

TEST(Graphml, MissingFileIsAnInputError) {
  EXPECT_THROW(ReadGraphml("/nonexistent/x.graphml"), InputError);
}

// Every Topology Zoo file reads (the bench lists failures; this guards against regressions).
TEST(Graphml, EveryTopologyZooFileParses) {
  const std::filesystem::path zoo = std::filesystem::path(JIGSAW_SHARED_DATA) / "topologies/zoo";
  if (!std::filesystem::is_directory(zoo)) GTEST_SKIP() << "no Topology Zoo data at " << zoo;
  int files = 0, nodes_max = 0, disconnected = 0, merged = 0;
  for (const auto& entry : std::filesystem::directory_iterator(zoo)) {
    if (entry.path().extension() != ".graphml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    Topology t = ReadGraphml(entry.path().string());
    EXPECT_GT(t.num_nodes(), 0);
    for (const Link& link : t.links) {
      EXPECT_NE(link.a, link.b);
      EXPECT_GE(link.delay, 0);
      EXPECT_GT(link.rate_bps, 0u);
    }
    nodes_max = std::max(nodes_max, t.num_nodes());
    disconnected += t.num_components > 1;
    merged += t.parallel_edges_merged > 0;
  }
  EXPECT_EQ(files, 276);
  EXPECT_EQ(nodes_max, 754);  // Kdl
  EXPECT_GT(disconnected, 0);
  EXPECT_GT(merged, 0);
}

}  // namespace
}  // namespace jigsaw::d2r
