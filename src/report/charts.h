// Vega-Lite (v6) specifications with their data inlined, for report.html.
//
// Every builder takes rows as a JSON array of objects and returns a complete spec (no URLs, no
// data loaded at view time). A log axis falls back to linear when a value is not positive. Lines
// coloured by a field can be highlighted by clicking the legend.
#ifndef JIGSAW_REPORT_CHARTS_H_
#define JIGSAW_REPORT_CHARTS_H_

#include <string>
#include <vector>

#include "core/output.h"

namespace jigsaw::report {

struct Field {
  std::string name;
  std::string title;
  bool log = false;
};

struct LineOptions {
  std::string color;  // a field: one line per value (e.g. the run)
  std::string dash;   // a field drawn as the line's dash pattern (e.g. running / pending)
  std::string facet;  // a field: one small chart per value, in `facet_order`
  std::vector<std::string> facet_order;
  bool step = false;  // step-after interpolation (CDFs, counts)
};

// Options with only `color` (and `step`) set.
LineOptions ColorBy(const std::string& field, bool step = false);

Json LineSpec(const std::string& title, Json rows, const Field& x, const Field& y,
              const LineOptions& options);

// One bar chart per measure side by side: `category` on x, each measure on its own y.
Json BarsSpec(const std::string& title, Json rows, const Field& category,
              const std::vector<Field>& measures);

// Grouped bars: `category` on x, `y` on y, one bar per `group` value within each category.
Json GroupedBarsSpec(const std::string& title, Json rows, const Field& category, const Field& y,
                     const std::string& group);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_CHARTS_H_
