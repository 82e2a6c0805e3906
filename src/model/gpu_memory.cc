#include "model/gpu_memory.h"

#include <map>
#include <utility>

namespace jigsaw {

double ProfiledGpuMemoryMb(const std::string& model, int batch_size) {
  static const std::map<std::pair<std::string, int>, double> kMemoryMb = {
      {{"ResNet-18", 16}, 1771},
      {{"ResNet-18", 32}, 1857},
      {{"ResNet-18", 64}, 2925},
      {{"ResNet-18", 128}, 4137},
      {{"ResNet-18", 256}, 3581},
      {{"ResNet-50", 16}, 3279},
      {{"ResNet-50", 32}, 4597},
      {{"ResNet-50", 64}, 4949},
      {{"ResNet-50", 128}, 10289},
      {{"Transformer", 16}, 3145},
      {{"Transformer", 32}, 4219},
      {{"Transformer", 64}, 7199},
      {{"Transformer", 128}, 12197},
      {{"LM", 5}, 1687},
      {{"LM", 10}, 1789},
      {{"LM", 20}, 1983},
      {{"LM", 40}, 2415},
      {{"LM", 80}, 3337},
      {{"Recommendation", 512}, 1751},
      {{"Recommendation", 1024}, 2373},
      {{"Recommendation", 2048}, 3559},
      {{"Recommendation", 4096}, 6565},
      {{"Recommendation", 8192}, 7699},
      {{"CycleGAN", 1}, 7901},
      {{"CycleGAN", 2}, 8435},
      {{"CycleGAN", 4}, 12291},
      {{"A3C", 4}, 5880},
  };
  auto it = kMemoryMb.find({model, batch_size});
  return it == kMemoryMb.end() ? 0.0 : it->second;
}

}  // namespace jigsaw
