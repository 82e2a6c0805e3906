#include "faas/dag_reader.h"

#include <map>

#include "core/error.h"
#include "core/json_input.h"
#include "core/output.h"
#include "core/text_input.h"
#include "faas/function_code.h"

namespace jigsaw::faas {
namespace {

constexpr size_t kMaxDags = 100'000;
constexpr size_t kMaxFunctionsPerDag = 1'000;
constexpr Time kMaxFunctionTime = 3600 * net::kSecond;
constexpr uint64_t kMaxSandboxMemory = 64ULL << 30;

class EntryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string Quoted(const std::string& text) { return "'" + Excerpt(text) + "'"; }

std::string StringField(const Json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw EntryError(where + ": missing \"" + key + "\"");
  }
  if (!object[key].is_string() || object[key].get<std::string>().empty()) {
    throw EntryError(where + ": \"" + key + "\" must be a non-empty string");
  }
  return object[key].get<std::string>();
}

Time DurationField(const Json& object, const char* key, const std::string& where, Time fallback,
                   bool required) {
  if (!object.contains(key)) {
    if (required) throw EntryError(where + ": missing \"" + key + "\" (a duration like 300ms)");
    return fallback;
  }
  Time time = 0;
  if (!object[key].is_string() || !net::ParseDuration(object[key].get<std::string>(), &time) ||
      time <= 0 || time > kMaxFunctionTime) {
    throw EntryError(where + ": \"" + key + "\" must be a positive duration up to 3600s like " +
                     "300ms, got " + Excerpt(object[key].dump()));
  }
  return time;
}

Dag ParseDag(const Json& entry, DagId id, std::vector<Function>* functions) {
  if (!entry.is_object()) throw EntryError("expected a DAG object");
  Dag dag;
  dag.name = StringField(entry, "name", "DAG");
  const std::string where = "DAG " + Quoted(dag.name);
  dag.deadline = DurationField(entry, "deadline", where, 0, true);
  if (entry.contains("rate")) {
    try {
      dag.rate_per_s = JsonNumber(entry["rate"], "rate (requests/s)", 1e-9, 1e7);
    } catch (const JsonValueError& e) {
      throw EntryError(where + ": " + e.what());
    }
  }
  if (!entry.contains("functions") || !entry["functions"].is_array() ||
      entry["functions"].empty()) {
    throw EntryError(where + ": expected a non-empty \"functions\" array");
  }
  const Json& list = entry["functions"];
  if (list.size() > kMaxFunctionsPerDag) {
    throw EntryError(where + ": more than 1000 functions (docs/limits.md)");
  }
  std::vector<Function> local;
  std::map<std::string, uint32_t> index;
  for (const Json& item : list) {
    if (!item.is_object()) throw EntryError(where + ": each function must be an object");
    Function f;
    f.name = StringField(item, "name", where + " function");
    const std::string fwhere = where + " function " + Quoted(f.name);
    if (!index.emplace(f.name, static_cast<uint32_t>(local.size())).second) {
      throw EntryError(where + ": duplicate function " + Quoted(f.name));
    }
    f.dag = id;
    f.duration = DurationField(item, "duration", fwhere, 0, true);
    f.setup = DurationField(item, "setup", fwhere, 250 * net::kMillisecond, false);
    f.memory = 128ULL << 20;
    if (item.contains("memory")) {
      if (!item["memory"].is_string() ||
          !net::ParseBytes(item["memory"].get<std::string>(), &f.memory) || f.memory == 0 ||
          f.memory > kMaxSandboxMemory) {
        throw EntryError(fwhere + ": \"memory\" must be a size in (0, 64GiB] like 128MB, got " +
                         Excerpt(item["memory"].dump()));
      }
    }
    f.duration_cv = 0.2;
    if (item.contains("duration_cv")) {
      try {
        f.duration_cv = JsonNumber(item["duration_cv"], "duration_cv", 0, 10);
      } catch (const JsonValueError& e) {
        throw EntryError(fwhere + ": " + e.what());
      }
    }
    if (item.contains("code")) {
      FunctionCode code;
      std::string error;
      if (!item["code"].is_string() ||
          !ParseFunctionCode(item["code"].get<std::string>(), &code, &error)) {
        throw EntryError(fwhere + ": \"code\" " +
                         (item["code"].is_string() ? error : "must be a string") + ", got " +
                         Excerpt(item["code"].dump()));
      }
      f.code = item["code"].get<std::string>();
    }
    local.push_back(f);
  }
  std::vector<std::vector<uint32_t>> after(local.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& item = list[i];
    if (!item.contains("after")) continue;
    const std::string fwhere = where + " function " + Quoted(local[i].name);
    if (!item["after"].is_array()) {
      throw EntryError(fwhere + ": \"after\" must be an array of function names");
    }
    for (const Json& name : item["after"]) {
      if (!name.is_string()) throw EntryError(fwhere + ": \"after\" holds a non-string");
      auto found = index.find(name.get<std::string>());
      if (found == index.end()) {
        throw EntryError(fwhere + ": \"after\" names unknown function " +
                         Quoted(name.get<std::string>()) + " (not in this DAG)");
      }
      after[i].push_back(found->second);
    }
  }
  std::vector<uint32_t> order;
  uint32_t cycle_node = 0;
  if (!TopologicalOrder(after, &order, &cycle_node)) {
    throw EntryError(where + ": the \"after\" edges form a cycle (through function " +
                     Quoted(local[cycle_node].name) + "); a DAG must be acyclic");
  }
  std::vector<uint32_t> position(local.size());
  for (uint32_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  dag.successors.assign(local.size(), {});
  dag.predecessor_count.assign(local.size(), 0);
  for (uint32_t node = 0; node < local.size(); ++node) {
    for (uint32_t before : after[node]) {
      dag.successors[position[before]].push_back(position[node]);
      ++dag.predecessor_count[position[node]];
    }
  }
  for (uint32_t node : order) {
    dag.nodes.push_back(static_cast<FunctionId>(functions->size()));
    functions->push_back(local[node]);
  }
  return dag;
}

}  // namespace

Catalog ParseDagText(const std::string& name, const std::string& text) {
  const Json json = ParseJsonInput<Json>(name, text, "expected a JSON DAG file");
  if (!json.is_object() || json.value("format", "") != "jigsaw-faas-dags-v1") {
    throw InputError(name, 0, "expected an object with \"format\": \"jigsaw-faas-dags-v1\"");
  }
  if (!json.contains("dags") || !json["dags"].is_array() || json["dags"].empty()) {
    throw InputError(name, 0, "expected a non-empty \"dags\" array");
  }
  if (json["dags"].size() > kMaxDags) {
    throw InputError(name, 0, "more than 100000 DAGs (docs/limits.md)");
  }
  const std::vector<int> lines = JsonArrayEntryLines(text);
  Catalog catalog;
  std::map<std::string, int> seen;
  for (size_t i = 0; i < json["dags"].size(); ++i) {
    const int line = i < lines.size() ? lines[i] : 0;
    try {
      Dag dag = ParseDag(json["dags"][i], static_cast<DagId>(i), &catalog.functions);
      if (!seen.emplace(dag.name, line).second) {
        throw EntryError("duplicate DAG name " + Quoted(dag.name) + " (first at line " +
                         std::to_string(seen[dag.name]) + ")");
      }
      dag.line = line;
      catalog.dags.push_back(std::move(dag));
    } catch (const EntryError& e) {
      throw InputError(name, line, e.what());
    }
  }
  return catalog;
}

Catalog ReadDagFile(const std::string& path) { return ParseDagText(path, ReadWholeFile(path)); }

}  // namespace jigsaw::faas
