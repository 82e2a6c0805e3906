#include "core/http_message.h"

#include <cctype>

namespace jigsaw::http {
namespace {

const std::string* Find(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return &value;
  }
  return nullptr;
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool Request::has_header(std::string_view name) const { return Find(headers, name) != nullptr; }

std::string Request::get_header_value(std::string_view name) const {
  const std::string* value = Find(headers, name);
  return value ? *value : std::string();
}

bool Request::has_param(std::string_view name) const {
  return params.find(std::string(name)) != params.end();
}

std::string Request::get_param_value(std::string_view name) const {
  const auto found = params.find(std::string(name));
  return found == params.end() ? std::string() : found->second;
}

void Response::set_header(std::string_view name, std::string_view value) {
  for (auto& [key, old] : headers) {
    if (EqualsIgnoreCase(key, name)) {
      old = value;
      return;
    }
  }
  headers.emplace_back(name, value);
}

void Response::set_content(std::string body_text, std::string_view content_type) {
  body = std::move(body_text);
  set_header("Content-Type", content_type);
}

bool Response::has_header(std::string_view name) const { return Find(headers, name) != nullptr; }

std::string Response::get_header_value(std::string_view name) const {
  const std::string* value = Find(headers, name);
  return value ? *value : std::string();
}

std::string_view StatusText(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

}  // namespace jigsaw::http
