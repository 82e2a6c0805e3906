#include "core/http_request_parser.h"

#include <algorithm>
#include <cctype>

#include "core/limits.h"

namespace jigsaw::http {
namespace {

constexpr size_t kMaxChunkSizeLine = 1024;
constexpr int kMaxBlankLinesBeforeRequest = 8;
constexpr size_t kMaxMethodBytes = 32;

// RFC 9110 token characters.
bool IsTokenChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return IsTokenChar(c); });
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `text` ('+' as a space when `plus_is_space`); false on an invalid escape or NUL.
bool Decode(std::string_view text, bool plus_is_space, std::string* out) {
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return false;
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = static_cast<char>(hi * 16 + lo);
      if (c == '\0') return false;
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    out->push_back(c);
  }
  return true;
}

// "close" among the comma-separated tokens of a Connection header.
bool HasCloseToken(std::string_view value) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (EqualsIgnoreCase(Trim(value.substr(0, comma)), "close")) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

bool ParseTarget(std::string_view target, std::string* path,
                 std::map<std::string, std::string>* params, std::string* error) {
  if (target.empty() || target.front() != '/') {
    *error = "request target: expected a path starting with '/'";
    return false;
  }
  const size_t question = target.find('?');
  if (!Decode(target.substr(0, question), false, path)) {
    *error = "request target: invalid percent-escape in the path";
    return false;
  }
  params->clear();
  if (question == std::string_view::npos) return true;
  std::string_view query = target.substr(question + 1);
  const size_t hash = query.find('#');
  if (hash != std::string_view::npos) query = query.substr(0, hash);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    std::string key, value;
    if (!Decode(pair.substr(0, eq), true, &key) ||
        (eq != std::string_view::npos && !Decode(pair.substr(eq + 1), true, &value))) {
      *error = "request target: invalid percent-escape in the query";
      return false;
    }
    if (!key.empty()) params->emplace(std::move(key), std::move(value));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return true;
}

RequestParser::RequestParser(ParserLimits limits) : limits_(limits) {}

void RequestParser::Reset() {
  stage_ = Stage::kHead;
  state_ = State::kRequestLine;
  started_ = false;
  error_status_ = 0;
  error_.clear();
  line_.clear();
  head_bytes_ = 0;
  header_count_ = 0;
  blank_lines_ = 0;
  chunked_ = false;
  expect_continue_ = false;
  keep_alive_ = true;
  content_length_ = 0;
  remaining_ = 0;
  request_ = Request();
}

void RequestParser::Fail(int status, std::string message) {
  stage_ = Stage::kFailed;
  state_ = State::kDone;
  error_status_ = status;
  error_ = std::move(message);
  line_.clear();
  line_.shrink_to_fit();
  request_.body.clear();
  request_.body.shrink_to_fit();
}

bool RequestParser::TakeLine(std::string_view data, size_t* at, size_t limit, int status,
                             const char* what, std::string* line) {
  const size_t newline = data.find('\n', *at);
  const size_t end = newline == std::string_view::npos ? data.size() : newline;
  if (line_.size() + (end - *at) > limit) {
    Fail(status, std::string(what) + " longer than " + std::to_string(limit) + " bytes");
    return false;
  }
  line_.append(data.substr(*at, end - *at));
  if (newline == std::string_view::npos) {
    *at = data.size();
    return false;
  }
  *at = newline + 1;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  line->swap(line_);
  line_.clear();
  return true;
}

size_t RequestParser::Feed(std::string_view data) {
  size_t at = 0;
  std::string line;
  while (at < data.size() && (stage_ == Stage::kHead || stage_ == Stage::kBody)) {
    started_ = true;
    switch (state_) {
      case State::kRequestLine:
        if (TakeLine(data, &at, limits_.max_request_line_bytes, 414, "request line", &line)) {
          OnRequestLine(line);
        }
        break;
      case State::kHeaderLine:
      case State::kTrailerLine: {
        // The line's CR is not counted; what is kept is at most max_header_bytes in all.
        const size_t room =
            limits_.max_header_bytes - std::min(head_bytes_, limits_.max_header_bytes) + 1;
        if (TakeLine(data, &at, room, 431, "header section", &line)) {
          OnHeaderLine(line, state_ == State::kTrailerLine);
        }
        break;
      }
      case State::kFixedBody:
      case State::kChunkData: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size() - at));
        request_.body.append(data.substr(at, take));
        at += take;
        remaining_ -= take;
        if (remaining_ > 0) break;
        if (state_ == State::kFixedBody) {
          stage_ = Stage::kComplete;
          state_ = State::kDone;
        } else {
          state_ = State::kChunkDataEnd;
        }
        break;
      }
      case State::kChunkDataEnd:
        if (TakeLine(data, &at, 2, 400, "chunk terminator", &line)) {
          if (!line.empty()) Fail(400, "chunked body: expected CRLF after a chunk's data");
          state_ = State::kChunkSize;
        }
        break;
      case State::kChunkSize:
        if (TakeLine(data, &at, kMaxChunkSizeLine, 400, "chunk-size line", &line)) {
          OnChunkSizeLine(line);
        }
        break;
      case State::kDone:
        return at;
    }
  }
  return at;
}

