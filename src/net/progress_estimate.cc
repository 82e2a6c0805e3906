#include "net/progress_estimate.h"

#include <algorithm>
#include <map>

namespace jigsaw::net {
namespace {

// Serialisation time of `bytes` at `rate_bps`.
Time WireTime(double bytes, uint64_t rate_bps) {
  if (rate_bps == 0) return 0;
  return static_cast<Time>(bytes * 8.0 / static_cast<double>(rate_bps) * kSecond);
}

struct HostLoad {
  Time first_start = kNever;
  double bytes = 0;
};

}  // namespace

Time EstimatedEndOfFlows(const Network& network) {
  std::map<uint32_t, HostLoad> sent, received;
  Time end = 0;
  for (size_t f = 0; f < network.num_flows(); ++f) {
    const Flow& flow = network.flow(static_cast<uint32_t>(f));
    end = std::max(end, flow.start + flow.ideal_fct);
    for (auto [loads, host] : {std::pair{&sent, flow.src_host}, {&received, flow.dst_host}}) {
      HostLoad& load = (*loads)[host];
      load.first_start = std::min(load.first_start, flow.start);
      load.bytes += static_cast<double>(flow.bytes);
    }
  }
  for (const auto* loads : {&sent, &received}) {
    for (const auto& [host, load] : *loads) {
      end = std::max(end, load.first_start + WireTime(load.bytes, network.host_rate_bps(host)));
    }
  }
  return end;
}

Time EstimatedEndOfJobs(const std::vector<JobSpec>& jobs, uint64_t host_rate_bps) {
  if (host_rate_bps == 0) return 0;
  Time end = 0;
  for (const JobSpec& job : jobs) {
    double compute_ns = 0, bytes = 0;
    for (const Layer& layer : job.workload.layers) {
      compute_ns += static_cast<double>(layer.forward_cycles + layer.input_grad_cycles +
                                        layer.weight_grad_cycles + layer.update_cycles) *
                    job.cycle_ns;
      for (const CommSpec* comm :
           {&layer.forward_comm, &layer.input_grad_comm, &layer.weight_grad_comm}) {
        if (comm->present) bytes += 2.0 * static_cast<double>(comm->bytes);
      }
    }
    const Time iteration =
        static_cast<Time>(compute_ns * kNanosecond) + WireTime(bytes, host_rate_bps);
    end = std::max(end, iteration * std::max(1, job.iterations));
  }
  return end;
}

}  // namespace jigsaw::net
