// A sandbox's isolation (faas/sandbox_jail.h), probed from inside by the `probe:isolation`
// function: reading /etc/shadow, writing outside its scratch folder, listing host processes and
// writing to a descriptor the SGS left open all fail, every time, while its scratch folder works;
// the same probe outside a jail succeeds at those (so the probe can see a hole). The cgroup leaf's
// limits are written as the kernel expects them (checked on a stand-in hierarchy; on the host's
// own hierarchy where it offers the controllers). Tests that need namespaces skip with a message
// where the kernel refuses them (not root, or a container without CAP_SYS_ADMIN).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "faas/isolation_probe.h"
#include "faas/sandbox_cgroup.h"
#include "faas/sandbox_process.h"
#include "faas/sandbox_seccomp.h"
#include "test_util/shell.h"

namespace jigsaw::faas {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool Refused(const json& attempt) {
  return attempt.is_string() && attempt.get<std::string>().rfind("refused", 0) == 0;
}

// The probe's report from inside a jailed sandbox, or a skip reason.
std::string ProbeInSandbox(const std::string& payload, json* report) {
  std::string error;
  auto sandbox = SandboxProcess::Spawn(JIGSAW_BINARY, "probe:isolation", "", &error);
  if (!sandbox) return "spawn failed: " + error;
  if (!SandboxProcess::Isolated()) return "";
  bool ok = false;
  std::string result;
  if (!sandbox->Invoke(payload, &ok, &result, &error) || !ok) return "invoke failed: " + error;
  *report = json::parse(result);
  return "";
}

TEST(SandboxIsolation, HostileFunctionFailsEveryTime) {
  const fs::path outside = test_util::FreshTempDir("jigsaw_jail_", "outside");
  // A descriptor the SGS holds without close-on-exec, as an accepted client socket was.
  int leak[2];
  ASSERT_EQ(::pipe(leak), 0);
  ::fcntl(leak[0], F_SETFL, O_NONBLOCK);
  for (int attempt = 0; attempt < 3; ++attempt) {
    SCOPED_TRACE(attempt);
    json report;
    const std::string failure =
        ProbeInSandbox("write=" + outside.string() + " write=/ write=/usr/lib write=/etc", &report);
    ASSERT_EQ(failure, "");
    if (!SandboxProcess::Isolated()) {
      GTEST_SKIP() << "the kernel refused the sandbox namespaces here (needs root or "
                      "CAP_SYS_ADMIN): the jail is not tested";
    }
    EXPECT_TRUE(Refused(report["read"]["/etc/shadow"])) << report.dump();
    for (const std::string& folder :
         {outside.string(), std::string("/"), std::string("/usr/lib"), std::string("/etc")}) {
      EXPECT_TRUE(Refused(report["write"][folder])) << folder << ": " << report.dump();
    }
    EXPECT_EQ(report["scratch"], "ok") << report.dump();
    EXPECT_LE(report["processes"].get<int>(), 1) << report.dump();  // only itself
    EXPECT_TRUE(report["descriptors"]["inherited"].empty()) << report.dump();
    EXPECT_TRUE(report["descriptors"]["written"].empty()) << report.dump();
    char byte;
    EXPECT_EQ(::read(leak[0], &byte, 1), -1);  // nothing reached the leaked pipe
    EXPECT_TRUE(Refused(report["socket"])) << report.dump();
    const json& id = report["identity"];
    EXPECT_EQ(id["uid"], 65534) << report.dump();
    EXPECT_EQ(id["CapEff"], "0000000000000000") << report.dump();
    EXPECT_EQ(id["CapBnd"], "0000000000000000") << report.dump();
    EXPECT_EQ(id["NoNewPrivs"], "1") << report.dump();
    EXPECT_EQ(id["Seccomp"], "2") << report.dump();
    EXPECT_EQ(id["hostname"], "sandbox") << report.dump();
  }
  ::close(leak[0]);
  ::close(leak[1]);
  EXPECT_TRUE(fs::is_empty(outside));
  fs::remove_all(outside);
}

// The control: outside a jail, in a child of this test with one descriptor left open, the same
// probe reaches the folder, the process list and the descriptor (so a hole would show).
TEST(SandboxIsolation, TheProbeSeesWhatIsNotIsolated) {
  const fs::path outside = test_util::FreshTempDir("jigsaw_jail_", "control");
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(out[1], 3);
    ::syscall(SYS_close_range, 4U, ~0U, 0U);
    const std::string report = ProbeIsolation("write=" + outside.string());
    (void)!::write(3, report.data(), report.size());
    _exit(0);
  }
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof(buffer))) > 0) text.append(buffer, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_EQ(text.rfind("probe", 0), 0u) << text;  // the probe's write through descriptor 3
  const json report = json::parse(text.substr(5));
  EXPECT_EQ(report["write"][outside.string()], "ok") << report.dump();
  EXPECT_GT(report["processes"].get<int>(), 1) << report.dump();
  EXPECT_EQ(report["descriptors"]["written"], json::array({3})) << report.dump();
  fs::remove_all(outside);
}

