#include "fl/single_channel_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace jigsaw {
namespace {

constexpr int64_t kSize = 5;  // filter height and width
constexpr int64_t kTaps = kSize * kSize;
constexpr int64_t kChunk = 32;  // outputs of a row computed together: 4 AVX vectors of 8

struct Geometry {
  Geometry(const torch::Tensor& images, const torch::Tensor& weight, int64_t padding)
      : clients(weight.size(0)),
        per_client(images.size(0) / clients),
        channels(weight.size(1)),
        h(images.size(2)),
        w(images.size(3)),
        pad(padding),
        oh(h + 2 * pad - kSize + 1),
        ow(w + 2 * pad - kSize + 1),
        chunks((ow + kChunk - 1) / kChunk),
        padded_h(h + 2 * pad),
        padded_w(chunks * kChunk + kSize - 1) {}

  int64_t clients, per_client, channels, h, w, pad, oh, ow, chunks;
  // One image with zero borders; rows are long enough for whole chunks of outputs.
  int64_t padded_h, padded_w;
};

// Copies an h x w image into the interior of a zeroed padded buffer (its borders stay zero).
void FillPadded(const Geometry& g, const float* image, float* padded) {
  for (int64_t y = 0; y < g.h; ++y) {
    std::memcpy(padded + (y + g.pad) * g.padded_w + g.pad, image + y * g.w, g.w * sizeof(float));
  }
}

bool HasAvx2Fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// ---- plain C++ loops -----------------------------------------------------------------------

void ForwardPortable(const Geometry& g, const float* images, const float* weight, const float* bias,
                     float* out) {
  std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
  const int64_t plane = g.oh * g.ow;
  for (int64_t n = 0; n < g.clients * g.per_client; ++n) {
    FillPadded(g, images + n * g.h * g.w, padded.data());
    const int64_t client = n / g.per_client;
    for (int64_t c = 0; c < g.channels; ++c) {
      const float* filter = weight + (client * g.channels + c) * kTaps;
      float* o = out + (n * g.channels + c) * plane;
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t x = 0; x < g.ow; ++x) {
          float sum = bias[client * g.channels + c];
          for (int64_t ky = 0; ky < kSize; ++ky) {
            const float* row = padded.data() + (y + ky) * g.padded_w + x;
            for (int64_t kx = 0; kx < kSize; ++kx) sum += filter[ky * kSize + kx] * row[kx];
          }
          o[y * g.ow + x] = sum;
        }
      }
    }
  }
}

// Client `client`'s weight and bias gradients from its images and their output gradients.
void WeightGradPortable(const Geometry& g, int64_t client, const float* images, const float* grad,
                        float* grad_weight, float* grad_bias) {
  std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
  const int64_t plane = g.oh * g.ow;
  for (int64_t i = 0; i < g.per_client; ++i) {
    const int64_t n = client * g.per_client + i;
    FillPadded(g, images + n * g.h * g.w, padded.data());
    for (int64_t c = 0; c < g.channels; ++c) {
      const float* go = grad + (n * g.channels + c) * plane;
      float* gw = grad_weight + c * kTaps;
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t x = 0; x < g.ow; ++x) {
          const float d = go[y * g.ow + x];
          grad_bias[c] += d;
          for (int64_t ky = 0; ky < kSize; ++ky) {
            const float* row = padded.data() + (y + ky) * g.padded_w + x;
            for (int64_t kx = 0; kx < kSize; ++kx) gw[ky * kSize + kx] += d * row[kx];
          }
        }
      }
    }
  }
}

// ---- AVX2 + FMA ----------------------------------------------------------------------------

