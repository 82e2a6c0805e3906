#include "cli/cli_main.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace jigsaw {

int ParseAndRun(CLI::App& app, const CommandAction& action, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed command line is a usage error (exit 2).
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jigsaw: error: %s\n", e.what());
    return 1;
  }
}

int ExecRuntime(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string runtime = (self.parent_path() / "jigsaw-runtime").string();
  std::vector<char*> args;
  args.push_back(const_cast<char*>(runtime.c_str()));
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(runtime.c_str(), args.data());
  std::fprintf(stderr,
               "jigsaw: %s needs the executable %s next to jigsaw (built by scripts/build.sh): "
               "%s\n",
               argv[1], runtime.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace jigsaw
