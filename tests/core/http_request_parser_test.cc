// http::RequestParser: requests read whole or byte by byte alike, every limit refused with its
// status as soon as it is crossed (a Content-Length before any body byte, a chunked body at the
// chunk that crosses it), and the smuggling shapes refused.
#include "core/http_request_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace jigsaw::http {
namespace {

ParserLimits SmallLimits() {
  ParserLimits limits;
  limits.max_request_line_bytes = 128;
  limits.max_header_bytes = 256;
  limits.max_headers = 4;
  limits.max_body_bytes = 100;
  return limits;
}

// Feeds `text` in pieces of `step` bytes (0: at once), continuing past the head; returns the
// bytes consumed.
size_t FeedAll(RequestParser& parser, const std::string& text, size_t step = 0) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t piece = step == 0 ? text.size() - at : std::min(step, text.size() - at);
    at += parser.Feed(std::string_view(text).substr(at, piece));
    if (parser.stage() == RequestParser::Stage::kHeadersDone) {
      parser.ContinueBody();
      continue;
    }
    if (parser.stage() == RequestParser::Stage::kComplete ||
        parser.stage() == RequestParser::Stage::kFailed) {
      break;
    }
  }
  if (parser.stage() == RequestParser::Stage::kHeadersDone) parser.ContinueBody();
  return at;
}

TEST(HttpRequestParser, ReadsAFixedLengthRequestWholeOrByteByByte) {
  const std::string text =
      "POST /v2/models/a%20b/infer?reset=1&x=y+z HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\n"
      "X-Two: 1\r\nX-Two: 2\r\n\r\nhello";
  for (size_t step : {size_t{0}, size_t{1}, size_t{7}}) {
    RequestParser parser(SmallLimits());
    EXPECT_EQ(FeedAll(parser, text, step), text.size());
    ASSERT_EQ(parser.stage(), RequestParser::Stage::kComplete) << parser.error();
    const Request& r = parser.request();
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path, "/v2/models/a b/infer");
    EXPECT_EQ(r.get_param_value("reset"), "1");
    EXPECT_EQ(r.get_param_value("x"), "y z");
    EXPECT_EQ(r.get_header_value("Content-Length"), "5");
    EXPECT_EQ(r.get_header_value("x-two"), "1");
    EXPECT_EQ(r.body, "hello");
    EXPECT_TRUE(parser.keep_alive());
  }
}

TEST(HttpRequestParser, StopsAfterTheHeadAndAfterTheRequest) {
  RequestParser parser(SmallLimits());
  const std::string text = "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\n";
  const size_t head = parser.Feed(text);
  EXPECT_EQ(parser.stage(), RequestParser::Stage::kHeadersDone);
  EXPECT_EQ(text.substr(head, 3), "abc");  // no body byte consumed yet
  EXPECT_TRUE(parser.expects_body());
  parser.ContinueBody();
  const size_t body = parser.Feed(std::string_view(text).substr(head));
  EXPECT_EQ(parser.stage(), RequestParser::Stage::kComplete);
  EXPECT_EQ(body, 3u);  // the pipelined request is left for the next parse
  parser.Reset();
  EXPECT_EQ(FeedAll(parser, text.substr(head + body)), text.size() - head - body);
  EXPECT_EQ(parser.stage(), RequestParser::Stage::kComplete);
  EXPECT_EQ(parser.request().method, "GET");
}

TEST(HttpRequestParser, DecodesChunkedBodiesWithExtensionsAndTrailers) {
  const std::string text =
      "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\nhello\r\n1\r\n \r\n0\r\nTrailer: t\r\n\r\n";
  for (size_t step : {size_t{0}, size_t{1}, size_t{3}}) {
    RequestParser parser(SmallLimits());
    EXPECT_EQ(FeedAll(parser, text, step), text.size());
    ASSERT_EQ(parser.stage(), RequestParser::Stage::kComplete) << parser.error();
    EXPECT_EQ(parser.request().body, "hello ");
    EXPECT_FALSE(parser.request().has_header("Trailer"));
  }
}

