#include "core/http_router.h"

#include <nlohmann/json.hpp>

#include "core/limits.h"

namespace jigsaw::http {

void Router::Add(std::string method, const std::string& pattern, Handler handler) {
  routes_.push_back(Route{std::move(method), std::regex(pattern), std::move(handler)});
}

void Router::Dispatch(Request& request, Response& response) const {
  std::string allowed;
  for (const Route& route : routes_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, route.pattern)) continue;
    if (route.method != request.method) {
      if (allowed.find(route.method) == std::string::npos) {
        allowed += (allowed.empty() ? "" : ", ") + route.method;
      }
      continue;
    }
    request.matches.clear();
    for (const auto& group : match) request.matches.push_back(group.str());
    route.handler(request, response);
    return;
  }
  const std::string what = Excerpt(request.method + " " + request.path);
  const std::string hint = hint_.empty() ? "" : " (" + hint_ + ")";
  if (!allowed.empty()) {
    SetError(response, 405, "method not allowed: " + what + "; allowed: " + allowed + hint);
    response.set_header("Allow", allowed);
    return;
  }
  SetError(response, 404, "no such endpoint: " + what + hint);
}

std::string ErrorBody(std::string_view message) {
  const nlohmann::json body = {{"error", std::string(message)}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void SetError(Response& response, int status, std::string_view message) {
  response.status = status;
  response.set_content(ErrorBody(message), "application/json");
}

}  // namespace jigsaw::http
