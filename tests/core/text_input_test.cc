#include "core/text_input.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace jigsaw {
namespace {

TEST(TextInput, SplitKeepsEmptyFields) {
  auto fields = SplitFields("a\t\tb\t", '\t');
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0], "a");
  EXPECT_EQ(fields[1], "");
  EXPECT_EQ(fields[2], "b");
  EXPECT_EQ(fields[3], "");
}

TEST(TextInput, SplitOnBlanksDropsEmptyTokens) {
  auto tokens = SplitOnBlanks("  0 1\t 100Gbps  0.001ms ");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0], "0");
  EXPECT_EQ(tokens[3], "0.001ms");
  EXPECT_TRUE(SplitOnBlanks(" \t ").empty());
}

TEST(TextInput, LinesAreNumberedAndStripCarriageReturn) {
  TextFile file("mem", "one\r\ntwo\n\nfour");
  std::string_view line;
  ASSERT_TRUE(file.NextLine(&line));
  EXPECT_EQ(line, "one");
  ASSERT_TRUE(file.NextLine(&line));
  EXPECT_EQ(line, "two");
  ASSERT_TRUE(file.NextLine(&line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(file.NextLine(&line));
  EXPECT_EQ(line, "four");
  EXPECT_EQ(file.line_number(), 4);
  EXPECT_FALSE(file.NextLine(&line));
}

TEST(TextInput, ParseErrorsNameFileLineAndColumn) {
  TextFile file("trace.txt", "x\ny\n");
  std::string_view line;
  file.NextLine(&line);
  file.NextLine(&line);
  try {
    file.ParseDouble("12a", "column 6 (total_steps)");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "trace.txt");
    EXPECT_EQ(e.line(), 2);
    EXPECT_STREQ(e.what(), "trace.txt:2: expected a number in column 6 (total_steps), got '12a'");
  }
  EXPECT_EQ(file.ParseInt(" 42 ", "c"), 42);
  EXPECT_EQ(file.ParseInt("8.0", "c"), 8);
  EXPECT_THROW(file.ParseInt("8.5", "c"), InputError);
  EXPECT_THROW(file.ParseDouble("", "c"), InputError);
  EXPECT_THROW(file.ParseDouble("nan", "c"), InputError);
}

TEST(TextInput, MissingFileIsAnInputError) {
  EXPECT_THROW(TextFile("/nonexistent/file.trace"), InputError);
}

}  // namespace
}  // namespace jigsaw
