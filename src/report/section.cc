// Adding a chart to a section, or a note in its place when it would draw nothing worth a chart.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/output.h"
#include "report/sections.h"

namespace jigsaw::report {
namespace {

constexpr size_t kMaxListedPoints = 8;

// The spec's mark type, looking into facet and layer specs ("" when none).
std::string MarkType(const Json& spec) {
  if (spec.contains("mark")) {
    const Json& mark = spec["mark"];
    return mark.is_string() ? mark.get<std::string>() : mark.value("type", "");
  }
  if (spec.contains("spec")) return MarkType(spec["spec"]);
  return "";
}

const Json* Encoding(const Json& spec) {
  if (spec.contains("encoding")) return &spec["encoding"];
  if (spec.contains("spec")) return Encoding(spec["spec"]);
  return nullptr;
}

std::string Text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

}  // namespace

void AddChart(Section* section, Json spec) {
  const std::string title = spec.value("title", "");
  const Json empty = Json::array();
  const Json& rows = spec.contains("data") ? spec["data"].value("values", empty) : empty;
  if (rows.empty()) {
    section->notes.push_back(title + ": nothing to draw (no data in these runs).");
    return;
  }
  // A line needs two points to show: when no line of the chart has two, say the values instead
  // of drawing an empty frame (ReportSections.OnePointLinesBecomeNotes); when only some lack
  // them, mark every point so those show too.
  const Json* encoding = Encoding(spec);
  if (MarkType(spec) == "line" && encoding != nullptr && encoding->contains("x")) {
    const std::string x = (*encoding)["x"].value("field", "");
    const std::string y = encoding->contains("y") ? (*encoding)["y"].value("field", "") : "";
    std::vector<std::string> keys;
    for (const char* channel : {"color", "strokeDash"}) {
      if (encoding->contains(channel)) keys.push_back((*encoding)[channel].value("field", ""));
    }
    if (spec.contains("facet")) keys.push_back(spec["facet"].value("field", ""));
    std::map<std::string, size_t> points;
    for (const Json& row : rows) {
      std::string key;
      for (const std::string& k : keys) key += (row.contains(k) ? Text(row[k]) : "") + "\n";
      ++points[key];
    }
    size_t longest = 0, shortest = rows.size();
    for (const auto& [key, count] : points) {
      longest = std::max(longest, count);
      shortest = std::min(shortest, count);
    }
    if (longest < 2) {
      std::string values;
      for (size_t i = 0; i < rows.size() && i < kMaxListedPoints; ++i) {
        const Json& row = rows[i];
        values += std::string(values.empty() ? "" : "; ") +
                  (row.contains("run") ? Text(row["run"]) + ": " : "") + x + " " +
                  (row.contains(x) ? Text(row[x]) : "-") + ", " + y + " " +
                  (row.contains(y) ? Text(row[y]) : "-");
      }
      if (rows.size() > kMaxListedPoints) values += "; ...";
      section->notes.push_back(title + ": one point per line, not drawn (" + values + ").");
      return;
    }
    if (shortest < 2) {
      Json& mark = spec.contains("spec") ? spec["spec"]["mark"] : spec["mark"];
      mark["point"] = true;
    }
  }
  Chart chart;
  chart.title = title;
  chart.spec = std::move(spec);
  section->charts.push_back(std::move(chart));
}

void AddNote(Section* section, const std::string& note) { section->notes.push_back(note); }

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace jigsaw::report
