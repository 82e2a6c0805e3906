// A sweep: the cross product of option values for one jigsaw subcommand, from a TOML file.
//
//   command = "sim"                 # the subcommand every run executes (sim or net)
//   out = "out/sweep"               # the sweep folder (--out overrides); runs go to OUT/runs/
//   [fixed]                         # options given to every run ("--" is added to each key)
//   throughputs = "../shared/data/throughputs/shockwave_tacc_throughputs.json"
//   [axes]                          # one list per varied option; runs = their cross product
//   policy = ["fifo", "max_min_fairness"]
//   seed = [0, 1, 2]
//   load = [0.5, 1.0]               # sim --load: arrival-rate scaling
//   "trace+gpus" = [["a.trace", 32], ["b.trace", 64]]   # linked options: varied together
//
// Values may be strings, integers, floats or booleans. A string value that names a file (it holds
// a '/' or ends in a data file's extension: .trace .json .csv .txt .graphml .et .gz; in a
// NAME=PATH value, the part after '='), read by a run, is resolved against the sweep file's
// folder when relative, and must exist: LoadSweepConfig checks every one before any run starts
// (InputError at its file:line otherwise). Generator specs (fattree:k=4) are left as they are, and
// so is write-trace (an output). `out` stays relative to where jigsaw sweep runs, like every
// subcommand's --out. Each run gets a stable folder name (the axis values, then a hash of all its
// arguments), so re-running the same config finds finished runs.
#ifndef JIGSAW_SWEEP_SWEEP_CONFIG_H_
#define JIGSAW_SWEEP_SWEEP_CONFIG_H_

#include <string>
#include <utility>
#include <vector>

namespace jigsaw::sweep {

struct SweepConfig {
  std::string command;
  std::string out;
  std::vector<std::pair<std::string, std::string>> fixed;  // option name (no dashes), value
  struct Axis {
    std::vector<std::string> names;                // one, or several linked ("trace+gpus")
    std::vector<std::vector<std::string>> values;  // per point, one value per name
  };
  std::vector<Axis> axes;
};

struct RunSpec {
  int index = 0;     // position in the cross product (axes in file order, last varies fastest)
  std::string name;  // folder name under OUT/runs/
  std::vector<std::pair<std::string, std::string>> axis_values;
  std::vector<std::string> arguments;  // after the subcommand, without --out
};

// Throws InputError (file:line) on a malformed file, an unsupported value or, with a
// `base_dir`, an input path that does not exist. LoadSweepConfig resolves paths against the
// file's folder; ParseSweepConfig against `base_dir` when it is not empty (else keeps them).
SweepConfig LoadSweepConfig(const std::string& path);
SweepConfig ParseSweepConfig(const std::string& text, const std::string& source_name,
                             const std::string& base_dir = "");

std::vector<RunSpec> ExpandRuns(const SweepConfig& config);

}  // namespace jigsaw::sweep

#endif  // JIGSAW_SWEEP_SWEEP_CONFIG_H_
