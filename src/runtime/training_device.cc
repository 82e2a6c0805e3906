#include "runtime/training_device.h"

#include <optional>

#include "core/error.h"

namespace jigsaw {
namespace {

int VisibleCudaDevices() {
  return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

}  // namespace

torch::Device TrainingDevice(const TrainOptions& options) {
  std::optional<torch::Device> device;
  try {
    device.emplace(options.device);
  } catch (const std::exception&) {
  }
  if (!device || !(device->is_cpu() || device->is_cuda())) {
    throw UsageError("--device '" + options.device + "': expected cpu, cuda or cuda:N");
  }
  if (device->is_cuda()) {
    const int visible = VisibleCudaDevices();
    if (visible == 0) {
      throw UsageError("--device " + options.device +
                       ": this LibTorch sees no CUDA device (Debian's LibTorch is CPU-only; "
                       "docs/runtime.md \"Training on a GPU\" builds against a CUDA LibTorch)");
    }
    if (device->has_index() && device->index() >= visible) {
      throw UsageError("--device " + options.device + ": only " + std::to_string(visible) +
                       " CUDA device(s) visible");
    }
  }
  return *device;
}

torch::Device RankDevice(const TrainOptions& options, int rank) {
  const torch::Device device = TrainingDevice(options);
  if (!device.is_cuda() || device.has_index()) return device;
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(rank % VisibleCudaDevices()));
}

HostStaging RankStaging(const TrainOptions& options, const torch::Device& device) {
  return HostStaging(options.stage_through_host || !device.is_cpu());
}

}  // namespace jigsaw
