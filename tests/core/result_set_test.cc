// Result files are replaced as a unit, and what else the folder holds survives.
#include "core/result_set.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace jigsaw {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("jigsaw_result_set_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(ResultSet, ReplacesTheSetAndKeepsEverythingElse) {
  const fs::path root = TempDir("replace");
  const fs::path out = root / "out";
  ResultSet first(out.string());
  first.Add("a.csv", "old a\n");
  first.Add("b.json", "old b\n");
  first.Commit();
  EXPECT_EQ(Slurp(out / "a.csv"), "old a\n");
  // Files the user keeps in the folder (a trace written with --write-trace, a checkpoint, a
  // subfolder) are not part of the set and survive the swap.
  std::ofstream(out / "trace.txt") << "mine\n";
  fs::create_directories(out / "sub");
  std::ofstream(out / "sub" / "x") << "deep\n";
  ResultSet second(out.string() + "/");
  second.Add("a.csv", "new a\n");
  second.Add("b.json", "new b\n");
  second.Commit();
  EXPECT_EQ(Slurp(out / "a.csv"), "new a\n");
  EXPECT_EQ(Slurp(out / "b.json"), "new b\n");
  EXPECT_EQ(Slurp(out / "trace.txt"), "mine\n");
  EXPECT_EQ(Slurp(out / "sub" / "x"), "deep\n");
  // Nothing is left beside or inside the folder: no staging folder, no *.tmp.
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find(".partial-"), std::string::npos) << entry.path();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << entry.path();
  }
  fs::remove_all(root);
}

TEST(ResultSet, AStagingFolderOfAKilledProcessIsRemovedByTheNextCommit) {
  const fs::path root = TempDir("stale");
  // pid 2^22 + 1 is above Linux's pid_max limit, so no such process can exist.
  const fs::path stale = root / ".out.partial-4194305";
  fs::create_directories(stale);
  std::ofstream(stale / "jobs.csv") << "half\n";
  ResultSet set((root / "out").string());
  set.Add("jobs.csv", "whole\n");
  set.Commit();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(Slurp(root / "out" / "jobs.csv"), "whole\n");
  fs::remove_all(root);
}

TEST(ResultSet, RefusesAFileWhereTheFolderShouldBe) {
  const fs::path root = TempDir("file");
  std::ofstream(root / "out") << "a file\n";
  ResultSet set((root / "out").string());
  set.Add("jobs.csv", "x\n");
  EXPECT_THROW(set.Commit(), std::runtime_error);
  EXPECT_THROW(set.Add("../escape", "x"), std::invalid_argument);
  fs::remove_all(root);
}

std::string g_die_after;  // the Commit step after which the child process dies

// A process killed right after each step of a Commit (as SIGKILL leaves it: no cleanup) finds the
// folder wholly old or wholly new: the set's files never disagree, a stale temporary the set
// drops is gone once the swap happened, what else the folder holds survives, and the next Commit
// removes the dead process's staging folder.
TEST(ResultSet, AKillAfterEveryStepLeavesTheFolderWholeOldOrNew) {
  const std::vector<std::string> steps = {"staged a.csv", "staged checkpoint.pt", "carried over",
                                          "swapped", "cleaned"};
  for (const std::string& step : steps) {
    SCOPED_TRACE(step);
    const fs::path root = TempDir("kill");
    const fs::path out = root / "out";
    ResultSet old(out.string());
    old.Add("a.csv", "old\n");
    old.Add("checkpoint.pt", "old checkpoint");
    old.Commit();
    std::ofstream(out / "keep.txt") << "mine\n";
    std::ofstream(out / "checkpoint.pt.tmp") << "half";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      g_die_after = step;
      ResultSet::SetCommitObserver([](const std::string& done) {
        if (done == g_die_after) _exit(9);
      });
      ResultSet next(out.string());
      next.Add("a.csv", "new\n");
      next.Add("checkpoint.pt", "new checkpoint");
      next.Drop("checkpoint.pt.tmp");
      next.Commit();
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 9);  // it died at that step
    const std::string a = Slurp(out / "a.csv"), checkpoint = Slurp(out / "checkpoint.pt");
    const bool swapped = step == "swapped" || step == "cleaned";
    EXPECT_EQ(a, swapped ? "new\n" : "old\n");
    EXPECT_EQ(checkpoint, swapped ? "new checkpoint" : "old checkpoint");
    EXPECT_EQ(fs::exists(out / "checkpoint.pt.tmp"), !swapped);
    EXPECT_EQ(Slurp(out / "keep.txt"), "mine\n");
    ResultSet after(out.string());
    after.Add("a.csv", "after\n");
    after.Commit();
    for (const auto& entry : fs::directory_iterator(root)) {
      EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos)
          << entry.path();
    }
    fs::remove_all(root);
  }
}

}  // namespace
}  // namespace jigsaw
