// The request and response of jigsaw's HTTP/1.1 servers (core/http_server.h), torch-free.
//
// Request: what the parser read, with the path percent-decoded and the query split into params.
// Header names compare case-insensitively; a repeated header keeps every value and the lookups
// return the first. Response: a status, headers and a body; set_content sets the body and its
// Content-Type. The method names follow cpp-httplib's, so handlers read alike on both.
#ifndef JIGSAW_CORE_HTTP_MESSAGE_H_
#define JIGSAW_CORE_HTTP_MESSAGE_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jigsaw::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;   // as sent, e.g. "GET"
  std::string target;   // as sent, e.g. "/v2/models/m?x=1"
  std::string path;     // the target's path, percent-decoded
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  Headers headers;
  std::map<std::string, std::string> params;  // the query; a repeated key keeps its first value
  std::string body;                           // de-chunked
  // The route's regex groups: matches[0] is the whole path, matches[k] the k-th group.
  std::vector<std::string> matches;
  std::string remote_addr;

  bool has_header(std::string_view name) const;
  // The first value of header `name`, or "" when absent.
  std::string get_header_value(std::string_view name) const;
  bool has_param(std::string_view name) const;
  std::string get_param_value(std::string_view name) const;
};

struct Response {
  int status = 200;
  Headers headers;  // besides Content-Length and Connection, which the server writes
  std::string body;

  // Replaces header `name` (case-insensitive) or adds it.
  void set_header(std::string_view name, std::string_view value);
  void set_content(std::string body_text, std::string_view content_type);
  bool has_header(std::string_view name) const;
  std::string get_header_value(std::string_view name) const;
};

// The reason phrase of an HTTP status ("OK", "Payload Too Large", ...); "Unknown" for others.
std::string_view StatusText(int status);
// ASCII case-insensitive equality (header names, tokens).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace jigsaw::http

#endif  // JIGSAW_CORE_HTTP_MESSAGE_H_
