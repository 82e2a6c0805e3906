// One colour per run across every chart of a report.
//
// Runs get colours in report order from a fixed palette (Tableau 10, then the lighter half of
// Tableau 20, then round again). ApplyRunColors rewrites every colour encoding of a spec whose
// field is "run" (lines, bars, grouped bars, at any nesting: layer, facet, hconcat) to an explicit
// scale: the domain is the runs present in the spec's data, in report order, and the range their
// colours. Legends list only the runs a chart has, and a run keeps its colour in every chart.
#ifndef JIGSAW_REPORT_RUN_COLORS_H_
#define JIGSAW_REPORT_RUN_COLORS_H_

#include <map>
#include <string>
#include <vector>

#include "core/output.h"

namespace jigsaw::report {

class RunColors {
 public:
  explicit RunColors(const std::vector<std::string>& runs);
  const std::string& Of(const std::string& run) const;
  // See the file comment; `spec` is a complete Vega-Lite spec with inline data.
  void Apply(Json* spec) const;

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::string> colour_;
};

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_RUN_COLORS_H_
