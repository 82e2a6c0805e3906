#include "core/error.h"

namespace jigsaw {
namespace {

std::string Locate(const std::string& file, int line, const std::string& message) {
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ": " + message;
}

}  // namespace

InputError::InputError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(Locate(file, line, message)),
      file_(file),
      line_(line),
      message_(message) {}

}  // namespace jigsaw
