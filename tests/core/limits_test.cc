// The limits of core/limits.h as code enforces them (bounded reads, bounded echo,
// bounded JSON depth, checked JSON numbers, formatting of huge values).
#include "core/limits.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/json_input.h"
#include "core/output.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

TEST(Limits, ExcerptCutsAndEscapesInput) {
  EXPECT_EQ(Excerpt("short"), "short");
  EXPECT_EQ(Excerpt(std::string("a\x01"
                                "b",
                                3)),
            "a\\x01b");
  const std::string huge(1'000'000, 'x');
  const std::string cut = Excerpt(huge);
  EXPECT_LT(cut.size(), kMaxEchoBytes + 32);
  EXPECT_NE(cut.find("(1000000 bytes)"), std::string::npos) << cut;
}

TEST(Limits, ErrorMessagesNeverEchoUnboundedInput) {
  const std::string huge(1'000'000, 'y');
  InputError input("f.txt", 3, "expected a number, got '" + huge + "'");
  EXPECT_LE(std::string(input.what()).size(), kMaxErrorBytes + 64);
  EXPECT_EQ(std::string(input.what()).rfind("f.txt:3: expected a number", 0), 0u);
  UsageError usage("--policy '" + huge + "' is unknown");
  EXPECT_LE(std::string(usage.what()).size(), kMaxErrorBytes + 64);
  // Field parse errors quote at most kMaxEchoBytes of the field.
  TextFile file("t.txt", "x\n");
  try {
    file.ParseDouble(huge, "column 1 (x)");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
  }
}

TEST(Limits, ReadsAreBounded) {
  try {
    ReadWholeFile("/dev/zero");
    FAIL() << "read /dev/zero to the end";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the input limit"), std::string::npos)
        << e.what();
  }
}

TEST(Limits, JsonDepthAndNumbersAreCheckedWithTheLine) {
  const std::string deep = "\n" + std::string(200'000, '[') + std::string(200'000, ']');
  try {
    ParseJsonInput<Json>("deep.json", deep, "expected an object");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64"), std::string::npos);
  }
  // 64 levels are fine; brackets inside strings do not count.
  const std::string ok = std::string(63, '[') + "\"[[[[{{{\"" + std::string(63, ']');
  EXPECT_NO_THROW(ParseJsonInput<Json>("ok.json", ok, "x"));
  try {
    ParseJsonInput<Json>("n.json", "{\n\"a\": 1,\n\"b\": -1e400}", "x");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("'-1e400' is out of range"), std::string::npos);
  }
}

TEST(Limits, JsonIntegersAreRangeCheckedNotCast) {
  const Json j = Json::parse(R"({"a": 1e300, "b": 12, "c": 2.5, "d": 18446744073709551615,
                                 "e": "x", "f": 4.0})");
  EXPECT_THROW(JsonInteger(j["a"], "a", 1, 100), JsonValueError);
  EXPECT_EQ(JsonInteger(j["b"], "b", 1, 100), 12);
  EXPECT_THROW(JsonInteger(j["c"], "c", 1, 100), JsonValueError);
  EXPECT_THROW(JsonInteger(j["d"], "d", 1, 100), JsonValueError);
  EXPECT_THROW(JsonInteger(j["e"], "e", 1, 100), JsonValueError);
  EXPECT_EQ(JsonInteger(j["f"], "f", 1, 100), 4);
  EXPECT_THROW(JsonNumber(j["a"], "a", 0, 1e9), JsonValueError);
  EXPECT_DOUBLE_EQ(JsonNumber(j["c"], "c", 0, 1e9), 2.5);
}

TEST(Limits, FixedFormattingKeepsEveryDigit) {
  const std::string text = FormatFixed(1e300, 3);
  EXPECT_EQ(text.size(), 301u + 4u);  // 301 digits, the point and 3 decimals
  EXPECT_EQ(text.substr(text.size() - 4), ".000");
  EXPECT_EQ(FormatFixed(-0.0001, 3), "0.000");
}

TEST(Limits, OptionRangesNameTheOption) {
  try {
    RequireOptionInRange("--round-s", std::numeric_limits<double>::quiet_NaN(), 1e-3, 1e7);
    FAIL() << "NaN accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--round-s must be in [0.001, 10000000] (docs/limits.md), got nan");
  }
  EXPECT_NO_THROW(RequireCountInRange("--gpus", 32, 1, kMaxGpus));
  EXPECT_THROW(RequireCountInRange("--gpus", 0, 1, kMaxGpus), UsageError);
}

}  // namespace
}  // namespace jigsaw
