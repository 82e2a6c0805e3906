#include "serve/serve_options.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "core/limits.h"
#include "core/units.h"

namespace jigsaw {

const std::vector<CacheKind>& CacheKinds() {
  static const std::vector<CacheKind> kinds = {
      {"none", "no cache"},         {"exact", "response cache keyed by the input"},
      {"freeze", "k-NN per layer"}, {"gati", "learned per-layer predictors"},
      {"branchy", "early exits"},
  };
  return kinds;
}

std::string CacheKindList() {
  std::string list;
  const auto& kinds = CacheKinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) list += i + 1 == kinds.size() ? " or " : ", ";
    list += kinds[i].name;
  }
  return list;
}

std::string ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "expected a file holding the bearer token: cannot read it");
  std::string text;
  std::copy_n(std::istreambuf_iterator<char>(in), 4097, std::back_inserter(text));
  const size_t begin = text.find_first_not_of(" \t\r\n");
  const size_t end = text.find_last_not_of(" \t\r\n");
  const std::string token = begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
  if (token.empty() || token.size() > 4096) {
    throw InputError(path, 1, "expected a bearer token of 1 to 4096 characters");
  }
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) {
      throw InputError(path, 1, "expected a bearer token of printable ASCII without spaces");
    }
  }
  return token;
}

std::string ExposureWarning(const ServeOptions& options) {
  const std::string& host = options.server.http.host;
  if (IsLoopbackHost(host) || !options.server.token.empty()) return "";
  return "serve: warning: listening on " + host +
         " without --token-file: anyone who can reach this address can use the model";
}

void ServeOptions::Validate() {
  if (!(max_body_mb > 0 && max_body_mb <= 1024)) {
    throw UsageError("--max-body-mb must be in (0, 1024], got " + FormatNumber(max_body_mb));
  }
  server.http.max_body_bytes = static_cast<size_t>(max_body_mb * (1 << 20));
  server.http.max_buffered_bytes =
      std::max<size_t>(server.http.max_buffered_bytes,
                       4 * (server.http.max_body_bytes + server.http.max_header_bytes +
                            server.http.max_request_line_bytes));
  const auto& kinds = CacheKinds();
  if (std::none_of(kinds.begin(), kinds.end(),
                   [&](const CacheKind& kind) { return cache == kind.name; })) {
    throw UsageError("--cache '" + Excerpt(cache) + "': expected " + CacheKindList());
  }
  if (cache == "exact") RequireCountInRange("--cache-entries", cache_entries, 1, 1 << 22);
  uint64_t bytes = 0;
  if (!ParseBytes(cache_memory, &bytes)) {
    throw UsageError("--cache-memory '" + Excerpt(cache_memory) + "': expected a size like 4MiB");
  }
  setup.memory_budget_bytes = static_cast<double>(bytes);
  double budget = 0;
  if (!ParseDurationSeconds(lookup_budget, &budget) || budget < 0) {
    throw UsageError("--lookup-budget '" + Excerpt(lookup_budget) +
                     "': expected a duration like 200us");
  }
  setup.lookup_budget_seconds = budget;
  if (online != "on" && online != "off") {
    throw UsageError("--online '" + Excerpt(online) + "': expected on or off");
  }
  setup.online = online == "on";
  setup.kind = cache;
  try {
    server.Validate();
  } catch (const UsageError& e) {  // name the flags the fields come from
    std::string message = e.what();
    static const std::pair<const char*, const char*> kFlags[] = {
        {"port", "--port"},
        {"handler_threads", "--http-threads"},
        {"max_connections", "--max-connections"},
        {"request_timeout_s", "--request-timeout-s"},
        {"idle_timeout_s", "--idle-timeout-s"},
        {"queue_capacity", "--queue"}};
    for (const auto& [field, flag] : kFlags) {
      if (message.rfind(field, 0) == 0) message = flag + message.substr(std::string(field).size());
    }
    throw UsageError(message);
  }
  if (!token_file.empty()) server.token = ReadTokenFile(token_file);
}

}  // namespace jigsaw
