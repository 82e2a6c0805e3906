#include "cluster/spb_options.h"

#include <algorithm>
#include <cmath>

#include "model/gpu_memory.h"
#include "spb/spb_plan.h"

namespace jigsaw {
namespace {

const std::vector<int>& ProfiledBatches(const std::string& model) {
  static const std::vector<int> kNone;
  static const std::vector<int> kResNet = {16, 32, 64, 128};
  static const std::vector<int> kResNet18 = {16, 32, 64, 128, 256};
  static const std::vector<int> kLm = {5, 10, 20, 40, 80};
  static const std::vector<int> kRecommendation = {512, 1024, 2048, 4096, 8192};
  if (model == "ResNet-18") return kResNet18;
  if (model == "ResNet-50" || model == "Transformer") return kResNet;
  if (model == "LM") return kLm;
  if (model == "Recommendation") return kRecommendation;
  return kNone;
}

// Mean bytes per worker of the plan's collectives over equal blocks of one byte each.
double MeanBytes(const std::vector<int>& depths, int workers, int blocks) {
  const auto collectives = PlanCollectives(BlockContributors(depths, blocks), workers);
  double total = 0;
  for (const Collective& c : collectives) {
    for (int rank = 0; rank < workers; ++rank) {
      total += EstimatedBytesSent(c, rank, static_cast<double>(c.blocks.size()));
    }
  }
  return total / workers;
}

}  // namespace

double FallbackParameterBytes(const std::string& model) {
  if (model == "ResNet-18") return 4.0 * 11.17e6;
  if (model == "ResNet-50") return 4.0 * 25.56e6;
  if (model == "CycleGAN") return 4.0 * 28.29e6;
  return 0;
}

double ActivationMemoryShare(const std::string& model, int batch_size) {
  const std::vector<int>& batches = ProfiledBatches(model);
  const double at_batch = ProfiledGpuMemoryMb(model, batch_size);
  if (batches.size() < 2 || at_batch <= 0) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int b : batches) {
    const double y = ProfiledGpuMemoryMb(model, b);
    sx += b, sy += y, sxx += 1.0 * b * b, sxy += b * y;
  }
  const double n = static_cast<double>(batches.size());
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return std::clamp(slope * batch_size / at_batch, 0.0, 0.9);
}

std::vector<SpbOption> FallbackSpbOptions(const std::string& model, int batch_size, int workers,
                                          const FallbackSpbShape& shape) {
  if (ProfiledGpuMemoryMb(model, batch_size) <= 0 || workers < 1) return {};
  const int blocks = shape.blocks;
  const double ratio = shape.backward_ratio;
  std::vector<SpbOption> options(1);
  options[0].worker_busy.assign(workers, 1.0);
  options[0].worker_memory.assign(workers, 1.0);
  if (workers == 1) return options;
  const std::vector<int> full_depths(workers, blocks);
  std::vector<int> depths = WorkerDepths(ParseSpbPlan("staircase"), blocks, workers, 0);
  std::sort(depths.begin(), depths.end());
  const double activation_share = ActivationMemoryShare(model, batch_size);
  SpbOption staircase;
  staircase.plan = "staircase";
  for (int depth : depths) {
    const double fraction = static_cast<double>(depth) / blocks;
    staircase.worker_busy.push_back((1.0 + ratio * fraction) / (1.0 + ratio));
    staircase.worker_memory.push_back(1.0 - activation_share * (1.0 - fraction));
  }
  staircase.bytes = MeanBytes(depths, workers, blocks) / MeanBytes(full_depths, workers, blocks);
  options.push_back(staircase);
  return options;
}

}  // namespace jigsaw