void RequestParser::OnRequestLine(const std::string& line) {
  if (line.empty()) {  // RFC 9112: a server should ignore at least one empty line before it
    if (++blank_lines_ > kMaxBlankLinesBeforeRequest) Fail(400, "expected a request line");
    return;
  }
  const size_t first = line.find(' ');
  const size_t second = first == std::string::npos ? first : line.find(' ', first + 1);
  if (second == std::string::npos || line.find(' ', second + 1) != std::string::npos) {
    Fail(400, "request line: expected 'METHOD /path HTTP/1.1', got '" + Excerpt(line) + "'");
    return;
  }
  request_.method = line.substr(0, first);
  request_.target = line.substr(first + 1, second - first - 1);
  request_.version = line.substr(second + 1);
  if (!IsToken(request_.method) || request_.method.size() > kMaxMethodBytes) {
    Fail(400, "request line: invalid method '" + Excerpt(request_.method) + "'");
    return;
  }
  if (request_.version != "HTTP/1.1" && request_.version != "HTTP/1.0") {
    if (request_.version.rfind("HTTP/", 0) == 0) {
      Fail(505, "HTTP version '" + Excerpt(request_.version) + "': expected HTTP/1.1 or HTTP/1.0");
    } else {
      Fail(400,
           "request line: expected the version HTTP/1.1, got '" + Excerpt(request_.version) + "'");
    }
    return;
  }
  for (char c : request_.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      Fail(400, "request target: control character");
      return;
    }
  }
  std::string error;
  if (!ParseTarget(request_.target, &request_.path, &request_.params, &error)) {
    Fail(400, error);
    return;
  }
  keep_alive_ = request_.version == "HTTP/1.1";
  state_ = State::kHeaderLine;
}

void RequestParser::OnHeaderLine(const std::string& line, bool trailer) {
  if (line.empty()) {
    if (trailer) {
      stage_ = Stage::kComplete;
      state_ = State::kDone;
    } else {
      OnHeadComplete();
    }
    return;
  }
  if (++header_count_ > limits_.max_headers) {
    Fail(431, "more than " + std::to_string(limits_.max_headers) + " header lines");
    return;
  }
  head_bytes_ += line.size();
  if (line.front() == ' ' || line.front() == '\t') {
    Fail(400, "header: obsolete line folding is not accepted");
    return;
  }
  const size_t colon = line.find(':');
  const std::string_view name = std::string_view(line).substr(0, colon);
  if (colon == std::string::npos || !IsToken(name)) {
    Fail(400, "header: expected 'Name: value', got '" + Excerpt(line) + "'");
    return;
  }
  const std::string_view value = Trim(std::string_view(line).substr(colon + 1));
  for (char c : value) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      Fail(400, "header '" + Excerpt(name) + "': control character in its value");
      return;
    }
  }
  if (!trailer) request_.headers.emplace_back(name, value);
}

void RequestParser::OnHeadComplete() {
  std::string length_text;
  bool has_length = false;
  int transfer_encodings = 0;
  for (const auto& [name, value] : request_.headers) {
    if (EqualsIgnoreCase(name, "Content-Length")) {
      if (has_length && value != length_text) {
        Fail(400, "Content-Length: differing values");
        return;
      }
      has_length = true;
      length_text = value;
    } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
      ++transfer_encodings;
      if (!EqualsIgnoreCase(value, "chunked")) {
        Fail(501, "Transfer-Encoding '" + Excerpt(value) + "': only chunked is supported");
        return;
      }
      chunked_ = true;
    } else if (EqualsIgnoreCase(name, "Connection")) {
      if (HasCloseToken(value)) keep_alive_ = false;
    } else if (EqualsIgnoreCase(name, "Expect")) {
      expect_continue_ = EqualsIgnoreCase(value, "100-continue");
    }
  }
  if (transfer_encodings > 1 || (chunked_ && has_length)) {
    Fail(400,
         "a request must not carry both Content-Length and Transfer-Encoding (or two "
         "Transfer-Encodings)");
    return;
  }
  if (has_length) {
    if (length_text.empty() || length_text.size() > 19 ||
        !std::all_of(length_text.begin(), length_text.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
      Fail(400, "Content-Length '" + Excerpt(length_text) + "': expected a byte count");
      return;
    }
    content_length_ = std::stoull(length_text);
    if (content_length_ > limits_.max_body_bytes) {
      Fail(413, "request body of " + length_text + " bytes exceeds the limit of " +
                    std::to_string(limits_.max_body_bytes) + " bytes");
      return;
    }
  }
  stage_ = Stage::kHeadersDone;
}

void RequestParser::ContinueBody() {
  if (stage_ != Stage::kHeadersDone) return;
  if (chunked_) {
    stage_ = Stage::kBody;
    state_ = State::kChunkSize;
  } else if (content_length_ > 0) {
    stage_ = Stage::kBody;
    state_ = State::kFixedBody;
    remaining_ = content_length_;
    // Grows as bytes arrive; a peer that announces a large body and sends little holds little.
    request_.body.reserve(static_cast<size_t>(std::min<uint64_t>(content_length_, 64 << 10)));
  } else {
    stage_ = Stage::kComplete;
    state_ = State::kDone;
  }
}

void RequestParser::OnChunkSizeLine(const std::string& line) {
  size_t digits = 0;
  uint64_t size = 0;
  while (digits < line.size() && HexValue(line[digits]) >= 0) {
    if (digits == 15) {
      Fail(400, "chunked body: chunk size with more than 15 hex digits");
      return;
    }
    size = size * 16 + static_cast<uint64_t>(HexValue(line[digits]));
    ++digits;
  }
  const std::string_view rest = Trim(std::string_view(line).substr(digits));
  if (digits == 0 || (!rest.empty() && rest.front() != ';')) {
    Fail(400, "chunked body: expected a hex chunk size, got '" + Excerpt(line) + "'");
    return;
  }
  if (size == 0) {
    state_ = State::kTrailerLine;
    return;
  }
  if (size > limits_.max_body_bytes - request_.body.size()) {
    Fail(413, "chunked request body exceeds the limit of " +
                  std::to_string(limits_.max_body_bytes) + " bytes");
    return;
  }
  remaining_ = size;
  state_ = State::kChunkData;
}

}  // namespace jigsaw::http
