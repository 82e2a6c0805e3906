#include "core/output.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace jigsaw {

void MakeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + path + "': " + ec.message());
}

namespace {

// Test fault injection: JIGSAW_FAULT_KILL_AFTER_WRITES=N SIGKILLs this process right after its
// N-th atomic write (as a kill -9 during the final writes would), see ResultSet.
void MaybeInjectKill() {
  static const long kill_after = [] {
    const char* text = std::getenv("JIGSAW_FAULT_KILL_AFTER_WRITES");
    return text == nullptr ? 0L : std::strtol(text, nullptr, 10);
  }();
  static long writes = 0;
  if (kill_after > 0 && ++writes == kill_after) std::raise(SIGKILL);
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  // One temporary name per process: concurrent writers of one file must not rename each
  // other's half-written temporaries.
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot open '" + temp + "' for writing");
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) throw std::runtime_error("write to '" + temp + "' failed");
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + ec.message());
  }
  MaybeInjectKill();
}

std::string FormatFixed(double value, int decimals) {
  // Sized for the value: 1e300 has 301 digits before the point (a fixed buffer cut them).
  const int length = std::snprintf(nullptr, 0, "%.*f", decimals, value);
  std::string text(static_cast<size_t>(std::max(length, 0)) + 1, '\0');
  std::snprintf(text.data(), text.size(), "%.*f", decimals, value);
  text.resize(static_cast<size_t>(std::max(length, 0)));
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

double RoundTo(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

void WriteJsonFile(const std::string& path, const Json& json) {
  WriteFileAtomically(path, json.dump(2) + "\n");
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace jigsaw
