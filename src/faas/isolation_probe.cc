#include "faas/isolation_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/output.h"

namespace jigsaw::faas {
namespace {

constexpr int kHighestProbedFd = 1023;

std::string Refused() { return std::string("refused: ") + std::strerror(errno); }

std::vector<std::string> Values(const std::string& payload, const std::string& key) {
  std::vector<std::string> values;
  std::istringstream in(payload);
  std::string token;
  while (in >> token) {
    // The SGS appends "#<function>" to a request's payload: not part of a path here.
    if (token.rfind(key + "=", 0) == 0) {
      values.push_back(token.substr(key.size() + 1, token.find('#') - key.size() - 1));
    }
  }
  return values;
}

std::string TryRead(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Refused();
  char buffer[64];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  const std::string result = n >= 0 ? "ok" : Refused();
  ::close(fd);
  return result;
}

std::string TryCreate(const std::string& folder) {
  const std::string path =
      folder + (folder.back() == '/' ? "" : "/") + "jigsaw-probe-" + std::to_string(::getpid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Refused();
  const bool wrote = ::write(fd, "probe", 5) == 5;
  const std::string result = wrote ? "ok" : Refused();
  ::close(fd);
  ::unlink(path.c_str());
  return result;
}

int CountProcesses() {
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return -1;
  int count = 0;
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    count += !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  }
  ::closedir(dir);
  return count;
}

Json Descriptors() {
  Json inherited = Json::array(), written = Json::array();
  for (int fd = 3; fd <= kHighestProbedFd; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) continue;
    inherited.push_back(fd);
    // Never blocks: a full pipe or socket answers EAGAIN, which counts as not reached.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    if (::write(fd, "probe", 5) > 0) written.push_back(fd);
  }
  return {{"inherited", inherited}, {"written", written}};
}

Json Identity() {
  Json identity = {{"uid", ::getuid()}, {"gid", ::getgid()}};
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const char* field : {"CapEff", "CapBnd", "NoNewPrivs", "Seccomp"}) {
      const std::string prefix = std::string(field) + ":";
      if (line.rfind(prefix, 0) != 0) continue;
      std::string value = line.substr(prefix.size());
      value.erase(0, value.find_first_not_of(" \t"));
      identity[field] = value;
    }
  }
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) == 0) identity["hostname"] = host;
  return identity;
}

}  // namespace

std::string ProbeIsolation(const std::string& payload) {
  // Descriptors first: nothing the probe opens itself may be counted as inherited.
  Json report;
  report["descriptors"] = Descriptors();
  std::vector<std::string> reads = Values(payload, "read");
  if (reads.empty()) reads = {"/etc/shadow"};
  std::vector<std::string> writes = Values(payload, "write");
  if (writes.empty()) writes = {"/", "/usr/lib", "/etc"};
  Json read = Json::object(), write = Json::object();
  for (const std::string& path : reads) read[path] = TryRead(path);
  for (const std::string& folder : writes) write[folder] = TryCreate(folder);
  report["read"] = read;
  report["write"] = write;
  const char* tmp = std::getenv("TMPDIR");
  report["scratch"] = TryCreate(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  report["processes"] = CountProcesses();
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  report["socket"] = s >= 0 ? "ok" : Refused();
  if (s >= 0) ::close(s);
  report["identity"] = Identity();
  return report.dump();
}

}  // namespace jigsaw::faas
