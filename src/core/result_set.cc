#include "core/result_set.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/output.h"

namespace jigsaw {
namespace fs = std::filesystem;
namespace {

// Removes staging folders ".<base>.partial-<pid>" beside `dir` whose process is gone.
void RemoveStaleStaging(const fs::path& parent, const std::string& base) {
  const std::string prefix = "." + base + ".partial-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
    fs::remove_all(entry.path(), ec);
  }
}

// Recreates `from` (a folder) inside `to` with hard links; false if something could not be
// carried over.
bool CarryOver(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(from, ec);
  if (ec) return false;
  if (fs::is_symlink(status)) {
    fs::copy_symlink(from, to, ec);
    return !ec;
  }
  if (fs::is_directory(status)) {
    fs::create_directory(to, ec);
    if (ec) return false;
    for (const auto& entry : fs::directory_iterator(from, ec)) {
      if (!CarryOver(entry.path(), to / entry.path().filename())) return false;
    }
    return !ec;
  }
  if (fs::is_regular_file(status)) {
    fs::create_hard_link(from, to, ec);
    return !ec;
  }
  return true;  // sockets, fifos, devices: not results, not carried
}

ResultSet::CommitObserver g_observer = nullptr;

void Observe(const std::string& step) {
  if (g_observer != nullptr) g_observer(step);
}

void CheckPlainName(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    throw std::invalid_argument("result file name '" + name + "' must be a plain name");
  }
}

}  // namespace

void ResultSet::SetCommitObserver(CommitObserver observer) { g_observer = observer; }

ResultSet::ResultSet(std::string dir) : dir_(std::move(dir)) {}

void ResultSet::Drop(const std::string& name) {
  CheckPlainName(name);
  dropped_.push_back(name);
}

bool ResultSet::Ours(const std::string& name) const {
  for (const auto& file : files_) {
    if (file.first == name) return true;
  }
  for (const std::string& d : dropped_) {
    if (d == name) return true;
  }
  return false;
}

void ResultSet::Add(const std::string& name, std::string contents) {
  CheckPlainName(name);
  files_.emplace_back(name, std::move(contents));
}

void ResultSet::Commit() {
  fs::path dir = fs::absolute(dir_).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "out/" -> "out"
  std::error_code ec;
  if (fs::is_symlink(dir, ec)) dir = fs::canonical(dir);
  const bool exists = fs::exists(dir, ec);
  if (exists && !fs::is_directory(dir, ec)) {
    throw std::runtime_error("cannot write results into '" + dir_ + "': not a folder");
  }
  const fs::path parent = dir.parent_path();
  MakeDirectories(parent.string());
  const std::string base = dir.filename().string();
  RemoveStaleStaging(parent, base);

  const fs::path staging = parent / ("." + base + ".partial-" + std::to_string(getpid()));
  fs::remove_all(staging, ec);
  bool swap = fs::create_directory(staging, ec) && !ec;
  if (swap) {
    for (const auto& [name, contents] : files_) {
      WriteFileAtomically((staging / name).string(), contents);
      Observe("staged " + name);
    }
    if (exists) {
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!Ours(name) && !CarryOver(entry.path(), staging / name)) swap = false;
      }
      if (ec) swap = false;
    }
    Observe("carried over");
  }
  if (swap) {
    const int rc =
        exists ? renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE)
               : rename(staging.c_str(), dir.c_str());
    if (rc == 0) {
      Observe("swapped");
      fs::remove_all(staging, ec);  // now the previous contents
      Observe("cleaned");
      return;
    }
  }
  // No swap possible here: replace the files one by one, each atomically.
  fs::remove_all(staging, ec);
  MakeDirectories(dir.string());
  for (const auto& [name, contents] : files_) {
    WriteFileAtomically((dir / name).string(), contents);
    Observe("fallback " + name);
  }
  for (const std::string& name : dropped_) fs::remove(dir / name, ec);
}

}  // namespace jigsaw
