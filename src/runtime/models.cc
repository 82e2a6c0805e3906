#include "runtime/models.h"

#include "core/error.h"

namespace jigsaw {
namespace {

namespace nn = torch::nn;

// out = relu(conv(relu(conv(x))) + shortcut(x)); the shortcut is a strided 1x1 convolution when
// the shape changes.
class ResidualImpl : public nn::Module {
 public:
  ResidualImpl(int in_channels, int out_channels, int stride)
      : conv1_(register_module(
            "conv1",
            nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 3).stride(stride).padding(1)))),
        conv2_(register_module(
            "conv2", nn::Conv2d(nn::Conv2dOptions(out_channels, out_channels, 3).padding(1)))) {
    if (stride != 1 || in_channels != out_channels) {
      shortcut_ = register_module(
          "shortcut",
          nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 1).stride(stride).bias(false)));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor y = conv2_(torch::relu(conv1_(x)));
    return torch::relu(y + (shortcut_ ? shortcut_(x) : x));
  }

 private:
  nn::Conv2d conv1_;
  nn::Conv2d conv2_;
  nn::Conv2d shortcut_{nullptr};
};
TORCH_MODULE(Residual);

int64_t FlatSize(std::vector<nn::Sequential> prefix, int channels, int height, int width) {
  torch::NoGradGuard no_grad;
  torch::Tensor x = torch::zeros({1, channels, height, width});
  for (nn::Sequential& block : prefix) x = block->forward(x);
  return x.numel();
}

BlockModel MakeMlp(int channels, int height, int width, int classes) {
  const int64_t in = int64_t{channels} * height * width;
  std::vector<nn::Sequential> blocks = {
      nn::Sequential(nn::Flatten(), nn::Linear(in, 256), nn::ReLU()),
      nn::Sequential(nn::Linear(256, 128), nn::ReLU()),
      nn::Sequential(nn::Linear(128, 64), nn::ReLU()),
      nn::Sequential(nn::Linear(64, classes)),
  };
  return BlockModel(blocks, std::vector<std::string>{"fc256", "fc128", "fc64", "fc_out"});
}

BlockModel MakeLeNet(int channels, int height, int width, int classes) {
  if (height < 12 || width < 12) throw UsageError("lenet needs images of at least 12x12");
  nn::Sequential conv1(nn::Conv2d(nn::Conv2dOptions(channels, 6, 5).padding(2)), nn::ReLU(),
                       nn::MaxPool2d(2));
  nn::Sequential conv2(nn::Conv2d(nn::Conv2dOptions(6, 16, 5)), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten());
  const int64_t flat = FlatSize({conv1, conv2}, channels, height, width);
  std::vector<nn::Sequential> blocks = {
      conv1,
      conv2,
      nn::Sequential(nn::Linear(flat, 120), nn::ReLU()),
      nn::Sequential(nn::Linear(120, 84), nn::ReLU()),
      nn::Sequential(nn::Linear(84, classes)),
  };
  return BlockModel(blocks, std::vector<std::string>{"conv6", "conv16", "fc120", "fc84", "fc_out"});
}

BlockModel MakeResNet(int channels, int height, int width, int classes) {
  if (height < 4 || width < 4) throw UsageError("resnet needs images of at least 4x4");
  std::vector<nn::Sequential> blocks = {
      nn::Sequential(nn::Conv2d(nn::Conv2dOptions(channels, 16, 3).padding(1)), nn::ReLU()),
      nn::Sequential(Residual(16, 16, 1)),
      nn::Sequential(Residual(16, 32, 2)),
      nn::Sequential(Residual(32, 64, 2)),
      nn::Sequential(nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(64, classes)),
  };
  return BlockModel(blocks,
                    std::vector<std::string>{"stem16", "res16", "res32", "res64", "pool_fc"});
}

// The CIFAR ResNets' basic block with batch norm: out = relu(bn(conv(relu(bn(conv(x))))) + s(x)).
// The shortcut s is the identity, or where the shape changes either He et al.'s option A
// (parameter-free: stride-2 subsampling and zero channels, used by ResNet-20) or option B (a
// strided 1x1 convolution + batch norm, used by ResNet-18).
class BasicBlockImpl : public nn::Module {
 public:
  enum class Shortcut { kZeroPad, kProjection };

