// Writing results: directories, atomic file replacement (a crash never leaves a half-written
// result), and deterministic number formatting for CSV/JSON so equal runs give equal bytes.
#ifndef JIGSAW_CORE_OUTPUT_H_
#define JIGSAW_CORE_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace jigsaw {

using Json = nlohmann::ordered_json;

// Creates the directory and its parents; throws std::runtime_error naming the path on failure.
void MakeDirectories(const std::string& path);
// Writes to "<path>.tmp.<pid>" and renames over `path`.
void WriteFileAtomically(const std::string& path, const std::string& contents);
// Fixed-point with `decimals` digits, "-0.000" normalised to "0.000".
std::string FormatFixed(double value, int decimals);
// Rounds to `decimals` digits so JSON output is stable and readable.
double RoundTo(double value, int decimals);
void WriteJsonFile(const std::string& path, const Json& json);

// One CSV field (RFC 4180): the text as is, or in double quotes with each quote doubled when it
// holds a comma, a quote or a line break.
std::string CsvField(const std::string& text);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_OUTPUT_H_