TEST(HttpRequestParser, RefusesAnOversizedContentLengthBeforeItsBody) {
  RequestParser parser(SmallLimits());
  parser.Feed("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
  EXPECT_EQ(parser.stage(), RequestParser::Stage::kFailed);
  EXPECT_EQ(parser.error_status(), 413);
  EXPECT_NE(parser.error().find("101"), std::string::npos);
  RequestParser huge(SmallLimits());
  huge.Feed("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n");
  EXPECT_EQ(huge.error_status(), 400);
}

TEST(HttpRequestParser, RefusesAChunkedBodyAtTheChunkThatCrossesTheLimit) {
  RequestParser parser(SmallLimits());
  std::string text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 9; ++i) text += "a\r\n0123456789\r\n";  // 90 bytes: within
  text += "b\r\n";                                            // 101: over, before its data
  EXPECT_EQ(FeedAll(parser, text), text.size());
  EXPECT_EQ(parser.stage(), RequestParser::Stage::kFailed);
  EXPECT_EQ(parser.error_status(), 413);
  EXPECT_TRUE(parser.request().body.empty());  // what it held is released
  RequestParser giant(SmallLimits());
  FeedAll(giant, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n");
  EXPECT_EQ(giant.error_status(), 400);  // 16 hex digits: refused before any arithmetic
  RequestParser large(SmallLimits());
  FeedAll(large, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffff\r\n");
  EXPECT_EQ(large.error_status(), 413);
}

TEST(HttpRequestParser, HeaderCountAndSizeLimitsGive431AndALongLine414) {
  RequestParser many(SmallLimits());
  FeedAll(many, "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n");
  EXPECT_EQ(many.error_status(), 431);
  RequestParser big(SmallLimits());
  FeedAll(big, "GET / HTTP/1.1\r\nA: " + std::string(300, 'x') + "\r\n\r\n");
  EXPECT_EQ(big.error_status(), 431);
  RequestParser total(SmallLimits());
  FeedAll(total, "GET / HTTP/1.1\r\nA: " + std::string(120, 'x') + "\r\nB: " +
                     std::string(120, 'x') + "\r\nC: " + std::string(20, 'x') + "\r\n\r\n");
  EXPECT_EQ(total.error_status(), 431);
  RequestParser endless(SmallLimits());
  FeedAll(endless, "GET / HTTP/1.1\r\nA: " + std::string(100000, 'x'));  // never a newline
  EXPECT_EQ(endless.error_status(), 431);
  RequestParser line(SmallLimits());
  FeedAll(line, "GET /" + std::string(200, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(line.error_status(), 414);
  RequestParser exact(SmallLimits());  // 256 bytes of header lines in all: accepted
  FeedAll(exact, "GET / HTTP/1.1\r\nA: " + std::string(253, 'x') + "\r\n\r\n");
  EXPECT_EQ(exact.stage(), RequestParser::Stage::kComplete) << exact.error();
}

TEST(HttpRequestParser, RefusesMalformedAndSmugglingShapes) {
  const struct {
    std::string text;
    int status;
  } cases[] = {
      {"GET / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: -3\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: 3x\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nBad Name: 1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nA: x\x01y\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET / FTP/1.0\r\n\r\n", 400},
      {"GET  / HTTP/1.1\r\n\r\n", 400},
      {"GET http://host/ HTTP/1.1\r\n\r\n", 400},
      {"GET /a%zz HTTP/1.1\r\n\r\n", 400},
      {"GET /a%00b HTTP/1.1\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", 400},
      {"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n", 400},
  };
  for (const auto& c : cases) {
    RequestParser parser(SmallLimits());
    FeedAll(parser, c.text);
    EXPECT_EQ(parser.stage(), RequestParser::Stage::kFailed) << c.text;
    EXPECT_EQ(parser.error_status(), c.status) << c.text << " -> " << parser.error();
    EXPECT_FALSE(parser.error().empty());
  }
}

TEST(HttpRequestParser, ConnectionAndExpectHeaders) {
  RequestParser close(SmallLimits());
  FeedAll(close, "GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n");
  EXPECT_FALSE(close.keep_alive());
  RequestParser old(SmallLimits());
  FeedAll(old, "GET / HTTP/1.0\r\n\r\n");
  EXPECT_FALSE(old.keep_alive());
  RequestParser expect(SmallLimits());
  expect.Feed("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(expect.stage(), RequestParser::Stage::kHeadersDone);
  EXPECT_TRUE(expect.expect_continue());
  RequestParser blank(SmallLimits());
  FeedAll(blank, "\r\nGET / HTTP/1.1\r\n\r\n");  // one empty line before it is ignored
  EXPECT_EQ(blank.stage(), RequestParser::Stage::kComplete);
}

}  // namespace
}  // namespace jigsaw::http
