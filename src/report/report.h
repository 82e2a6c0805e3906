// `jigsaw report RUN_DIR... --out DIR`: DIR/report.html (self-contained: the vendored vega,
// vega-lite and vega-embed inlined with their licences, every chart's data inlined as a
// Vega-Lite spec), DIR/comparison.csv and DIR/comparison.md (one row per run: its kind and
// metrics). Sweep folders are expanded to their runs (report/run_dir.h).
//
// report.html reports its own rendering: after every vegaEmbed promise settles, the element
// #report-status gets data-state="done", data-charts (how many specs), data-rendered (how many
// drew a non-empty SVG) and data-errors (script errors and failed charts; their messages are its
// text), and the console gets one "jigsaw-report: ..." line. tests/report uses it with headless
// Chromium.
#ifndef JIGSAW_REPORT_REPORT_H_
#define JIGSAW_REPORT_REPORT_H_

#include <string>
#include <vector>

#include "report/run_dir.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {

struct Report {
  std::vector<RunDir> runs;
  std::vector<Json> metrics;  // per run, in `runs` order
  std::vector<Section> sections;
};

// Reads every run (InputError naming file:line for a bad one).
Report BuildReport(const std::vector<std::string>& run_args, size_t max_points = kMaxPointsPerLine);

std::string ComparisonCsv(const Report& report);
std::string ComparisonMarkdown(const Report& report);
std::string ReportHtml(const Report& report);

// Builds and writes the three files into `out` (created if needed); returns the chart count.
size_t WriteReport(const std::vector<std::string>& run_args, const std::string& out,
                   size_t max_points = kMaxPointsPerLine);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_REPORT_H_
