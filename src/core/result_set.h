// ResultSet: a command's result files written as a unit.
//
// Writing summary.json, jobs.csv and rounds.csv one after another lets a kill in between leave the
// new jobs.csv beside the previous run's summary.json (another policy, another GPU count).
// Commit() instead writes every file into a staging folder beside the destination
// (".<name>.partial-<pid>"), carries over what else the destination holds (files hard-linked,
// folders recreated, symbolic links copied: a --write-trace or a checkpoint in the same folder
// survives), and then swaps the staging folder into place with one rename (renameat2
// RENAME_EXCHANGE when the destination exists) before removing the old contents. A kill at any
// moment leaves the destination wholly old or wholly new; a staging folder left by a killed
// process is removed by the next Commit() beside it. Where the swap is impossible (the
// destination is a mount point, or the file system cannot hard-link) the files are replaced one
// by one, each atomically, with the set's files written in the order added.
#ifndef JIGSAW_CORE_RESULT_SET_H_
#define JIGSAW_CORE_RESULT_SET_H_

#include <string>
#include <utility>
#include <vector>

namespace jigsaw {

class ResultSet {
 public:
  // `dir`: the destination folder (created with its parents if absent; a symbolic link to a
  // folder is followed).
  explicit ResultSet(std::string dir);

  // A file of the set: a plain name inside the folder (no '/').
  void Add(const std::string& name, std::string contents);

  // Throws std::runtime_error naming the path on failure (nothing is swapped then).
  void Commit();

 private:
  std::string dir_;
  std::vector<std::pair<std::string, std::string>> files_;
};

}  // namespace jigsaw

#endif  // JIGSAW_CORE_RESULT_SET_H_
