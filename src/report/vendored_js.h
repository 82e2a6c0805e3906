// The charting bundle report.html inlines, compiled in from third_party/vega/ (fetched by
// scripts/vendor_vega.sh; versions pinned in third_party/vega/VERSIONS). Generated at build time
// by cmake/embed_vega.cmake, so the report needs no file beside the executable and no network.
#ifndef JIGSAW_REPORT_VENDORED_JS_H_
#define JIGSAW_REPORT_VENDORED_JS_H_

namespace jigsaw::report {

extern const char kVegaJs[];
extern const char kVegaLiteJs[];
extern const char kVegaEmbedJs[];
extern const char kVegaVersions[];  // "name version integrity" per line
extern const char kVegaLicences[];  // the three LICENSE files, each after a "== name ==" line

}  // namespace jigsaw::report

#endif  // JIGSAW_REPORT_VENDORED_JS_H_