TEST(SandboxSeccomp, BuildsAnAllowListWithoutSockets) {
  SeccompProgram program;
  std::string error;
  ASSERT_TRUE(program.Build(&error)) << error;
  EXPECT_GT(program.instructions(), 10u);
  for (const char* name : SeccompProgram::AllowedNames()) {
    const std::string n = name;
    EXPECT_TRUE(n != "socket" && n != "connect" && n != "ptrace" && n != "mount" && n != "setuid" &&
                n != "unshare" && n != "bpf")
        << n;
  }
}

// A stand-in hierarchy (a plain folder with the files the kernel offers) shows what a leaf gets.
TEST(SandboxCgroupTest, LeafGetsMemoryPidsAndCpuLimits) {
  const fs::path root = test_util::FreshTempDir("jigsaw_cgroup_", "root");
  std::ofstream(root / "cgroup.controllers") << "cpuset cpu io memory hugetlb pids\n";
  std::ofstream(root / "cgroup.subtree_control") << "";
  const CgroupSupport& support = SandboxCgroup::Probe(root.string());
  EXPECT_TRUE(support.memory && support.pids && support.cpu) << support.missing;
  EXPECT_EQ(support.missing, "");
  std::string error;
  auto leaf = SandboxCgroup::Create(support, CgroupLimits{256ULL << 20, 16, 0.5}, &error);
  ASSERT_TRUE(leaf) << error;
  EXPECT_EQ(test_util::Slurp(leaf->path() + "/memory.max"), "268435456");
  EXPECT_EQ(test_util::Slurp(leaf->path() + "/pids.max"), "16");
  EXPECT_EQ(test_util::Slurp(leaf->path() + "/cpu.max"), "50000 100000");
  EXPECT_GE(leaf->procs_fd(), 0);
  fs::remove_all(root);
}

TEST(SandboxCgroupTest, MissingControllersAreNamed) {
  const fs::path root = test_util::FreshTempDir("jigsaw_cgroup_", "hybrid");
  std::ofstream(root / "cgroup.controllers") << "hugetlb\n";
  const CgroupSupport& support = SandboxCgroup::Probe(root.string());
  EXPECT_FALSE(support.memory || support.pids || support.cpu);
  EXPECT_NE(support.missing.find("memory, pids, cpu"), std::string::npos) << support.missing;
  EXPECT_NE(support.missing.find("hugetlb"), std::string::npos) << support.missing;
  fs::remove_all(root);
}

// On this host's own hierarchy: a jailed sandbox sits in its leaf with the limits, or the test
// says why the host offers none.
TEST(SandboxCgroupTest, JailedSandboxIsInItsLeafWhereTheHostAllows) {
  const CgroupSupport& support = SandboxCgroup::Probe();
  if (!(support.memory && support.pids && support.cpu)) {
    GTEST_SKIP() << "no cgroup v2 limits on this host: " << support.missing;
  }
  SandboxOptions options;
  options.memory_bytes = 128ULL << 20;
  options.pids = 8;
  std::string error;
  auto sandbox = SandboxProcess::Spawn(JIGSAW_BINARY, "sha256:1KiB", "", &error,
                                       SandboxProcess::kDefaultReadyTimeoutMs, -1, options);
  ASSERT_TRUE(sandbox) << error;
  ASSERT_FALSE(sandbox->cgroup().empty());
  EXPECT_EQ(test_util::Slurp(sandbox->cgroup() + "/memory.max"), "134217728\n");
  EXPECT_EQ(test_util::Slurp(sandbox->cgroup() + "/pids.max"), "8\n");
  const std::string procs = test_util::Slurp(sandbox->cgroup() + "/cgroup.procs");
  EXPECT_NE(procs.find(std::to_string(sandbox->pid())), std::string::npos) << procs;
}

}  // namespace
}  // namespace jigsaw::faas
