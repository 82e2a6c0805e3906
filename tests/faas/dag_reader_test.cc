// DAG files: a valid file's structure, and file:line errors for every malformed case the issue
// names (cycles, unknown functions, missing deadlines) and a few more.
#include "faas/dag_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace jigsaw::faas {
namespace {

const char* kValid = R"({
  "format": "jigsaw-faas-dags-v1",
  "dags": [
    {"name": "thumbnail", "deadline": "300ms", "rate": 20,
     "functions": [
       {"name": "resize", "duration": "40ms", "after": ["fetch"], "memory": "256MB"},
       {"name": "fetch", "duration": "20ms", "setup": "100ms"},
       {"name": "store", "duration": "5ms", "after": ["resize", "fetch"]}
     ]},
    {"name": "hash", "deadline": "50ms",
     "functions": [{"name": "sha", "duration": "2ms"}]}
  ]
})";

// The InputError's line, and its message must contain `fragment`.
int ErrorLine(const std::string& text, const std::string& fragment) {
  try {
    ParseDagText("dags.json", text);
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), "dags.json");
    return e.line();
  }
  ADD_FAILURE() << "no error for: " << text;
  return -1;
}

std::string WithSecondDag(const std::string& dag) {
  return std::string(R"({
  "format": "jigsaw-faas-dags-v1",
  "dags": [
    {"name": "ok", "deadline": "10ms", "functions": [{"name": "a", "duration": "1ms"}]},
    )") + dag +
         "\n  ]\n}";
}

TEST(DagReader, ReadsFunctionsInTopologicalOrderWithDefaults) {
  const Catalog catalog = ParseDagText("dags.json", kValid);
  ASSERT_EQ(catalog.dags.size(), 2u);
  ASSERT_EQ(catalog.functions.size(), 4u);
  const Dag& thumb = catalog.dags[0];
  EXPECT_EQ(thumb.deadline, 300 * net::kMillisecond);
  EXPECT_DOUBLE_EQ(thumb.rate_per_s, 20);
  EXPECT_EQ(thumb.line, 4);
  ASSERT_EQ(thumb.nodes.size(), 3u);
  EXPECT_EQ(catalog.functions[thumb.nodes[0]].name, "fetch");
  EXPECT_EQ(catalog.functions[thumb.nodes[1]].name, "resize");
  EXPECT_EQ(catalog.functions[thumb.nodes[2]].name, "store");
  EXPECT_EQ(thumb.predecessor_count, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(catalog.functions[thumb.nodes[0]].setup, 100 * net::kMillisecond);
  EXPECT_EQ(catalog.functions[thumb.nodes[1]].setup, 250 * net::kMillisecond);  // default
  EXPECT_EQ(catalog.functions[thumb.nodes[1]].memory, 256'000'000u);
  EXPECT_EQ(catalog.functions[thumb.nodes[0]].memory, 128u << 20);  // default
  // fetch 20 -> resize 40 -> store 5: the critical path from fetch is 65 ms.
  std::vector<Time> durations;
  for (const Function& f : catalog.functions) durations.push_back(f.duration);
  const std::vector<Time> path = CriticalPathFrom(thumb, durations);
  EXPECT_EQ(path[0], 65 * net::kMillisecond);
  EXPECT_EQ(path[1], 45 * net::kMillisecond);
  EXPECT_EQ(path[2], 5 * net::kMillisecond);
  EXPECT_EQ(catalog.dags[1].line, 10);
}

TEST(DagReader, CycleIsAnErrorAtTheDagsLine) {
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "loop", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms", "after": ["y"]},
       {"name": "y", "duration": "1ms", "after": ["x"]}]})"),
                      "cycle"),
            5);
}

TEST(DagReader, UnknownFunctionNamed) {
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms", "after": ["nope"]}]})"),
                      "unknown function 'nope'"),
            5);
}

TEST(DagReader, FunctionCodeIsCheckedWithItsLine) {
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms", "code": "sha256:0B"}]})"),
                      "\"code\" must be sha256:SIZE"),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms", "code": "resize:2000"}]})"),
                      "resize:SIDE"),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms", "code": "python"}]})"),
                      "sha256:SIZE, resize:SIDE[xCOUNT] or probe:isolation"),
            5);
  const Catalog catalog = ParseDagText("dags.json", WithSecondDag(R"({"name": "b",
       "deadline": "1s", "functions": [{"name": "x", "duration": "1ms", "code": "resize:64x2"}]})"));
  EXPECT_EQ(catalog.functions.back().code, "resize:64x2");
  EXPECT_EQ(catalog.functions.front().code, "sha256:1MiB");  // the default
}

TEST(DagReader, MissingOrBadDeadline) {
  EXPECT_EQ(
      ErrorLine(WithSecondDag(R"({"name": "b", "functions": [{"name": "x", "duration": "1ms"}]})"),
                "missing \"deadline\""),
      5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "0ms",
                          "functions": [{"name": "x", "duration": "1ms"}]})"),
                      "\"deadline\" must be a positive duration"),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": 300,
                          "functions": [{"name": "x", "duration": "1ms"}]})"),
                      "\"deadline\""),
            5);
}

TEST(DagReader, OtherMalformedDags) {
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": []})"),
                      "non-empty \"functions\""),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "functions": [
       {"name": "x", "duration": "1ms"}, {"name": "x", "duration": "2ms"}]})"),
                      "duplicate function 'x'"),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "ok", "deadline": "1s",
                          "functions": [{"name": "x", "duration": "1ms"}]})"),
                      "duplicate DAG name 'ok' (first at line 4)"),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s",
                          "functions": [{"name": "x"}]})"),
                      "missing \"duration\""),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s",
                          "functions": [{"name": "x", "duration": "1ms", "memory": "lots"}]})"),
                      "\"memory\""),
            5);
  EXPECT_EQ(ErrorLine(WithSecondDag(R"({"name": "b", "deadline": "1s", "rate": -1,
                          "functions": [{"name": "x", "duration": "1ms"}]})"),
                      "rate"),
            5);
}

TEST(DagReader, SyntaxAndFormatErrors) {
  EXPECT_EQ(ErrorLine("{\n\"format\": \"jigsaw-faas-dags-v1\",\n\"dags\": [\n{\"name\": }\n]}",
                      "expected a JSON DAG file"),
            4);
  EXPECT_EQ(ErrorLine(R"({"dags": []})", "jigsaw-faas-dags-v1"), 0);
  EXPECT_EQ(ErrorLine(R"({"format": "jigsaw-faas-dags-v1", "dags": []})", "non-empty"), 0);
}

}  // namespace
}  // namespace jigsaw::faas
