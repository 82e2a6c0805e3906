// Result files are replaced as a unit, and what else the folder holds survives.
#include "core/result_set.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace jigsaw
