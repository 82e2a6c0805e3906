// Subcommands of the `jigsaw` CLI. Each Add*Command registers its options on `app` and, when the
// subcommand is chosen, stores in *action the work to run after parsing (so errors from the work
// are reported by main, uniformly: "jigsaw: <file:line: message>", exit 2 for bad input).
#ifndef JIGSAW_CLI_COMMANDS_H_
#define JIGSAW_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace jigsaw {

using CommandAction = std::function<int()>;

void AddSimCommand(CLI::App& app, CommandAction* action);
// phase-plan and spb-efficiency: run folders -> the scheduler's phase plans and efficiencies.
void AddSpbCommands(CLI::App& app, CommandAction* action);
void AddNetCommand(CLI::App& app, CommandAction* action);
void AddD2rCommand(CLI::App& app, CommandAction* action);
void AddSweepCommand(CLI::App& app, CommandAction* action);
void AddTrainCommand(CLI::App& app, CommandAction* action);
void AddProfileCommand(CLI::App& app, CommandAction* action);
void AddCheckpointCommand(CLI::App& app, CommandAction* action);
void AddPsCommand(CLI::App& app, CommandAction* action);
void AddPsWorkerCommand(CLI::App& app, CommandAction* action);
void AddServeCommand(CLI::App& app, CommandAction* action);
void AddFlCommand(CLI::App& app, CommandAction* action);
void AddFlClientCommand(CLI::App& app, CommandAction* action);
void AddServeBenchCommand(CLI::App& app, CommandAction* action);
void AddTlightsCommand(CLI::App& app, CommandAction* action);
void AddTlightsReportCommand(CLI::App& app, CommandAction* action);
void AddReportCommand(CLI::App& app, CommandAction* action);
// paramsvc, paramsvc-agg, paramsvc-register, paramsvc-status, paramsvc-sim, ps-timed-worker.
void AddParamsvcCommands(CLI::App& app, CommandAction* action);
// faas-sim (docs/faas.md).
void AddFaasSimCommand(CLI::App& app, CommandAction* action);
// faas, faas-sandbox, faas-load: the real platform (docs/faas.md).
void AddFaasCommands(CLI::App& app, CommandAction* action);

}  // namespace jigsaw

#endif  // JIGSAW_CLI_COMMANDS_H_
