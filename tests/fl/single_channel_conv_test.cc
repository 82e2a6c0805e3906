#include "fl/single_channel_conv.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "fl/batched_training.h"

namespace jigsaw {
namespace {

namespace F = torch::nn::functional;

// max |a - b| relative to the largest |b| (at least 1).
double RelativeError(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(1.0, b.abs().max().item<double>());
  return (a - b).abs().max().item<double>() / scale;
}

// SingleChannelConv5x5 against one torch::conv2d per client: outputs, weight and bias gradients
// under a random upstream gradient. Float summation order differs (oneDNN vs these loops), so
// the comparison is to 1e-5 of the largest value; a wrong tap, client, channel or padding shifts
// values by far more.
void ExpectEqualsConv2d(int64_t clients, int64_t per_client, int64_t channels, int64_t h, int64_t w,
                        int64_t padding, ConvKernels kernels) {
  SCOPED_TRACE("K=" + std::to_string(clients) + " B=" + std::to_string(per_client) +
               " C=" + std::to_string(channels) + " " + std::to_string(h) + "x" +
               std::to_string(w) + " pad " + std::to_string(padding) +
               (kernels == ConvKernels::kPortable ? " portable" : " best"));
  torch::manual_seed(11 + channels + h);
  const torch::Tensor images = torch::randn({clients * per_client, 1, h, w});
  const torch::Tensor weight0 = torch::randn({clients, channels, 1, 5, 5}) * 0.3;
  const torch::Tensor bias0 = torch::randn({clients, channels});
  torch::Tensor weight = weight0.clone().requires_grad_(true);
  torch::Tensor bias = bias0.clone().requires_grad_(true);
  const torch::Tensor out = SingleChannelConv5x5(images, weight, bias, padding, kernels);
  const torch::Tensor upstream = torch::randn(out.sizes());
  (out * upstream).sum().backward();

  std::vector<torch::Tensor> reference_out;
  for (int64_t j = 0; j < clients; ++j) {
    torch::Tensor wj = weight0[j].clone().requires_grad_(true);
    torch::Tensor bj = bias0[j].clone().requires_grad_(true);
    const torch::Tensor oj = F::conv2d(images.narrow(0, j * per_client, per_client), wj,
                                       F::Conv2dFuncOptions().bias(bj).padding(padding));
    (oj * upstream.narrow(0, j * per_client, per_client)).sum().backward();
    reference_out.push_back(oj.detach());
    EXPECT_LT(RelativeError(weight.grad()[j], wj.grad()), 1e-5) << "client " << j;
    EXPECT_LT(RelativeError(bias.grad()[j], bj.grad()), 1e-5) << "client " << j;
  }
  const torch::Tensor expected = torch::cat(reference_out);
  ASSERT_EQ(out.sizes(), expected.sizes());
  EXPECT_LT(RelativeError(out, expected), 1e-5);
  // The comparison is not vacuous: outputs and gradients are far from zero.
  EXPECT_GT(out.abs().max().item<double>(), 1.0);
  EXPECT_GT(weight.grad().abs().min().item<double>(), 0.0);
}

TEST(SingleChannelConv, LenetFirstLayerEqualsConv2d) {
  for (ConvKernels kernels : {ConvKernels::kBest, ConvKernels::kPortable}) {
    ExpectEqualsConv2d(3, 4, 6, 28, 28, 2, kernels);
  }
}

// Odd sizes: a second, partial chunk of 32 outputs per row (width 37), channel groups of 3 + 1
// and of 2, no padding and padding 1, one image per client.
TEST(SingleChannelConv, OddShapesEqualConv2d) {
  for (ConvKernels kernels : {ConvKernels::kBest, ConvKernels::kPortable}) {
    ExpectEqualsConv2d(2, 3, 4, 9, 37, 0, kernels);
    ExpectEqualsConv2d(2, 1, 2, 7, 5, 1, kernels);
    ExpectEqualsConv2d(1, 2, 1, 5, 40, 2, kernels);
  }
}

// The fused convolution + ReLU + pooling against torch's conv2d, relu and max_pool2d per client
// (values and gradients to float rounding), and bit for bit against this file's convolution
// followed by MaxPool2Relu: same values, same window maxima, same gradient sums. Half of the
// images are constant, so that many windows are ties (first maximum gets the gradient) or all
// clamped by ReLU; sizes include an odd output (last row and column not pooled).
void ExpectFusedEqualsUnfused(int64_t clients, int64_t per_client, int64_t channels, int64_t h,
                              int64_t w, int64_t padding, ConvKernels kernels) {
  SCOPED_TRACE("K=" + std::to_string(clients) + " C=" + std::to_string(channels) + " " +
               std::to_string(h) + "x" + std::to_string(w) + " pad " + std::to_string(padding) +
               (kernels == ConvKernels::kPortable ? " portable" : " best"));
  torch::manual_seed(23 + h);
  torch::Tensor images = torch::randn({clients * per_client, 1, h, w});
  for (int64_t n = 0; n < images.size(0); n += 2) images[n].fill_(n % 4 == 0 ? 0.5 : -1.0);
  const torch::Tensor weight0 = torch::randn({clients, channels, 1, 5, 5}) * 0.3;
  const torch::Tensor bias0 = torch::randn({clients, channels}) * 0.3;
  torch::Tensor weight = weight0.clone().requires_grad_(true);
  torch::Tensor bias = bias0.clone().requires_grad_(true);
  const torch::Tensor fused = SingleChannelConvReluPool(images, weight, bias, padding, kernels);
  const torch::Tensor upstream = torch::randn(fused.sizes());
  (fused * upstream).sum().backward();

  torch::Tensor weight2 = weight0.clone().requires_grad_(true);
  torch::Tensor bias2 = bias0.clone().requires_grad_(true);
  const torch::Tensor unfused =
      MaxPool2Relu(SingleChannelConv5x5(images, weight2, bias2, padding, kernels));
  (unfused * upstream).sum().backward();
  ASSERT_EQ(fused.sizes(), unfused.sizes());
  EXPECT_TRUE(torch::equal(fused, unfused));
  EXPECT_TRUE(torch::equal(weight.grad(), weight2.grad()));
  EXPECT_TRUE(torch::equal(bias.grad(), bias2.grad()));

  for (int64_t j = 0; j < clients; ++j) {
    torch::Tensor wj = weight0[j].clone().requires_grad_(true);
    torch::Tensor bj = bias0[j].clone().requires_grad_(true);
    const torch::Tensor oj =
        F::max_pool2d(torch::relu(F::conv2d(images.narrow(0, j * per_client, per_client), wj,
                                            F::Conv2dFuncOptions().bias(bj).padding(padding))),
                      F::MaxPool2dFuncOptions(2));
    (oj * upstream.narrow(0, j * per_client, per_client)).sum().backward();
    EXPECT_LT(RelativeError(fused.narrow(0, j * per_client, per_client), oj), 1e-5);
    EXPECT_LT(RelativeError(weight.grad()[j], wj.grad()), 1e-5) << "client " << j;
    EXPECT_LT(RelativeError(bias.grad()[j], bj.grad()), 1e-5) << "client " << j;
  }
  // Not vacuous: some windows pass gradient, some are clamped.
  EXPECT_GT((fused > 0).sum().item<int64_t>(), 0);
  EXPECT_GT((fused == 0).sum().item<int64_t>(), 0);
  EXPECT_GT(weight.grad().abs().max().item<double>(), 0.1);
}

TEST(SingleChannelConv, FusedReluPoolEqualsConvThenMaxPool2Relu) {
  for (ConvKernels kernels : {ConvKernels::kBest, ConvKernels::kPortable}) {
    ExpectFusedEqualsUnfused(3, 4, 6, 28, 28, 2, kernels);
    ExpectFusedEqualsUnfused(2, 3, 4, 11, 37, 0, kernels);
  }
}

// A NaN in an image reaches the pooled outputs of its windows as NaN, as in max_pool2d (rows of
// 10 windows: the vector path; of 4: the plain loop).
TEST(SingleChannelConv, FusedPassesNaNOn) {
  for (int64_t w : {20, 8}) {
    torch::Tensor images = torch::randn({2, 1, 8, w});
    images[1][0][3][3] = std::numeric_limits<float>::quiet_NaN();
    const torch::Tensor weight = torch::randn({1, 2, 1, 5, 5});
    const torch::Tensor bias = torch::randn({1, 2});
    const torch::Tensor fused = SingleChannelConvReluPool(images, weight, bias, 2);
    const torch::Tensor unfused = MaxPool2Relu(SingleChannelConv5x5(images, weight, bias, 2));
    EXPECT_TRUE(torch::allclose(fused, unfused, 0, 0, /*equal_nan=*/true));
    EXPECT_TRUE(torch::isnan(fused[1]).any().item<bool>());
    EXPECT_FALSE(torch::isnan(fused[0]).any().item<bool>());
  }
}

TEST(SingleChannelConv, RefusesBadShapes) {
  const torch::Tensor images = torch::zeros({4, 1, 8, 8});
  const torch::Tensor weight = torch::zeros({2, 6, 1, 5, 5});
  const torch::Tensor bias = torch::zeros({2, 6});
  EXPECT_NO_THROW(SingleChannelConv5x5(images, weight, bias, 0));
  EXPECT_THROW(SingleChannelConv5x5(torch::zeros({4, 2, 8, 8}), weight, bias, 0),
               std::invalid_argument);
  EXPECT_THROW(SingleChannelConv5x5(torch::zeros({3, 1, 8, 8}), weight, bias, 0),
               std::invalid_argument);
  EXPECT_THROW(SingleChannelConv5x5(images, torch::zeros({2, 6, 1, 3, 3}), bias, 0),
               std::invalid_argument);
  EXPECT_THROW(SingleChannelConv5x5(images, weight, torch::zeros({2, 5}), 0),
               std::invalid_argument);
  EXPECT_THROW(SingleChannelConv5x5(torch::zeros({4, 1, 3, 3}), weight, bias, 0),
               std::invalid_argument);
  EXPECT_THROW(SingleChannelConv5x5(images.clone().requires_grad_(true), weight, bias, 0),
               std::invalid_argument);
  EXPECT_NO_THROW(SingleChannelConvReluPool(images, weight, bias, 0));
  EXPECT_THROW(SingleChannelConvReluPool(images, weight, torch::zeros({2, 5}), 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw
