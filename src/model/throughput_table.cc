#include "model/throughput_table.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw {
namespace {

// Line of the first occurrence of `"needle"` at or after `from`; 0 if absent.
int LineOfKey(const std::string& text, const std::string& needle, size_t from = 0) {
  size_t at = text.find("\"" + needle + "\"", from);
  return at == std::string::npos ? 0 : LineOfOffset(text, at);
}

template <typename LineFn>
double RequirePositiveNumber(const nlohmann::json& value, const std::string& name, LineFn line,
                             const std::string& what) {
  if (!value.is_number()) throw InputError(name, line(), "expected a number for " + what);
  double number = value.get<double>();
  if (!std::isfinite(number) || number < 0 || number > kMaxThroughput) {
    throw InputError(name, line(),
                     "expected a throughput in [0, " + FormatNumber(kMaxThroughput) +
                         "] iterations/s for " + Excerpt(what) + " (docs/limits.md)");
  }
  return number;
}

}  // namespace

bool ParseJobKey(const std::string& text, JobKey* key) {
  // ('<job_type>', <sf>)
  if (text.size() < 7 || text.compare(0, 2, "('") != 0 || text.back() != ')') return false;
  size_t quote = text.rfind("', ");
  if (quote == std::string::npos || quote < 2) return false;
  const char* begin = text.data() + quote + 3;
  const char* end = text.data() + text.size() - 1;
  int sf = 0;
  auto [ptr, ec] = std::from_chars(begin, end, sf);
  if (ec != std::errc() || ptr != end || sf <= 0) return false;
  key->job_type = text.substr(2, quote - 2);
  key->scale_factor = sf;
  return true;
}

ThroughputTable ThroughputTable::Load(const std::string& path) {
  return Parse(path, ReadWholeFile(path));
}

ThroughputTable ThroughputTable::Parse(const std::string& name, const std::string& text) {
  const nlohmann::json root = ParseJsonInput<nlohmann::json>(
      name, text, "malformed JSON: expected a Gavel throughputs object");
  if (!root.is_object() || root.empty()) {
    throw InputError(name, 1, "expected an object {worker_type: {\"(job_type, sf)\": {...}}}");
  }
  ThroughputTable table;
  table.name_ = name;
  for (const auto& [worker, jobs] : root.items()) {
    auto worker_line = [&] { return LineOfKey(text, worker); };
    if (!jobs.is_object()) {
      throw InputError(
          name, worker_line(),
          "expected an object of job entries for worker type '" + Excerpt(worker) + "'");
    }
    auto& by_key = table.table_[worker];
    const size_t worker_offset = text.find("\"" + worker + "\"");
    for (const auto& [key_text, entry] : jobs.items()) {
      auto line = [&] { return LineOfKey(text, key_text, worker_offset); };
      JobKey key;
      if (!ParseJobKey(key_text, &key)) {
        throw InputError(name, line(),
                         "expected a key of the form \"('<job type>', <scale factor>)\", got \"" +
                             Excerpt(key_text) + "\"");
      }
      if (!entry.is_object() || !entry.contains("null")) {
        throw InputError(name, line(),
                         "expected an object with a \"null\" (isolated throughput) member for " +
                             Excerpt(key_text));
      }
      ThroughputEntry parsed;
      for (const auto& [partner_text, value] : entry.items()) {
        if (partner_text == "null") {
          parsed.isolated = RequirePositiveNumber(value, name, line, key_text + " \"null\"");
          continue;
        }
        JobKey partner;
        if (!ParseJobKey(partner_text, &partner)) {
          throw InputError(name, line(),
                           "expected a partner key \"('<job type>', <sf>)\" in " +
                               Excerpt(key_text) + ", got \"" + Excerpt(partner_text) + "\"");
        }
        if (!value.is_array() || value.size() != 2) {
          throw InputError(name, line(),
                           "expected [self, partner] throughputs for " + Excerpt(key_text) +
                               " with " + Excerpt(partner_text));
        }
        parsed.colocated[partner] = {
            RequirePositiveNumber(value[0], name, line, key_text + " with " + partner_text),
            RequirePositiveNumber(value[1], name, line, key_text + " with " + partner_text)};
      }
      by_key[key] = std::move(parsed);
    }
  }
  return table;
}

const ThroughputEntry* ThroughputTable::Find(const std::string& worker_type,
                                             const JobKey& key) const {
  auto worker = table_.find(worker_type);
  if (worker == table_.end()) return nullptr;
  auto entry = worker->second.find(key);
  return entry == worker->second.end() ? nullptr : &entry->second;
}

double ThroughputTable::Isolated(const std::string& worker_type, const JobKey& key) const {
  const ThroughputEntry* entry = Find(worker_type, key);
  return entry ? entry->isolated : 0.0;
}

std::vector<std::string> ThroughputTable::worker_types() const {
  std::vector<std::string> types;
  for (const auto& [worker, unused] : table_) types.push_back(worker);
  return types;
}

const std::unordered_map<JobKey, ThroughputEntry, JobKeyHash>* ThroughputTable::Entries(
    const std::string& worker_type) const {
  auto it = table_.find(worker_type);
  return it == table_.end() ? nullptr : &it->second;
}

}  // namespace jigsaw
