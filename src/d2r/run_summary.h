// The one-screen result summary of a `jigsaw d2r` run (core/result_summary.h), from the
// summary.json it wrote: per recovery scheme the recovery time (plain and bounded), packets lost
// and policy violations, and the files written. On stderr unless quiet.
#ifndef JIGSAW_D2R_RUN_SUMMARY_H_
#define JIGSAW_D2R_RUN_SUMMARY_H_

#include <string>

#include "core/output.h"

namespace jigsaw::d2r {

std::string D2rRunSummaryText(const Json& summary, const std::string& out, double wall_s);
void PrintD2rRunSummary(const Json& summary, const std::string& out, double wall_s);

}  // namespace jigsaw::d2r

#endif  // JIGSAW_D2R_RUN_SUMMARY_H_