  BasicBlockImpl(int in_channels, int out_channels, int stride, Shortcut shortcut)
      : conv1_(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 3)
                                                       .stride(stride)
                                                       .padding(1)
                                                       .bias(false)))),
        bn1_(register_module("bn1", nn::BatchNorm2d(out_channels))),
        conv2_(register_module(
            "conv2",
            nn::Conv2d(nn::Conv2dOptions(out_channels, out_channels, 3).padding(1).bias(false)))),
        bn2_(register_module("bn2", nn::BatchNorm2d(out_channels))),
        stride_(stride),
        extra_channels_(out_channels - in_channels) {
    if (stride != 1 || in_channels != out_channels) {
      if (shortcut == Shortcut::kProjection) {
        projection_ = register_module(
            "shortcut",
            nn::Sequential(
                nn::Conv2d(
                    nn::Conv2dOptions(in_channels, out_channels, 1).stride(stride).bias(false)),
                nn::BatchNorm2d(out_channels)));
      } else {
        zero_pad_ = true;
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor y = bn2_(conv2_(torch::relu(bn1_(conv1_(x)))));
    return torch::relu(y + ShortcutOf(x));
  }

 private:
  torch::Tensor ShortcutOf(const torch::Tensor& x) {
    if (projection_) return projection_->forward(x);
    if (!zero_pad_) return x;
    namespace F = torch::nn::functional;
    torch::Tensor sub = x.slice(2, 0, x.size(2), stride_).slice(3, 0, x.size(3), stride_);
    const int64_t before = extra_channels_ / 2;
    return F::pad(sub, F::PadFuncOptions({0, 0, 0, 0, before, extra_channels_ - before}));
  }

  nn::Conv2d conv1_;
  nn::BatchNorm2d bn1_;
  nn::Conv2d conv2_;
  nn::BatchNorm2d bn2_;
  nn::Sequential projection_{nullptr};
  bool zero_pad_ = false;
  int stride_;
  int extra_channels_;
};
TORCH_MODULE(BasicBlock);

nn::Sequential Stem(int in_channels, int out_channels) {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 3).padding(1).bias(false)),
      nn::BatchNorm2d(out_channels), nn::ReLU());
}

// A CIFAR ResNet as blocks: the stem, one block per basic block, and the pooled linear head.
BlockModel MakeCifarResNet(int channels, int height, int width, int classes,
                           const std::vector<int>& stage_channels, int blocks_per_stage,
                           BasicBlockImpl::Shortcut shortcut, const std::string& model) {
  if (height < 8 || width < 8) {
    throw UsageError(model + " needs images of at least 8x8, got " + std::to_string(height) + "x" +
                     std::to_string(width));
  }
  std::vector<nn::Sequential> blocks = {Stem(channels, stage_channels[0])};
  std::vector<std::string> names = {"stem" + std::to_string(stage_channels[0])};
  int in = stage_channels[0];
  for (size_t stage = 0; stage < stage_channels.size(); ++stage) {
    for (int i = 0; i < blocks_per_stage; ++i) {
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      blocks.push_back(nn::Sequential(BasicBlock(in, stage_channels[stage], stride, shortcut)));
      names.push_back("res" + std::to_string(stage_channels[stage]) + "_" + std::to_string(i + 1));
      in = stage_channels[stage];
    }
  }
  blocks.push_back(
      nn::Sequential(nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(in, classes)));
  names.push_back("pool_fc");
  return BlockModel(blocks, names);
}

}  // namespace

BlockModelImpl::BlockModelImpl(std::vector<torch::nn::Sequential> blocks,
                               std::vector<std::string> names)
    : blocks_(std::move(blocks)), names_(std::move(names)) {
  for (size_t i = 0; i < blocks_.size(); ++i) {
    register_module("block" + std::to_string(i), blocks_[i]);
  }
}

torch::Tensor BlockModelImpl::forward(torch::Tensor x) {
  for (auto& block : blocks_) x = block->forward(x);
  return x;
}

BlockModel MakeModel(const std::string& name, int channels, int height, int width, int classes) {
  if (name == "mlp") return MakeMlp(channels, height, width, classes);
  if (name == "lenet") return MakeLeNet(channels, height, width, classes);
  if (name == "resnet") return MakeResNet(channels, height, width, classes);
  if (name == "resnet20") {
    return MakeCifarResNet(channels, height, width, classes, {16, 32, 64}, 3,
                           BasicBlockImpl::Shortcut::kZeroPad, name);
  }
  if (name == "resnet18") {
    return MakeCifarResNet(channels, height, width, classes, {64, 128, 256, 512}, 2,
                           BasicBlockImpl::Shortcut::kProjection, name);
  }
  RequireKnownModel(name);
  throw UsageError("--model '" + name + "': unknown");
}

void RequireKnownModel(const std::string& name) {
  for (const char* known : {"mlp", "lenet", "resnet", "resnet20", "resnet18"}) {
    if (name == known) return;
  }
  throw UsageError("--model '" + name + "': expected mlp, lenet, resnet, resnet20 or resnet18");
}

}  // namespace jigsaw
