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

Section SimSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics);
Section NetSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics);
Section TrainSection(const std::vector<const RunDir*>& runs, size_t max_points,
                     std::vector<Json>* metrics);

// The size bucket of a flow of `bytes` ("< 10 KB", "10 KB - 100 KB", ..., ">= 10 MB"), and all of
// them in order.
std::string FlowSizeBucket(double bytes);
const std::vector<std::string>& FlowSizeBuckets();

// Adds `chart` to `section` with its title (spec["title"]) also as the section's list entry.
void AddChart(Section* section, Json spec);

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_SECTIONS_H_