// Channels c0 .. c0 + kGroup - 1 of one padded image: each row chunk's 32 outputs per channel stay
// in registers while the 25 taps are added, and each load of the image feeds kGroup channels.
template <int kGroup>
__attribute__((target("avx2,fma"))) void ForwardGroupAvx2(const Geometry& g, const float* padded,
                                                          const float* filters, const float* bias,
                                                          float* out) {
  const int64_t plane = g.oh * g.ow;
  for (int64_t y = 0; y < g.oh; ++y) {
    for (int64_t x0 = 0; x0 < g.ow; x0 += kChunk) {
      __m256 acc[kGroup][4];
      for (int c = 0; c < kGroup; ++c) {
        for (int v = 0; v < 4; ++v) acc[c][v] = _mm256_set1_ps(bias[c]);
      }
      for (int64_t ky = 0; ky < kSize; ++ky) {
        const float* row = padded + (y + ky) * g.padded_w + x0;
        for (int64_t kx = 0; kx < kSize; ++kx) {
          __m256 p[4];
          for (int v = 0; v < 4; ++v) p[v] = _mm256_loadu_ps(row + kx + 8 * v);
          for (int c = 0; c < kGroup; ++c) {
            const __m256 tap = _mm256_broadcast_ss(filters + c * kTaps + ky * kSize + kx);
            for (int v = 0; v < 4; ++v) acc[c][v] = _mm256_fmadd_ps(tap, p[v], acc[c][v]);
          }
        }
      }
      const int64_t valid = std::min(kChunk, g.ow - x0);
      for (int c = 0; c < kGroup; ++c) {
        float* o = out + c * plane + y * g.ow + x0;
        if (valid == kChunk) {
          for (int v = 0; v < 4; ++v) _mm256_storeu_ps(o + 8 * v, acc[c][v]);
        } else {
          alignas(32) float row_out[kChunk];
          for (int v = 0; v < 4; ++v) _mm256_store_ps(row_out + 8 * v, acc[c][v]);
          std::memcpy(o, row_out, valid * sizeof(float));
        }
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void ForwardAvx2(const Geometry& g, const float* images,
                                                     const float* weight, const float* bias,
                                                     float* out) {
  std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
  const int64_t plane = g.oh * g.ow;
  for (int64_t n = 0; n < g.clients * g.per_client; ++n) {
    FillPadded(g, images + n * g.h * g.w, padded.data());
    const int64_t client = n / g.per_client;
    for (int64_t c = 0; c < g.channels;) {
      const float* filters = weight + (client * g.channels + c) * kTaps;
      const float* b = bias + client * g.channels + c;
      float* o = out + (n * g.channels + c) * plane;
      const int64_t left = g.channels - c;
      if (left >= 3) {
        ForwardGroupAvx2<3>(g, padded.data(), filters, b, o);
        c += 3;
      } else if (left == 2) {
        ForwardGroupAvx2<2>(g, padded.data(), filters, b, o);
        c += 2;
      } else {
        ForwardGroupAvx2<1>(g, padded.data(), filters, b, o);
        c += 1;
      }
    }
  }
}

// Lanes of the four vectors of a row chunk that hold outputs (the rest read nothing).
__attribute__((target("avx2,fma"))) void ChunkMasks(int64_t valid, __m256i masks[4]) {
  for (int v = 0; v < 4; ++v) {
    alignas(32) int32_t lanes[8];
    for (int l = 0; l < 8; ++l) lanes[l] = 8 * v + l < valid ? -1 : 0;
    masks[v] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  }
}

__attribute__((target("avx2,fma"))) float HorizontalSum(__m256 a, __m256 b) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(a, b));
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

// For each filter row ky, every output gradient row meets the image row y + ky at the five
// horizontal offsets: 10 accumulators (two per offset, halving the dependency chains) in
// registers across all rows and images of the client.
__attribute__((target("avx2,fma"))) void WeightGradAvx2(const Geometry& g, int64_t client,
                                                        const float* images, const float* grad,
                                                        float* grad_weight, float* grad_bias) {
  std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
  const int64_t plane = g.oh * g.ow;
  // Per channel and tap, two vector accumulators (16 floats), kept over the client's images.
  std::vector<float> acc(g.channels * kTaps * 16, 0.0f);
  std::vector<float> bias_acc(g.channels * 8, 0.0f);
  for (int64_t i = 0; i < g.per_client; ++i) {
    const int64_t n = client * g.per_client + i;
    FillPadded(g, images + n * g.h * g.w, padded.data());
    for (int64_t c = 0; c < g.channels; ++c) {
      const float* go = grad + (n * g.channels + c) * plane;
      for (int64_t x0 = 0; x0 < g.ow; x0 += kChunk) {
        __m256i mask[4];
        ChunkMasks(g.ow - x0, mask);
        __m256 bsum = _mm256_loadu_ps(bias_acc.data() + c * 8);
        for (int64_t y = 0; y < g.oh; ++y) {
          const float* row = go + y * g.ow + x0;
          for (int v = 0; v < 4; ++v) {
            bsum = _mm256_add_ps(bsum, _mm256_maskload_ps(row + 8 * v, mask[v]));
          }
        }
        _mm256_storeu_ps(bias_acc.data() + c * 8, bsum);
        for (int64_t ky = 0; ky < kSize; ++ky) {
          float* a = acc.data() + (c * kTaps + ky * kSize) * 16;
          __m256 sum[kSize][2];
          for (int kx = 0; kx < kSize; ++kx) {
            sum[kx][0] = _mm256_loadu_ps(a + kx * 16);
            sum[kx][1] = _mm256_loadu_ps(a + kx * 16 + 8);
          }
          for (int64_t y = 0; y < g.oh; ++y) {
            const float* grow = go + y * g.ow + x0;
            __m256 d[4];
            for (int v = 0; v < 4; ++v) d[v] = _mm256_maskload_ps(grow + 8 * v, mask[v]);
            const float* irow = padded.data() + (y + ky) * g.padded_w + x0;
            for (int kx = 0; kx < kSize; ++kx) {
              for (int v = 0; v < 4; ++v) {
                sum[kx][v & 1] =
                    _mm256_fmadd_ps(d[v], _mm256_loadu_ps(irow + kx + 8 * v), sum[kx][v & 1]);
              }
            }
          }
          for (int kx = 0; kx < kSize; ++kx) {
            _mm256_storeu_ps(a + kx * 16, sum[kx][0]);
            _mm256_storeu_ps(a + kx * 16 + 8, sum[kx][1]);
          }
        }
      }
    }
  }
  for (int64_t t = 0; t < g.channels * kTaps; ++t) {
    grad_weight[t] = HorizontalSum(_mm256_loadu_ps(acc.data() + t * 16),
                                   _mm256_loadu_ps(acc.data() + t * 16 + 8));
  }
  for (int64_t c = 0; c < g.channels; ++c) {
    grad_bias[c] = HorizontalSum(_mm256_loadu_ps(bias_acc.data() + c * 8), _mm256_setzero_ps());
  }
}

class SingleChannelConvFunction : public torch::autograd::Function<SingleChannelConvFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& images,
                               const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t padding, bool portable) {
    const torch::Tensor x = images.contiguous();
    const torch::Tensor wt = weight.contiguous();
    const torch::Tensor b = bias.contiguous();
    const Geometry g(x, wt, padding);
    torch::Tensor out = torch::empty({x.size(0), g.channels, g.oh, g.ow}, x.options());
    const bool vector = !portable && HasAvx2Fma();
    (vector ? ForwardAvx2 : ForwardPortable)(g, x.data_ptr<float>(), wt.data_ptr<float>(),
                                             b.data_ptr<float>(), out.data_ptr<float>());
    ctx->save_for_backward({x, wt});
    ctx->saved_data["padding"] = padding;
    ctx->saved_data["portable"] = portable;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& wt = saved[1];
    const Geometry g(x, wt, ctx->saved_data["padding"].toInt());
    const bool vector = !ctx->saved_data["portable"].toBool() && HasAvx2Fma();
    const torch::Tensor grad = grad_outputs[0].contiguous();
    torch::Tensor grad_weight = torch::zeros_like(wt);
    torch::Tensor grad_bias = torch::zeros({g.clients, g.channels}, wt.options());
    for (int64_t client = 0; client < g.clients; ++client) {
      (vector ? WeightGradAvx2 : WeightGradPortable)(
          g, client, x.data_ptr<float>(), grad.data_ptr<float>(),
          grad_weight.data_ptr<float>() + client * g.channels * kTaps,
          grad_bias.data_ptr<float>() + client * g.channels);
    }
    return {torch::Tensor(), grad_weight, grad_bias, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor SingleChannelConv5x5(const torch::Tensor& images, const torch::Tensor& weight,
                                   const torch::Tensor& bias, int64_t padding,
                                   ConvKernels kernels) {
  const auto is_float_cpu = [](const torch::Tensor& t) {
    return t.scalar_type() == torch::kFloat32 && t.device().is_cpu();
  };
  if (images.dim() != 4 || images.size(1) != 1 || !is_float_cpu(images)) {
    throw std::invalid_argument("SingleChannelConv5x5: images must be N x 1 x H x W float CPU");
  }
  if (weight.dim() != 5 || weight.size(2) != 1 || weight.size(3) != kSize ||
      weight.size(4) != kSize || !is_float_cpu(weight)) {
    throw std::invalid_argument("SingleChannelConv5x5: weight must be K x C x 1 x 5 x 5 float CPU");
  }
  if (bias.dim() != 2 || bias.size(0) != weight.size(0) || bias.size(1) != weight.size(1) ||
      !is_float_cpu(bias)) {
    throw std::invalid_argument("SingleChannelConv5x5: bias must be K x C float CPU");
  }
  if (weight.size(0) == 0 || images.size(0) % weight.size(0) != 0) {
    throw std::invalid_argument("SingleChannelConv5x5: images must be a whole number per client");
  }
  if (padding < 0 || images.size(2) + 2 * padding < kSize || images.size(3) + 2 * padding < kSize) {
    throw std::invalid_argument("SingleChannelConv5x5: padded images smaller than the filter");
  }
  if (images.requires_grad()) {
    throw std::invalid_argument("SingleChannelConv5x5: no gradient for the images");
  }
  return SingleChannelConvFunction::apply(images, weight, bias, padding,
                                          kernels == ConvKernels::kPortable);
}

}  // namespace jigsaw
