#include "core/error.h"

#include "core/limits.h"

namespace jigsaw {
namespace {

std::string Locate(const std::string& file, int line, const std::string& message) {
  if (line <= 0) return BoundedMessage(file + ": " + message);
  return BoundedMessage(file + ":" + std::to_string(line) + ": " + message);
}

}  // namespace

InputError::InputError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(Locate(file, line, message)),
      file_(file),
      line_(line),
      message_(BoundedMessage(message)) {}

UsageError::UsageError(const std::string& message) : std::runtime_error(BoundedMessage(message)) {}

}  // namespace jigsaw
