// Helpers for tests that run the jigsaw binary or a shell command and read what it wrote.
#ifndef JIGSAW_TESTS_TEST_UTIL_SHELL_H_
#define JIGSAW_TESTS_TEST_UTIL_SHELL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace jigsaw::test_util {

struct CommandResult {
  int exit_code;  // -1 when the command did not exit normally
  std::string output;
};

// Runs `command` with /bin/sh and returns its exit code and standard output (append " 2>&1" to
// capture standard error too).
inline CommandResult RunShell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (pipe && fgets(buffer, sizeof(buffer), pipe)) output += buffer;
  const int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// The whole file, or "" when it cannot be read.
inline std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// An empty folder <tmp>/<prefix><name>_<pid>: the pid keeps tests run in parallel by ctest apart.
inline std::filesystem::path FreshTempDir(const std::string& prefix, const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / (prefix + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace jigsaw::test_util

#endif  // JIGSAW_TESTS_TEST_UTIL_SHELL_H_
