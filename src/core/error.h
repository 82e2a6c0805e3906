// Error types shared by every jigsaw library.
//
// InputError: user-supplied input (a trace, a throughput table, a config) is malformed. It always
// names the place (file and 1-based line; line 0 = the file as a whole) and what was expected, so a
// user can fix the input without reading code. UsageError: inconsistent command-line options.
// Both bound their message (core/limits.h BoundedMessage), so no input can flood stderr.
#ifndef JIGSAW_CORE_ERROR_H_
#define JIGSAW_CORE_ERROR_H_

#include <stdexcept>
#include <string>

namespace jigsaw {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, int line, const std::string& message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message);
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_ERROR_H_
