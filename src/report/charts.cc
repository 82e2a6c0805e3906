#include "report/charts.h"

namespace jigsaw::report {
namespace {

constexpr int kWidth = 520;
constexpr int kHeight = 260;
constexpr int kFacetWidth = 300;
constexpr int kFacetHeight = 200;

bool AllPositive(const Json& rows, const std::string& field) {
  for (const Json& row : rows) {
    if (!row.contains(field) || !row[field].is_number() || row[field].get<double>() <= 0) {
      return false;
    }
  }
  return true;
}

Json Axis(const Field& field, const Json& rows, const std::string& type) {
  Json axis = {{"field", field.name}, {"type", type}, {"title", field.title}};
  if (field.log && AllPositive(rows, field.name)) {
    axis["scale"] = {{"type", "log"}};
    axis["title"] = field.title + " (log scale)";
  }
  return axis;
}

// Legends below the chart in columns, labels up to 360 px: long run names (a sweep's axis values)
// fit instead of widening the chart past the page.
Json Legend(const std::string& title) {
  return {{"title", title}, {"orient", "bottom"}, {"columns", 3}, {"labelLimit", 360}};
}

Json Base(const std::string& title, Json rows) {
  return Json{{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
              {"title", title},
              {"data", {{"values", std::move(rows)}}}};
}

}  // namespace

LineOptions ColorBy(const std::string& field, bool step) {
  LineOptions options;
  options.color = field;
  options.step = step;
  return options;
}

Json LineSpec(const std::string& title, Json rows, const Field& x, const Field& y,
              const LineOptions& options) {
  Json encoding = {{"x", Axis(x, rows, "quantitative")}, {"y", Axis(y, rows, "quantitative")}};
  if (!options.color.empty()) {
    encoding["color"] = {{"field", options.color},
                         {"type", "nominal"},
                         {"legend", Legend(options.color)},
                         // Runs get their own colours (report/run_colors.h); other fields (a
                         // run's ports) a scheme of darker colours, not to be taken for runs.
                         {"scale", {{"scheme", options.color == "run" ? "tableau20" : "dark2"}}}};
  }
  if (!options.dash.empty()) {
    encoding["strokeDash"] = {
        {"field", options.dash}, {"type", "nominal"}, {"legend", Legend(options.dash)}};
  }
  encoding["tooltip"] = Json::array({{{"field", x.name}, {"type", "quantitative"}},
                                     {{"field", y.name}, {"type", "quantitative"}}});
  if (!options.color.empty()) encoding["tooltip"].push_back({{"field", options.color}});
  Json mark = {{"type", "line"}, {"clip", true}};
  if (options.step) mark["interpolate"] = "step-after";
  Json spec = Base(title, std::move(rows));
  Json inner = {{"mark", mark}, {"encoding", encoding}};
  if (!options.color.empty()) {
    // Clicking a legend entry highlights its lines (shift-click adds more): many runs overlaid.
    inner["params"] = Json::array({{{"name", "highlight"},
                                    {"select", {{"type", "point"}, {"fields", {options.color}}}},
                                    {"bind", "legend"}}});
    inner["encoding"]["opacity"] = {{"condition", {{"param", "highlight"}, {"value", 1}}},
                                    {"value", 0.15}};
  }
  if (options.facet.empty()) {
    inner["width"] = kWidth;
    inner["height"] = kHeight;
    spec.update(inner);
    return spec;
  }
  inner["width"] = kFacetWidth;
  inner["height"] = kFacetHeight;
  Json facet = {{"field", options.facet}, {"type", "ordinal"}, {"title", nullptr}};
  if (!options.facet_order.empty()) facet["sort"] = options.facet_order;
  spec["facet"] = facet;
  spec["columns"] = 3;
  spec["spec"] = inner;
  spec["resolve"] = {{"scale", {{"x", "independent"}}}};
  return spec;
}

Json BarsSpec(const std::string& title, Json rows, const Field& category,
              const std::vector<Field>& measures) {
  Json charts = Json::array();
  for (const Field& measure : measures) {
    charts.push_back(
        {{"width", 200},
         {"height", 200},
         {"title", measure.title},
         {"mark", "bar"},
         {"encoding",
          {{"x", {{"field", category.name}, {"type", "nominal"}, {"title", category.title}}},
           {"y", {{"field", measure.name}, {"type", "quantitative"}, {"title", measure.title}}},
           {"color", {{"field", category.name}, {"type", "nominal"}, {"legend", nullptr}}},
           {"tooltip", Json::array({{{"field", category.name}},
                                    {{"field", measure.name}, {"type", "quantitative"}}})}}}});
  }
  Json spec = Base(title, std::move(rows));
  spec["hconcat"] = std::move(charts);
  return spec;
}

Json GroupedBarsSpec(const std::string& title, Json rows, const Field& category, const Field& y,
                     const std::string& group) {
  Json spec = Base(title, std::move(rows));
  spec["width"] = kWidth;
  spec["height"] = kHeight;
  spec["mark"] = "bar";
  spec["encoding"] = {
      {"x", {{"field", category.name}, {"type", "ordinal"}, {"title", category.title}}},
      {"xOffset", {{"field", group}, {"type", "nominal"}}},
      {"y", {{"field", y.name}, {"type", "quantitative"}, {"title", y.title}}},
      {"color", {{"field", group}, {"type", "nominal"}, {"legend", Legend(group)}}},
      {"tooltip", Json::array({{{"field", group}},
                               {{"field", category.name}},
                               {{"field", y.name}, {"type", "quantitative"}}})}};
  return spec;
}

}  // namespace jigsaw::report
