// The first convolution of a batched LeNet step, written out: every client's single-channel images
// convolved with that client's own 5x5 filters. oneDNN pads a convolution with one input channel
// and 6 output channels to 16 channels and needs a concatenation of per-client outputs; here the
// images of K clients go through one call, and the weight and bias gradients come out stacked.
//
// SingleChannelConv5x5(images, weight, bias, padding):
//   images: N x 1 x H x W float CPU, client-major (N = K * B: client j owns images j*B ..
//           j*B + B - 1);
//   weight: K x C x 1 x 5 x 5, bias: K x C;
//   returns N x C x (H + 2 * padding - 4) x (W + 2 * padding - 4): image n convolved (zero
//   padding, stride 1, cross-correlation as in torch::conv2d) with client n / B's filters plus
//   its bias.
// Gradients flow to weight and bias (equal to torch::conv2d's up to float summation order); the
// images get none (they are a first layer's input), so `images` must not require a gradient.
//
// SingleChannelConvReluPool(images, weight, bias, padding): the same convolution followed by
// LeNet's ReLU and 2x2 max-pooling, N x C x (H') / 2 x (W') / 2, in one pass per image: the
// convolution's full-size output and its gradient never leave a per-image buffer (the pooling
// keeps each window's maximum position, an int32 per output). Values equal
// max_pool2d(relu(conv), 2) of this convolution exactly (MaxPool2Relu's rules: first maximum of a
// window, no gradient through a window whose maximum is <= 0 or NaN, NaN passed on).
//
// On CPUs with AVX2 and FMA the loops use them; kPortable forces the plain C++ loops (tests).
#ifndef JIGSAW_FL_SINGLE_CHANNEL_CONV_H_
#define JIGSAW_FL_SINGLE_CHANNEL_CONV_H_

#include <torch/torch.h>

#include <cstdint>

namespace jigsaw {

enum class ConvKernels { kBest, kPortable };

torch::Tensor SingleChannelConv5x5(const torch::Tensor& images, const torch::Tensor& weight,
                                   const torch::Tensor& bias, int64_t padding,
                                   ConvKernels kernels = ConvKernels::kBest);

torch::Tensor SingleChannelConvReluPool(const torch::Tensor& images, const torch::Tensor& weight,
                                        const torch::Tensor& bias, int64_t padding,
                                        ConvKernels kernels = ConvKernels::kBest);

}  // namespace jigsaw

#endif  // JIGSAW_FL_SINGLE_CHANNEL_CONV_H_
