#include "core/limits.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace jigsaw {
namespace {

void AppendPrintable(std::string_view text, std::string* out) {
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out->push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out->append(hex);
    }
  }
}

}  // namespace

std::string Excerpt(std::string_view text) {
  std::string out;
  if (text.size() <= kMaxEchoBytes) {
    AppendPrintable(text, &out);
    return out;
  }
  AppendPrintable(text.substr(0, kMaxEchoBytes), &out);
  out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string BoundedMessage(std::string_view message) {
  // Messages are mostly printable already; escape, then cut the middle if still too long.
  bool plain = message.size() <= kMaxErrorBytes;
  for (unsigned char c : message) plain = plain && c >= 0x20 && c < 0x7f;
  if (plain) return std::string(message);
  std::string escaped;
  const size_t half = kMaxErrorBytes / 2;
  if (message.size() > kMaxErrorBytes) {
    AppendPrintable(message.substr(0, half), &escaped);
    escaped += " ... [" + std::to_string(message.size() - 2 * half) + " bytes omitted] ... ";
    AppendPrintable(message.substr(message.size() - half), &escaped);
  } else {
    AppendPrintable(message, &escaped);
  }
  return escaped;
}

std::string FormatNumber(double value) {
  char buffer[64];
  if (std::isfinite(value) && std::fabs(value) < 1e15 && value == std::floor(value)) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  }
  return buffer;
}

void RequireOptionInRange(std::string_view option, double value, double lo, double hi) {
  if (value >= lo && value <= hi) return;
  throw UsageError(std::string(option) + " must be in [" + FormatNumber(lo) + ", " +
                   FormatNumber(hi) + "] (docs/limits.md), got " + FormatNumber(value));
}

void RequireCountInRange(std::string_view option, long long value, long long lo, long long hi) {
  if (value >= lo && value <= hi) return;
  throw UsageError(std::string(option) + " must be in [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "] (docs/limits.md), got " + std::to_string(value));
}

}  // namespace jigsaw
