// Routes of jigsaw's HTTP servers: (method, path regex) -> handler, and the JSON error replies.
//
// Dispatch runs the first route whose regex matches the whole decoded path and whose method is
// the request's, with Request::matches set to the regex groups. A path that some route matches
// under other methods only gets 405 with an Allow header listing them; a path no route matches
// gets 404. Both replies are {"error": message}, the message naming the method and path (cut to
// a bounded excerpt) and the hint when one is set.
#ifndef JIGSAW_CORE_HTTP_ROUTER_H_
#define JIGSAW_CORE_HTTP_ROUTER_H_

#include <functional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/http_message.h"

namespace jigsaw::http {

using Handler = std::function<void(const Request&, Response&)>;

class Router {
 public:
  // Throws std::regex_error for an invalid pattern.
  void Add(std::string method, const std::string& pattern, Handler handler);
  void set_hint(std::string hint) { hint_ = std::move(hint); }
  void Dispatch(Request& request, Response& response) const;

 private:
  struct Route {
    std::string method;
    std::regex pattern;
    Handler handler;
  };
  std::vector<Route> routes_;
  std::string hint_;
};

// {"error": message} as a JSON text (invalid UTF-8 replaced, never thrown on).
std::string ErrorBody(std::string_view message);
// Sets `response` to `status` with ErrorBody(message) as application/json.
void SetError(Response& response, int status, std::string_view message);

}  // namespace jigsaw::http

#endif  // JIGSAW_CORE_HTTP_ROUTER_H_
