#include "runtime/tcp_counters.h"

#include <dirent.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace jigsaw {

TcpByteCounters ReadTcpByteCounters() {
  TcpByteCounters counters;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return counters;
  const int own = dirfd(fds);
  while (dirent* entry = readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own) continue;
    tcp_info info{};
    socklen_t length = sizeof(info);
    if (getsockopt(static_cast<int>(fd), IPPROTO_TCP, TCP_INFO, &info, &length) != 0) continue;
    if (length < offsetof(tcp_info, tcpi_bytes_sent) + sizeof(info.tcpi_bytes_sent)) continue;
    counters.sent += static_cast<double>(info.tcpi_bytes_acked);
    counters.received += static_cast<double>(info.tcpi_bytes_received);
  }
  closedir(fds);
  return counters;
}

}  // namespace jigsaw
