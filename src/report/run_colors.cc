#include "report/run_colors.h"

#include <set>

namespace jigsaw::report {
namespace {

const std::vector<std::string>& Palette() {
  static const std::vector<std::string> palette = {
      "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
      "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#ff9d9a", "#86bcb6",
      "#8cd17d", "#f1ce63", "#d4a6c8", "#fabfd2", "#d7b5a6", "#79706e"};
  return palette;
}

void CollectRuns(const Json& spec, std::set<std::string>* runs) {
  if (spec.is_object()) {
    if (spec.contains("data") && spec["data"].is_object() && spec["data"].contains("values")) {
      for (const Json& row : spec["data"]["values"]) {
        if (row.is_object() && row.contains("run") && row["run"].is_string()) {
          runs->insert(row["run"].get<std::string>());
        }
      }
    }
    for (const auto& [key, value] : spec.items()) CollectRuns(value, runs);
  } else if (spec.is_array()) {
    for (const Json& item : spec) CollectRuns(item, runs);
  }
}

void SetScales(Json* node, const Json& scale) {
  if (node->is_object()) {
    if (node->contains("encoding") && (*node)["encoding"].is_object()) {
      Json& encoding = (*node)["encoding"];
      if (encoding.contains("color") && encoding["color"].value("field", "") == "run") {
        encoding["color"]["scale"] = scale;
      }
    }
    for (auto& [key, value] : node->items()) SetScales(&value, scale);
  } else if (node->is_array()) {
    for (Json& item : *node) SetScales(&item, scale);
  }
}

}  // namespace

RunColors::RunColors(const std::vector<std::string>& runs) : order_(runs) {
  for (size_t i = 0; i < runs.size(); ++i) colour_[runs[i]] = Palette()[i % Palette().size()];
}

const std::string& RunColors::Of(const std::string& run) const {
  static const std::string grey = "#888888";
  const auto found = colour_.find(run);
  return found == colour_.end() ? grey : found->second;
}

void RunColors::Apply(Json* spec) const {
  std::set<std::string> present;
  CollectRuns(*spec, &present);
  Json domain = Json::array(), range = Json::array();
  for (const std::string& run : order_) {
    if (!present.count(run)) continue;
    domain.push_back(run);
    range.push_back(Of(run));
  }
  if (domain.empty()) return;
  SetScales(spec, Json{{"domain", domain}, {"range", range}});
}

}  // namespace jigsaw::report
