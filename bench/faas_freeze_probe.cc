// Pause/resume latency of one real sandbox process (`jigsaw faas-sandbox`), for the resume-cost
// evidence in docs/results/faas.md (entry E). Built and run by bench/faas_freeze.sh; not part of
// the project build.
//
// For each mechanism (cgroup v2 cgroup.freeze, cgroup v1 freezer.state, SIGSTOP/SIGCONT) and each
// of N rounds: one warm invocation (the reference), then pause (write FROZEN / 1, or SIGSTOP, and
// wait until the kernel says the task is stopped), then resume and invoke at once. Prints, per
// mechanism, the median / p99 / max of: pause (until stopped), resume (the write or kill call),
// and resume + invocation minus the round's own warm invocation (what a resumed request pays).
// A mechanism the host does not offer is reported as unavailable, never faked.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

double NowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool SendFrame(int fd, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  const unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                static_cast<unsigned char>(n >> 16),
                                static_cast<unsigned char>(n >> 24)};
  return WriteAll(fd, len, 4) && WriteAll(fd, s.data(), s.size());
}

bool RecvFrame(int fd, std::string* s) {
  unsigned char len[4];
  if (!ReadAll(fd, len, 4)) return false;
  const uint32_t n = len[0] | len[1] << 8 | len[2] << 16 | static_cast<uint32_t>(len[3]) << 24;
  if (n > (16u << 20)) return false;
  s->resize(n);
  return ReadAll(fd, s->data(), n);
}

struct Sandbox {
  pid_t pid = -1;
  int to = -1, from = -1;
};

Sandbox Spawn(const char* jigsaw, const char* code) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::close(in[1]);
    ::close(out[0]);
    ::execl(jigsaw, jigsaw, "faas-sandbox", "--function", code, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  Sandbox s{pid, in[1], out[0]};
  std::string hello;
  if (!RecvFrame(s.from, &hello) || hello != "ready") {
    std::fprintf(stderr, "sandbox did not become ready: '%s'\n", hello.c_str());
    return {};
  }
  return s;
}

bool Invoke(const Sandbox& s, int i) {
  std::string reply;
  return SendFrame(s.to, "probe-" + std::to_string(i)) && RecvFrame(s.from, &reply) &&
         reply.rfind("ok ", 0) == 0;
}

bool WriteFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all;
}

char ProcState(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

struct Mechanism {
  std::string name;
  std::string dir;  // cgroup directory (empty for signals)
};

bool Prepare(Mechanism& m, pid_t pid) {
  if (m.name == "signal") return true;
  const std::string root =
      m.name == "cgroup-v2" ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup/freezer";
  std::string base = root;
  struct stat st;
  if (m.name == "cgroup-v2" && ::stat((root + "/cgroup.procs").c_str(), &st) != 0)
    base = "/sys/fs/cgroup";  // a pure cgroup v2 host
  m.dir = base + "/jigsaw_freeze_probe_" + std::to_string(::getpid());
  if (::mkdir(m.dir.c_str(), 0755) != 0) return false;
  const std::string control = m.name == "cgroup-v2" ? "/cgroup.freeze" : "/freezer.state";
  if (::stat((m.dir + control).c_str(), &st) != 0) return false;
  return WriteFile(m.dir + "/cgroup.procs", std::to_string(pid));
}

bool Pause(const Mechanism& m, pid_t pid) {
  if (m.name == "signal") {
    if (::kill(pid, SIGSTOP) != 0) return false;
    while (ProcState(pid) != 'T') {
    }
    return true;
  }
  if (m.name == "cgroup-v2") {
    if (!WriteFile(m.dir + "/cgroup.freeze", "1")) return false;
    while (ReadFile(m.dir + "/cgroup.events").find("frozen 1") == std::string::npos) {
    }
    return true;
  }
  if (!WriteFile(m.dir + "/freezer.state", "FROZEN")) return false;
  while (ReadFile(m.dir + "/freezer.state").rfind("FROZEN", 0) != 0) {
  }
  return true;
}

bool Resume(const Mechanism& m, pid_t pid) {
  if (m.name == "signal") return ::kill(pid, SIGCONT) == 0;
  if (m.name == "cgroup-v2") return WriteFile(m.dir + "/cgroup.freeze", "0");
  return WriteFile(m.dir + "/freezer.state", "THAWED");
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(q * static_cast<double>(v.size()) + 0.999999);
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: faas_freeze_probe JIGSAW_EXE ROUNDS [CODE]\n");
    return 2;
  }
  const int rounds = std::atoi(argv[2]);
  const char* code = argc > 3 ? argv[3] : "sha256:64KiB";
  std::printf(
      "| mechanism | rounds | pause ms p50 / p99 / max | resume call ms p50 / p99 / max |"
      " resumed invocation minus warm ms p50 / p99 / max | warm invocation ms p50 |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const char* name : {"cgroup-v2", "cgroup-v1", "signal"}) {
    Sandbox s = Spawn(argv[1], code);
    if (s.pid < 0) return 1;
    Mechanism m{name, ""};
    if (!Prepare(m, s.pid)) {
      std::printf("| %s | - | unavailable (%s) | | | |\n", name, std::strerror(errno));
    } else {
      std::vector<double> pause, resume, extra, warm;
      for (int i = 0; i < rounds; ++i) {
        double t0 = NowUs();
        if (!Invoke(s, 2 * i)) return 1;
        const double w = NowUs() - t0;
        ::usleep(2000);
        t0 = NowUs();
        if (!Pause(m, s.pid)) {
          std::printf("| %s | - | pause failed (%s) | | | |\n", name, std::strerror(errno));
          break;
        }
        pause.push_back(NowUs() - t0);
        ::usleep(2000);
        t0 = NowUs();
        if (!Resume(m, s.pid)) return 1;
        resume.push_back(NowUs() - t0);
        if (!Invoke(s, 2 * i + 1)) return 1;
        extra.push_back(NowUs() - t0 - w);
        warm.push_back(w);
      }
      if (!pause.empty()) {
        std::printf(
            "| %s | %zu | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.3f |\n",
            name, pause.size(), Quantile(pause, 0.5) / 1e3, Quantile(pause, 0.99) / 1e3,
            Quantile(pause, 1.0) / 1e3, Quantile(resume, 0.5) / 1e3, Quantile(resume, 0.99) / 1e3,
            Quantile(resume, 1.0) / 1e3, Quantile(extra, 0.5) / 1e3, Quantile(extra, 0.99) / 1e3,
            Quantile(extra, 1.0) / 1e3, Quantile(warm, 0.5) / 1e3);
      }
    }
    if (m.name != "signal" && !m.dir.empty()) Resume(m, s.pid);
    ::kill(s.pid, SIGCONT);
    ::kill(s.pid, SIGKILL);
    ::waitpid(s.pid, nullptr, 0);
    if (!m.dir.empty()) ::rmdir(m.dir.c_str());
    std::fflush(stdout);
  }
  return 0;
}
