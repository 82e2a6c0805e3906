// `jigsaw tlights` (the TensorLights tc agent) and `jigsaw tlights-report` (the experiment's
// table). Torch-free. See docs/tensorlights.md.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/output.h"
#include "core/output_folder.h"
#include "tlights/agent.h"
#include "tlights/plan.h"
#include "tlights/report.h"

namespace jigsaw {
namespace {

struct TlightsArgs {
  std::string policy = "rotate";
  std::string interval = "20s";
  std::string duration;
  std::string ports;
  bool dry_run = false;
  bool quiet = false;
  tlights::TlightsConfig config;
};

}  // namespace

void AddTlightsCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<TlightsArgs>();
  CLI::App* command = app.add_subcommand(
      "tlights",
      "TensorLights agent: prioritize co-located parameter servers' traffic at the NIC with tc "
      "(needs root; removes its qdisc on exit, SIGINT and SIGTERM)");
  command->add_option("--policy", args->policy, "fifo, static or rotate")->capture_default_str();
  command->add_option("--interval", args->interval, "rotation interval (rotate): 20s, 500ms, 2m")
      ->capture_default_str();
  command->add_option("--dev", args->config.dev, "the PS host's network interface")->required();
  command->add_option("--ports", args->ports,
                      "the co-located PS jobs' listening ports, comma-separated, in job order");
  command->add_option("--rate", args->config.rate, "link rate in tc syntax (HTB root class)")
      ->capture_default_str();
  command->add_option("--duration", args->duration, "remove and exit after this long")->group("");
  command->add_option("--tc", args->config.tc, "the tc executable")->capture_default_str();
  command->add_flag("--dry-run", args->dry_run,
                    "print the tc commands of the install, one "
                    "rotation and the removal; change nothing");
  command->add_flag("--quiet", args->quiet, "no log lines on stderr");
  command->callback([args, action] {
    *action = [args] {
      tlights::TlightsConfig config = args->config;
      config.policy = tlights::ParsePolicy(args->policy);
      config.interval_s = tlights::ParseDuration(args->interval, "--interval");
      if (!args->ports.empty()) config.ports = tlights::ParsePorts(args->ports);
      tlights::ValidateConfig(config);
      if (args->dry_run) {
        for (const auto& c : tlights::InstallPlan(config, 0)) {
          std::printf("%s\n", tlights::FormatCommand(c).c_str());
        }
        for (const auto& c : tlights::RotatePlan(config, 1)) {
          std::printf("# after %s: %s\n", args->interval.c_str(),
                      tlights::FormatCommand(c).c_str());
        }
        for (const auto& c : tlights::RemovePlan(config)) {
          std::printf("# on exit: %s\n", tlights::FormatCommand(c).c_str());
        }
        return 0;
      }
      const double duration =
          args->duration.empty() ? 0 : tlights::ParseDuration(args->duration, "--duration");
      return tlights::RunTlightsAgent(config, duration, args->quiet);
    };
  });
}

void AddTlightsReportCommand(CLI::App& app, CommandAction* action) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "tlights-report", "JCT and straggler table of a TensorLights experiment folder");
  command->add_option("--dir", *dir, "experiment folder (<policy>/rep<r>/job<j>/)")->required();
  command->add_option("--out", *out, "output folder for summary.json (default: --dir)");
  command->callback([dir, out, action] {
    *action = [dir, out] {
      const auto results = tlights::AnalyzeExperiment(*dir);
      WriteJsonFile(FileInFolder(out->empty() ? *dir : *out, "summary.json"),
                    tlights::ExperimentJson(results));
      std::printf("%s", tlights::ExperimentTable(results).c_str());
      return 0;
    };
  });
}

}  // namespace jigsaw
