#include "cli/cli_main.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_record.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "core/version.h"

namespace jigsaw {

void ConfigureApp(CLI::App& app) {
  app.set_version_flag("--version", "jigsaw " + VersionString());
  app.option_defaults()->always_capture_default();
  // Options a subcommand does not know (--verbose after it) are tried on the top level.
  app.fallthrough();
  app.add_flag("-q,--quiet")
      ->description("Global: no progress output on stderr (errors and warnings stay)");
  app.add_flag("-v,--verbose")->description("Global: progress plus detail lines on stderr");
}

namespace {

// The subcommand named on the command line when it is not one of `app`'s ("" otherwise).
std::string UnknownSubcommand(CLI::App& app, int argc, char** argv) {
  const std::string name = SubcommandName(argc, argv);
  if (name.empty()) return "";
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(name)) return "";
  }
  return name;
}

std::vector<std::string> SubcommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// `jigsaw --quiet sim ...` and `jigsaw sim -q ...` mean `jigsaw sim --quiet ...` where the
// subcommand has its own flag (so its own quiet switch, which also silences its summary lines, is
// set); the same for -v/--verbose. Elsewhere the flags stay global.
std::vector<std::string> MoveGlobalFlags(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  size_t sub = 1;
  while (sub < args.size() && !args[sub].empty() && args[sub][0] == '-') ++sub;
  if (sub >= args.size()) return args;
  CLI::App* command = nullptr;
  for (CLI::App* candidate : app.get_subcommands([](CLI::App*) { return true; })) {
    if (candidate->check_name(args[sub])) command = candidate;
  }
  if (command == nullptr) return args;
  std::vector<std::string> moved;
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool quiet = a == "-q" || a == "--quiet";
    const bool verbose = a == "-v" || a == "--verbose";
    const std::string name = quiet ? "--quiet" : "--verbose";
    const bool own = (quiet || verbose) && command->get_option_no_throw(name) != nullptr;
    if (i > 0 && i < sub && own) {
      moved.push_back(name);
      continue;
    }
    kept.push_back(i > sub && own ? name : a);
    if (i == sub) kept.insert(kept.end(), moved.begin(), moved.end());
  }
  return kept;
}

// `--list-options`: every subcommand's options, one per line: subcommand, names, description
// (tab-separated; hidden options left out). For shell completion and the CLI tests.
void ListOptions(CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (const CLI::Option* option : sub->get_options()) {
      if (option->get_group().empty()) continue;
      std::printf("%s\t%s\t%s\n", sub->get_name().c_str(), option->get_name().c_str(),
                  option->get_description().c_str());
    }
  }
}

bool FlagGiven(const CLI::App& app, const std::string& name) {
  const CLI::Option* flag = app.get_option_no_throw(name);
  return flag != nullptr && flag->count() > 0;
}

// True for a process started with --rank N, N != 0.
bool IsOtherThanRankZero(const CLI::App& command) {
  const CLI::Option* rank = command.get_option_no_throw("--rank");
  return rank != nullptr && rank->count() > 0 && rank->as<int>() != 0;
}

}  // namespace

std::string SubcommandName(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return argv[i];
  }
  return "";
}

int ParseAndRun(CLI::App& app, const CommandAction& action, int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list-options") {
    ListOptions(app);
    return 0;
  }
  const std::string unknown = UnknownSubcommand(app, argc, argv);
  if (!unknown.empty()) {
    const std::string nearest = NearestName(unknown, SubcommandNames(app));
    std::fprintf(stderr, "jigsaw: unknown subcommand '%s'%s\nRun jigsaw --help for the list.\n",
                 BoundedMessage(unknown).c_str(),
                 nearest.empty() ? "" : ("; did you mean '" + nearest + "'?").c_str());
    return 2;
  }
  std::vector<std::string> args = MoveGlobalFlags(app, argc, argv);
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());
  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed option value is a usage error (exit 2),
    // reported without echoing more than kMaxErrorBytes of it.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "jigsaw: %s\nRun with --help for more information.\n",
                 BoundedMessage(e.what()).c_str());
    return 2;
  }
  CLI::App* chosen = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
  const bool quiet =
      FlagGiven(app, "--quiet") || (chosen != nullptr && FlagGiven(*chosen, "--quiet"));
  const bool verbose =
      FlagGiven(app, "--verbose") || (chosen != nullptr && FlagGiven(*chosen, "--verbose"));
  SetVerbosity(quiet ? Verbosity::kQuiet : verbose ? Verbosity::kVerbose : Verbosity::kNormal);
  try {
    const std::string out = chosen != nullptr ? OutputFolder(*chosen) : "";
    if (!out.empty()) RequireWritableFolder(out, "--out");
    const int status = action ? action() : 0;
    // Only the process that writes the outputs records the run: a launcher, or rank 0 of a
    // multi-process job (the other ranks would race it on summary.json).
    if (status == 0 && !out.empty() && !IsOtherThanRankZero(*chosen)) {
      RecordRunInSummary(*chosen, out);
    }
    return status;
  } catch (const InputError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jigsaw: error: %s\n", BoundedMessage(e.what()).c_str());
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
               "jigsaw: %s needs the executable %s next to jigsaw (built by scripts/build.sh; a "
               "build configured with -DJIGSAW_WITH_TORCH=OFF, as scripts/quickstart.sh's is, "
               "has none): %s\n",
               SubcommandName(argc, argv).c_str(), runtime.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace jigsaw
