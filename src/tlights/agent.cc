#include "tlights/agent.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tlights/command_runner.h"

namespace jigsaw::tlights {
namespace {

using Clock = std::chrono::steady_clock;

std::string BandsText(const TlightsConfig& config, int rotation) {
  if (config.policy == Policy::kFifo) return "one shared class";
  const std::vector<int> bands = AgentSchedule(config).Bands(rotation);
  std::string text;
  for (size_t j = 0; j < bands.size(); ++j) {
    if (!text.empty()) text += ", ";
    text += "port " + std::to_string(config.ports[j]) + " -> prio " + std::to_string(bands[j]);
  }
  return text;
}

// Restores the caller's signal mask on every exit path.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~BlockedSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  const sigset_t& set() const { return set_; }

 private:
  sigset_t set_;
  sigset_t previous_;
};

void Remove(const TlightsConfig& config, bool quiet) {
  for (const TcCommand& command : RemovePlan(config)) RunChecked(command);
  if (!quiet) {
    std::fprintf(stderr, "jigsaw: tlights: removed the qdisc from %s\n", config.dev.c_str());
  }
}

}  // namespace

int RunTlightsAgent(const TlightsConfig& config, double duration_s, bool quiet) {
  ValidateConfig(config);
  BlockedSignals signals;

  const std::vector<TcCommand> install = InstallPlan(config, 0);
  bool installed = false;
  try {
    for (const TcCommand& command : install) {
      RunChecked(command);
      installed = true;  // the root qdisc exists from the first command on
    }
  } catch (const std::exception& e) {
    std::string message = std::string("install failed: ") + e.what();
    if (installed) {
      try {
        Remove(config, true);
        message += " (what was installed has been removed)";
      } catch (const std::exception& cleanup) {
        message += std::string("; removing it failed too: ") + cleanup.what();
      }
    }
    throw std::runtime_error(message);
  }
  if (!quiet) {
    std::fprintf(stderr, "jigsaw: tlights: installed %s on %s (link %s): %s\n",
                 PolicyName(config.policy), config.dev.c_str(), config.rate.c_str(),
                 BandsText(config, 0).c_str());
  }

  // Rotation r begins at schedule.RotationStart(r) after the install, as in the simulator.
  const BandSchedule schedule = AgentSchedule(config);
  const auto start = Clock::now();
  auto after_start = [start](double seconds) {
    return start +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  const auto deadline = after_start(duration_s);
  int rotation = 0;
  auto next_rotation = config.policy == Policy::kRotate ? after_start(schedule.RotationStart(1))
                                                        : Clock::time_point::max();
  int caught = 0;
  try {
    while (true) {
      auto wake = Clock::time_point::max();
      if (config.policy == Policy::kRotate) wake = next_rotation;
      if (duration_s > 0) wake = std::min(wake, deadline);
      int signal_number;
      if (wake == Clock::time_point::max()) {
        signal_number = sigwaitinfo(&signals.set(), nullptr);
      } else {
        const double seconds =
            std::max(0.0, std::chrono::duration<double>(wake - Clock::now()).count());
        timespec timeout{static_cast<time_t>(seconds),
                         static_cast<long>((seconds - std::floor(seconds)) * 1e9)};
        signal_number = sigtimedwait(&signals.set(), nullptr, &timeout);
      }
      if (signal_number > 0) {
        caught = signal_number;
        break;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN) throw std::runtime_error(std::string("sigwait: ") + strerror(errno));
      const auto now = Clock::now();
      if (duration_s > 0 && now >= deadline) break;
      if (config.policy == Policy::kRotate && now >= next_rotation) {
        ++rotation;
        for (const TcCommand& command : RotatePlan(config, rotation)) RunChecked(command);
        next_rotation = after_start(schedule.RotationStart(rotation + 1));
        if (!quiet) {
          std::fprintf(stderr, "jigsaw: tlights: rotation %d: %s\n", rotation,
                       BandsText(config, rotation).c_str());
        }
      }
    }
  } catch (const std::exception& e) {
    std::string message = e.what();
    try {
      Remove(config, quiet);
    } catch (const std::exception& cleanup) {
      message += std::string("; removing the qdisc failed too: ") + cleanup.what();
    }
    throw std::runtime_error(message);
  }
  if (!quiet && caught != 0) {
    std::fprintf(stderr, "jigsaw: tlights: caught %s, cleaning up\n", strsignal(caught));
  }
  Remove(config, quiet);
  return 0;
}

}  // namespace jigsaw::tlights
