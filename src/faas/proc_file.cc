#include "faas/proc_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jigsaw::faas {

std::string ReadProcFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  ::close(fd);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

std::string CgroupV2Root() {
  struct stat st;
  for (const char* root : {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
    const std::string r = root;
    if (::stat((r + "/cgroup.procs").c_str(), &st) == 0 &&
        ::stat((r + "/cgroup.max.depth").c_str(), &st) == 0) {
      return r;  // cgroup.max.depth exists only in cgroup v2
    }
  }
  return "";
}

}  // namespace jigsaw::faas
