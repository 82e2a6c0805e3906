#include "model/job_spec.h"

#include <charconv>

namespace jigsaw {

const char* AdaptationModeName(AdaptationMode mode) {
  switch (mode) {
    case AdaptationMode::kStatic:
      return "static";
    case AdaptationMode::kAccordion:
      return "accordion";
    case AdaptationMode::kGns:
      return "gns";
  }
  return "static";
}

bool ParseJobType(const std::string& job_type, std::string* model, int* batch_size) {
  static const std::string kMarker = " (batch size ";
  size_t at = job_type.find(kMarker);
  if (at == std::string::npos || job_type.empty() || job_type.back() != ')') return false;
  const char* begin = job_type.data() + at + kMarker.size();
  const char* end = job_type.data() + job_type.size() - 1;
  int value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || value <= 0) return false;
  *model = job_type.substr(0, at);
  *batch_size = value;
  return true;
}

std::string MakeJobType(const std::string& model, int batch_size) {
  return model + " (batch size " + std::to_string(batch_size) + ")";
}

}  // namespace jigsaw
