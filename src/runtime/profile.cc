// `jigsaw profile`: measured per-block costs of a model, the input of the SPB cost model.
#include <chrono>
#include <cstdio>
#include <numeric>

#include "core/output.h"
#include "core/stats.h"
#include "spb/cost_model.h"
#include "runtime/runtime.h"
#include "runtime/spb_worker.h"

namespace jigsaw {
namespace {

using Clock = std::chrono::steady_clock;

template <typename Work>
double MedianSeconds(int repeats, Work work) {
  for (int i = 0; i < 2; ++i) work();  // warm-up
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    Clock::time_point start = Clock::now();
    work();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Percentile(seconds, 50);
}

ImageSet ProfileImages(const DataOptions& data) {
  if (data.dataset == "synthetic") {
    return MakeSyntheticImageSet(data.synthetic_test, data.synthetic_size, data.synthetic_classes,
                                 7, 2);
  }
  return LoadFashionMnist(data.data_dir, false);
}

}  // namespace

int RunProfile(const ProfileOptions& options) {
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ImageSet images = ProfileImages(options.data);
  BlockModel model =
      MakeModel(options.model, images.channels, images.height, images.width, images.classes);
  std::vector<int64_t> indices(std::min(options.batch, images.count));
  std::iota(indices.begin(), indices.end(), 0);

  ModelProfile profile;
  profile.model = options.model;
  profile.batch = static_cast<int>(indices.size());
  profile.input_shape = {images.channels, images.height, images.width};
  profile.threads = options.threads;
  std::vector<int64_t> parameter_bytes = BlockParameterBytes(model);
  torch::Tensor x = BatchImages(images, indices);
  for (int b = 0; b < model->num_blocks(); ++b) {
    torch::nn::Sequential& block = model->block(b);
    BlockProfile p;
    p.name = model->block_name(b);
    p.parameter_bytes = parameter_bytes[b];
    torch::Tensor input = x.detach().requires_grad_(true);
    std::vector<torch::Tensor> parameters = block->parameters();
    std::vector<torch::Tensor> everything = parameters;
    everything.push_back(input);
    p.forward_s = MedianSeconds(options.repeats, [&] { block->forward(input); });
    torch::Tensor output = block->forward(input);
    torch::Tensor grad = torch::randn_like(output);
    auto backward_to = [&](const std::vector<torch::Tensor>& targets) {
      if (!targets.empty()) torch::autograd::grad({output}, targets, {grad}, true);
    };
    p.backward_s = MedianSeconds(options.repeats, [&] { backward_to(everything); });
    p.backward_weight_s = MedianSeconds(options.repeats, [&] { backward_to(parameters); });
    p.backward_input_s = MedianSeconds(options.repeats, [&] { backward_to({input}); });
    p.activation_bytes = output.numel() * static_cast<int64_t>(output.element_size());
    profile.blocks.push_back(p);
    torch::NoGradGuard no_grad;
    x = block->forward(x);
  }
  WriteJsonFile(options.out, ProfileToJson(profile));
  std::fprintf(stderr, "profile: %s, %d blocks, batch %d -> %s\n", options.model.c_str(),
               model->num_blocks(), profile.batch, options.out.c_str());
  return 0;
}

}  // namespace jigsaw
