// `jigsaw checkpoint`: a training checkpoint's weights in another precision (src/runtime).
#include "cli/commands.h"
#include "runtime/checkpoint_convert.h"

namespace jigsaw {

void AddCheckpointCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<CheckpointOptions>();
  auto dtype = std::make_shared<std::string>(WeightsDtypeName(options->dtype));
  CLI::App* command = app.add_subcommand(
      "checkpoint", "a checkpoint's weights in another precision (model spec and weights only)");
  command
      ->add_option("--input", options->input,
                   "checkpoint to read (jigsaw train's, or this command's)")
      ->required();
  command->add_option("--output", options->output, "file to write")->required();
  command->add_option("--dtype", *dtype, "precision of the written weights: " + WeightsDtypeNames())
      ->capture_default_str();
  command->callback([options, dtype, action] {
    *action = [options, dtype] {
      options->dtype = ParseWeightsDtype(*dtype);
      return RunCheckpoint(*options);
    };
  });
}

}  // namespace jigsaw
