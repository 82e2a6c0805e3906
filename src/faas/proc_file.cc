#include "faas/proc_file.h"

#include <fcntl.h>
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

}  // namespace jigsaw::faas
