// jigsaw: one CLI for the cluster simulator, the runtime and the network simulator.
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  CLI::App app{
      "jigsaw: structured partial backpropagation, SPB-aware scheduling and the "
      "systems around them"};
  app.require_subcommand(1);
  jigsaw::CommandAction action;
  jigsaw::AddSimCommand(app, &action);
  jigsaw::AddNetCommand(app, &action);
  jigsaw::AddTrainCommand(app, &action);
  jigsaw::AddProfileCommand(app, &action);
  CLI11_PARSE(app, argc, argv);
  try {
    return action ? action() : 0;
  } catch (const jigsaw::InputError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const jigsaw::UsageError& e) {
    std::fprintf(stderr, "jigsaw: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jigsaw: error: %s\n", e.what());
    return 1;
  }
}
