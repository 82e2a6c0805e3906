// An incremental HTTP/1.1 request parser with every size bounded before it is buffered.
//
// Feed it bytes as they arrive; it consumes what it can and stops:
//   - once the head (request line and headers) is complete: stage() == kHeadersDone, nothing of
//     the body consumed yet, so the server can refuse the request (authentication, 413 for a
//     Content-Length over the limit, which the parser has already checked) or send
//     "100 Continue" before any body byte is read; ContinueBody() goes on;
//   - once the request is complete (kComplete): bytes after it (a pipelined request) are left
//     unconsumed;
//   - at the first error (kFailed): error_status() is 400 (malformed), 413 (a body over
//     max_body_bytes: a Content-Length as soon as the head is read, a chunked body as soon as a
//     chunk's declared size takes the total over), 414 (request line over
//     max_request_line_bytes), 431 (more than max_headers header lines, or header and trailer
//     lines over max_header_bytes together), 501 (a Transfer-Encoding other than chunked) or
//     505 (an HTTP version other than 1.0 and 1.1); error() says what was wrong.
// It holds at most max_request_line_bytes + max_header_bytes + max_body_bytes (+ one chunk-size
// line of at most 1 KiB) of any request, whatever the peer sends. Requests that carry both
// Content-Length and Transfer-Encoding, differing Content-Length values, obsolete line folding
// or control characters in header values are refused (400): they are how requests are smuggled
// past proxies.
#ifndef JIGSAW_CORE_HTTP_REQUEST_PARSER_H_
#define JIGSAW_CORE_HTTP_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/http_message.h"

namespace jigsaw::http {

struct ParserLimits {
  size_t max_request_line_bytes = 8 << 10;
  size_t max_header_bytes = 16 << 10;  // header and trailer lines together
  int max_headers = 64;                // header and trailer lines together
  size_t max_body_bytes = 1 << 20;
};

class RequestParser {
 public:
  enum class Stage { kHead, kHeadersDone, kBody, kComplete, kFailed };

  explicit RequestParser(ParserLimits limits);

  // Consumes a prefix of `data` and returns its length (see the stops above).
  size_t Feed(std::string_view data);
  // After kHeadersDone: reads the body next (kComplete at once when there is none).
  void ContinueBody();
  // Forgets the request, ready for the next one on the same connection.
  void Reset();

  Stage stage() const { return stage_; }
  // True once any byte of the current request was consumed.
  bool started() const { return started_; }
  int error_status() const { return error_status_; }
  const std::string& error() const { return error_; }
  bool expects_body() const { return chunked_ || content_length_ > 0; }
  bool expect_continue() const { return expect_continue_; }
  // HTTP/1.1 without "Connection: close" (HTTP/1.0 connections close after one request).
  bool keep_alive() const { return keep_alive_; }
  // Bytes of the request held now (line being read, headers, body).
  size_t buffered_bytes() const { return line_.size() + head_bytes_ + request_.body.size(); }
  Request& request() { return request_; }

 private:
  enum class State {
    kRequestLine,
    kHeaderLine,
    kFixedBody,
    kChunkSize,
    kChunkData,
    kChunkDataEnd,
    kTrailerLine,
    kDone
  };

  void Fail(int status, std::string message);
  // Appends to line_ up to '\n'; returns true with the line (CR stripped) once it is complete.
  bool TakeLine(std::string_view data, size_t* at, size_t limit, int status, const char* what,
                std::string* line);
  void OnRequestLine(const std::string& line);
  void OnHeaderLine(const std::string& line, bool trailer);
  void OnHeadComplete();
  void OnChunkSizeLine(const std::string& line);

  const ParserLimits limits_;
  Stage stage_ = Stage::kHead;
  State state_ = State::kRequestLine;
  bool started_ = false;
  int error_status_ = 0;
  std::string error_;
  std::string line_;
  size_t head_bytes_ = 0;  // header and trailer lines kept
  int header_count_ = 0;
  int blank_lines_ = 0;  // before the request line
  bool chunked_ = false;
  bool expect_continue_ = false;
  bool keep_alive_ = true;
  uint64_t content_length_ = 0;
  uint64_t remaining_ = 0;  // of the fixed body or the current chunk
  Request request_;
};

// Splits an origin-form target into its percent-decoded path and query parameters; false (with
// *error) for a target that is not origin-form, an invalid escape or an escaped NUL.
bool ParseTarget(std::string_view target, std::string* path,
                 std::map<std::string, std::string>* params, std::string* error);

}  // namespace jigsaw::http

#endif  // JIGSAW_CORE_HTTP_REQUEST_PARSER_H_
