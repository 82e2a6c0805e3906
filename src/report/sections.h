// The report's sections, one per kind of run, each built from that kind's output files.
//
// A Section holds the charts to draw and notes on charts left out (a file the run does not have,
// e.g. a net run without timeseries/). Each builder also adds one row of metrics per run to the
// comparison (`metrics[i]` for `runs[i]`). Lines are downsampled to at most `max_points` points
// (report/series.h). Files are read through CsvTable: a malformed one is an
// InputError naming file:line.
#ifndef JIGSAW_REPORT_SECTIONS_H_
#define JIGSAW_REPORT_SECTIONS_H_

#include <string>
#include <vector>

#include "core/output.h"
#include "report/run_dir.h"

namespace jigsaw::report {

struct Chart {
  std::string title;
  Json spec;
};

struct Section {
  std::string heading;
  std::vector<Chart> charts;
  std::vector<std::string> notes;
};

// Each builder: the charts of its kind, and notes for what it could not draw.
Section SimSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics);
Section NetSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics);
Section TrainSection(const std::vector<const RunDir*>& runs, size_t max_points,
                     std::vector<Json>* metrics);
Section D2rSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics);
// faas-sim and faas-load runs together: one platform per line group, simulated beside real.
Section FaasSection(const std::vector<const RunDir*>& runs, size_t max_points,
                    std::vector<Json>* metrics);
Section FlSection(const std::vector<const RunDir*>& runs, size_t max_points,
                  std::vector<Json>* metrics);
Section ServeBenchSection(const std::vector<const RunDir*>& runs, size_t max_points,
                          std::vector<Json>* metrics);

// The size bucket of a flow of `bytes` ("< 10 KB", "10 KB - 100 KB", ..., ">= 10 MB"), and all of
// them in order.
std::string FlowSizeBucket(double bytes);
const std::vector<std::string>& FlowSizeBuckets();

// Adds `spec` to `section` as a chart titled spec["title"]; or, when it would draw nothing (no
// data rows, or a line chart none of whose lines has two points: a one-evaluation accuracy
// chart), a note in its place naming the chart and listing the values. Lines of one point
// beside longer ones get point marks.
void AddChart(Section* section, Json spec);
void AddNote(Section* section, const std::string& note);
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_SECTIONS_H_
