#include "fl/single_channel_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
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
        padded_w(chunks * kChunk + kSize - 1),
        row_stride(ow) {}

  int64_t clients, per_client, channels, h, w, pad, oh, ow, chunks;
  // One image with zero borders; rows are long enough for whole chunks of outputs.
  int64_t padded_h, padded_w;
  // Row stride of a convolution output or output gradient (C x oh x row_stride): ow in tensors,
  // whole chunks in the fused function's per-image buffers (full vector stores, no tail copy).
  int64_t row_stride;
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

// Per-client gradient sums: 16 partial sums per filter tap and 8 per bias (the vector kernels fill
// every lane, the portable ones lane 0), added up at the end.
class GradAccumulator {
 public:
  explicit GradAccumulator(int64_t channels)
      : taps_(channels * kTaps * 16, 0.0f), bias_(channels * 8, 0.0f) {}
  float* taps() { return taps_.data(); }
  float* bias() { return bias_.data(); }
  void Finish(float* grad_weight, float* grad_bias) const {
    for (size_t t = 0; t < taps_.size() / 16; ++t) {
      float sum = 0;
      for (int l = 0; l < 16; ++l) sum += taps_[t * 16 + l];
      grad_weight[t] = sum;
    }
    for (size_t c = 0; c < bias_.size() / 8; ++c) {
      float sum = 0;
      for (int l = 0; l < 8; ++l) sum += bias_[c * 8 + l];
      grad_bias[c] = sum;
    }
  }

 private:
  std::vector<float> taps_, bias_;
};

// ---- plain C++ loops -----------------------------------------------------------------------

// One padded image convolved with C filters (C x 25) plus biases: out is C x oh x ow.
void ConvImagePortable(const Geometry& g, const float* padded, const float* filters,
                       const float* bias, float* out) {
  for (int64_t c = 0; c < g.channels; ++c) {
    const float* filter = filters + c * kTaps;
    float* o = out + c * g.oh * g.row_stride;
    for (int64_t y = 0; y < g.oh; ++y) {
      for (int64_t x = 0; x < g.ow; ++x) {
        float sum = bias[c];
        for (int64_t ky = 0; ky < kSize; ++ky) {
          const float* row = padded + (y + ky) * g.padded_w + x;
          for (int64_t kx = 0; kx < kSize; ++kx) sum += filter[ky * kSize + kx] * row[kx];
        }
        o[y * g.row_stride + x] = sum;
      }
    }
  }
}

// Adds one image's weight and bias gradients (grad: C x oh x ow at the outputs) to `acc`.
void AccumulateImagePortable(const Geometry& g, const float* padded, const float* grad,
                             GradAccumulator* acc) {
  for (int64_t c = 0; c < g.channels; ++c) {
    const float* go = grad + c * g.oh * g.row_stride;
    float* taps = acc->taps() + c * kTaps * 16;
    for (int64_t y = 0; y < g.oh; ++y) {
      for (int64_t x = 0; x < g.ow; ++x) {
        const float d = go[y * g.row_stride + x];
        acc->bias()[c * 8] += d;
        for (int64_t ky = 0; ky < kSize; ++ky) {
          const float* row = padded + (y + ky) * g.padded_w + x;
          for (int64_t kx = 0; kx < kSize; ++kx) taps[(ky * kSize + kx) * 16] += d * row[kx];
        }
      }
    }
  }
}

// ---- AVX2 + FMA ----------------------------------------------------------------------------

// Channels c0 .. c0 + kGroup - 1 of one padded image: each row chunk's 32 outputs per channel stay
// in registers while the 25 taps are added, and each load of the image feeds kGroup channels.
template <int kGroup>
__attribute__((target("avx2,fma"))) void ConvGroupAvx2(const Geometry& g, const float* padded,
                                                       const float* filters, const float* bias,
                                                       float* out) {
  const int64_t plane = g.oh * g.row_stride;
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
        float* o = out + c * plane + y * g.row_stride + x0;
        if (x0 + kChunk <= g.row_stride) {
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

__attribute__((target("avx2,fma"))) void ConvImageAvx2(const Geometry& g, const float* padded,
                                                       const float* filters, const float* bias,
                                                       float* out) {
  const int64_t plane = g.oh * g.row_stride;
  for (int64_t c = 0; c < g.channels;) {
    const int64_t left = g.channels - c;
    const float* f = filters + c * kTaps;
    float* o = out + c * plane;
    if (left >= 3) {
      ConvGroupAvx2<3>(g, padded, f, bias + c, o);
      c += 3;
    } else if (left == 2) {
      ConvGroupAvx2<2>(g, padded, f, bias + c, o);
      c += 2;
    } else {
      ConvGroupAvx2<1>(g, padded, f, bias + c, o);
      c += 1;
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

// For each filter row ky, every output gradient row meets the image row y + ky at the five
// horizontal offsets: 10 accumulators (two per offset, halving the dependency chains) stay in
// registers over all rows.
__attribute__((target("avx2,fma"))) void AccumulateImageAvx2(const Geometry& g, const float* padded,
                                                             const float* grad,
                                                             GradAccumulator* acc) {
  for (int64_t c = 0; c < g.channels; ++c) {
    const float* go = grad + c * g.oh * g.row_stride;
    for (int64_t x0 = 0; x0 < g.ow; x0 += kChunk) {
      __m256i mask[4];
      ChunkMasks(g.ow - x0, mask);
      float* bias_acc = acc->bias() + c * 8;
      __m256 bsum = _mm256_loadu_ps(bias_acc);
      for (int64_t y = 0; y < g.oh; ++y) {
        const float* row = go + y * g.row_stride + x0;
        for (int v = 0; v < 4; ++v) {
          bsum = _mm256_add_ps(bsum, _mm256_maskload_ps(row + 8 * v, mask[v]));
        }
      }
      _mm256_storeu_ps(bias_acc, bsum);
      for (int64_t ky = 0; ky < kSize; ++ky) {
        float* a = acc->taps() + (c * kTaps + ky * kSize) * 16;
        __m256 sum[kSize][2];
        for (int kx = 0; kx < kSize; ++kx) {
          sum[kx][0] = _mm256_loadu_ps(a + kx * 16);
          sum[kx][1] = _mm256_loadu_ps(a + kx * 16 + 8);
        }
        for (int64_t y = 0; y < g.oh; ++y) {
          const float* grow = go + y * g.row_stride + x0;
          __m256 d[4];
          for (int v = 0; v < 4; ++v) d[v] = _mm256_maskload_ps(grow + 8 * v, mask[v]);
          const float* irow = padded + (y + ky) * g.padded_w + x0;
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

// ---- pooling (plain C++; the AVX2 build of the same loop is vectorised by the compiler) -------

constexpr int32_t kNoGradient = 4;

// relu(max_pool2d(conv, 2)) of one image's C x oh x ow convolution output, and per window the
// position (0..3, row-major) of its first maximum or kNoGradient.
inline __attribute__((always_inline)) void PoolImageBody(const Geometry& g, const float* conv,
                                                         float* out, int32_t* where) {
  const int64_t ph = g.oh / 2, pw = g.ow / 2;
  for (int64_t row = 0; row < g.channels * ph; ++row, out += pw, where += pw) {
    const float* top = conv + ((row / ph) * g.oh + 2 * (row % ph)) * g.row_stride;
    const float* bottom = top + g.row_stride;
    for (int64_t x = 0; x < pw; ++x) {
      const float a = top[2 * x], b = top[2 * x + 1], c = bottom[2 * x], d = bottom[2 * x + 1];
      // First maximum in the order a, b, c, d: the first of each pair, then the top pair on ties.
      const float ab = b > a ? b : a, cd = d > c ? d : c;
      const int32_t iab = b > a ? 1 : 0, icd = d > c ? 3 : 2;
      const float best = cd > ab ? cd : ab;
      const int32_t at = cd > ab ? icd : iab;
      // Bitwise, not short-circuit, operators keep the loop free of branches (vectorised).
      const bool nan = (a != a) | (b != b) | (c != c) | (d != d);
      const float relu = best > 0 ? best : 0.0f;
      out[x] = nan ? a + b + c + d : relu;
      where[x] = (!nan) & (best > 0) ? at : kNoGradient;
    }
  }
}

void PoolImagePortable(const Geometry& g, const float* conv, float* out, int32_t* where) {
  PoolImageBody(g, conv, out, where);
}

// PoolImageBody with 8 windows per step (GCC does not vectorise the plain loop). A row's last 8
// windows are computed from pw - 8 on (overlapping the previous step: same values).
__attribute__((target("avx2,fma"))) void PoolImageAvx2(const Geometry& g, const float* conv,
                                                       float* out, int32_t* where) {
  const int64_t ph = g.oh / 2, pw = g.ow / 2;
  if (pw < 8) return PoolImageBody(g, conv, out, where);
  const __m256 zero = _mm256_setzero_ps();
  const __m256i one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2),
                none = _mm256_set1_epi32(kNoGradient);
  for (int64_t row = 0; row < g.channels * ph; ++row, out += pw, where += pw) {
    const float* top = conv + ((row / ph) * g.oh + 2 * (row % ph)) * g.row_stride;
    const float* bottom = top + g.row_stride;
    for (int64_t x0 = 0; x0 < pw; x0 += 8) {
      const int64_t x = std::min(x0, pw - 8);
      const __m256 t0 = _mm256_loadu_ps(top + 2 * x), t1 = _mm256_loadu_ps(top + 2 * x + 8);
      const __m256 b0 = _mm256_loadu_ps(bottom + 2 * x), b1 = _mm256_loadu_ps(bottom + 2 * x + 8);
      // Even and odd columns; lanes hold windows 0 1 4 5 2 3 6 7 (undone before the stores).
      const __m256 a = _mm256_shuffle_ps(t0, t1, 0x88), b = _mm256_shuffle_ps(t0, t1, 0xDD);
      const __m256 c = _mm256_shuffle_ps(b0, b1, 0x88), d = _mm256_shuffle_ps(b0, b1, 0xDD);
      const __m256 b_gt_a = _mm256_cmp_ps(b, a, _CMP_GT_OQ),
                   d_gt_c = _mm256_cmp_ps(d, c, _CMP_GT_OQ);
      const __m256 ab = _mm256_blendv_ps(a, b, b_gt_a), cd = _mm256_blendv_ps(c, d, d_gt_c);
      const __m256 cd_gt_ab = _mm256_cmp_ps(cd, ab, _CMP_GT_OQ);
      const __m256 best = _mm256_blendv_ps(ab, cd, cd_gt_ab);
      const __m256i iab = _mm256_and_si256(_mm256_castps_si256(b_gt_a), one);
      const __m256i icd = _mm256_add_epi32(two, _mm256_and_si256(_mm256_castps_si256(d_gt_c), one));
      const __m256i at = _mm256_blendv_epi8(iab, icd, _mm256_castps_si256(cd_gt_ab));
      const __m256 nan =
          _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q), _mm256_cmp_ps(c, d, _CMP_UNORD_Q));
      const __m256 positive = _mm256_cmp_ps(best, zero, _CMP_GT_OQ);
      const __m256 relu = _mm256_and_ps(best, positive);
      const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a, b), c), d);
      const __m256 value = _mm256_blendv_ps(relu, sum, nan);
      const __m256i code =
          _mm256_blendv_epi8(none, at, _mm256_castps_si256(_mm256_andnot_ps(nan, positive)));
      _mm256_storeu_ps(out + x,
                       _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(value), 0xD8)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(where + x),
                          _mm256_permute4x64_epi64(code, 0xD8));
    }
  }
}

// The convolution-output gradient (C x oh x ow, zero where no window's maximum is) from the
// pooled output's gradient.
void UnpoolGradient(const Geometry& g, const float* grad, const int32_t* where, float* conv_grad) {
  std::fill_n(conv_grad, g.channels * g.oh * g.row_stride, 0.0f);
  const int64_t ph = g.oh / 2, pw = g.ow / 2;
  for (int64_t row = 0; row < g.channels * ph; ++row, grad += pw, where += pw) {
    float* top = conv_grad + ((row / ph) * g.oh + 2 * (row % ph)) * g.row_stride;
    for (int64_t x = 0; x < pw; ++x) {
      // Branch-free (whether a window passes gradient is a coin flip for the branch predictor):
      // a window without one writes a zero onto its first position.
      const int32_t at = where[x];
      top[((at >> 1) & 1) * g.row_stride + 2 * x + (at & 1)] = at == kNoGradient ? 0.0f : grad[x];
    }
  }
}

struct Kernels {
  explicit Kernels(bool portable) {
    const bool vector = !portable && HasAvx2Fma();
    conv = vector ? ConvImageAvx2 : ConvImagePortable;
    accumulate = vector ? AccumulateImageAvx2 : AccumulateImagePortable;
    pool = vector ? PoolImageAvx2 : PoolImagePortable;
  }
  void (*conv)(const Geometry&, const float*, const float*, const float*, float*);
  void (*accumulate)(const Geometry&, const float*, const float*, GradAccumulator*);
  void (*pool)(const Geometry&, const float*, float*, int32_t*);
};

class SingleChannelConvFunction : public torch::autograd::Function<SingleChannelConvFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& images,
                               const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t padding, bool portable) {
    const torch::Tensor x = images.contiguous();
    const torch::Tensor wt = weight.contiguous();
    const torch::Tensor b = bias.contiguous();
    const Geometry g(x, wt, padding);
    const Kernels kernels(portable);
    torch::Tensor out = torch::empty({x.size(0), g.channels, g.oh, g.ow}, x.options());
    std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
    for (int64_t n = 0; n < x.size(0); ++n) {
      const int64_t client = n / g.per_client;
      FillPadded(g, x.data_ptr<float>() + n * g.h * g.w, padded.data());
      kernels.conv(g, padded.data(), wt.data_ptr<float>() + client * g.channels * kTaps,
                   b.data_ptr<float>() + client * g.channels,
                   out.data_ptr<float>() + n * g.channels * g.oh * g.ow);
    }
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
    const Kernels kernels(ctx->saved_data["portable"].toBool());
    const torch::Tensor grad = grad_outputs[0].contiguous();
    torch::Tensor grad_weight = torch::empty_like(wt);
    torch::Tensor grad_bias = torch::empty({g.clients, g.channels}, wt.options());
    std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
    for (int64_t client = 0; client < g.clients; ++client) {
      GradAccumulator acc(g.channels);
      for (int64_t n = client * g.per_client; n < (client + 1) * g.per_client; ++n) {
        FillPadded(g, x.data_ptr<float>() + n * g.h * g.w, padded.data());
        kernels.accumulate(g, padded.data(), grad.data_ptr<float>() + n * g.channels * g.oh * g.ow,
                           &acc);
      }
      acc.Finish(grad_weight.data_ptr<float>() + client * g.channels * kTaps,
                 grad_bias.data_ptr<float>() + client * g.channels);
    }
    return {torch::Tensor(), grad_weight, grad_bias, torch::Tensor(), torch::Tensor()};
  }
};

class SingleChannelConvReluPoolFunction
    : public torch::autograd::Function<SingleChannelConvReluPoolFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& images,
                               const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t padding, bool portable) {
    const torch::Tensor x = images.contiguous();
    const torch::Tensor wt = weight.contiguous();
    const torch::Tensor b = bias.contiguous();
    Geometry g(x, wt, padding);
    g.row_stride = g.chunks * kChunk;
    const Kernels kernels(portable);
    const int64_t pooled = g.channels * (g.oh / 2) * (g.ow / 2);
    torch::Tensor out = torch::empty({x.size(0), g.channels, g.oh / 2, g.ow / 2}, x.options());
    torch::Tensor where = torch::empty(out.sizes(), x.options().dtype(torch::kInt32));
    std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
    std::vector<float> conv(g.channels * g.oh * g.row_stride);
    for (int64_t n = 0; n < x.size(0); ++n) {
      const int64_t client = n / g.per_client;
      FillPadded(g, x.data_ptr<float>() + n * g.h * g.w, padded.data());
      kernels.conv(g, padded.data(), wt.data_ptr<float>() + client * g.channels * kTaps,
                   b.data_ptr<float>() + client * g.channels, conv.data());
      kernels.pool(g, conv.data(), out.data_ptr<float>() + n * pooled,
                   where.data_ptr<int32_t>() + n * pooled);
    }
    ctx->save_for_backward({x, wt, where});
    ctx->saved_data["padding"] = padding;
    ctx->saved_data["portable"] = portable;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& wt = saved[1];
    const torch::Tensor& where = saved[2];
    Geometry g(x, wt, ctx->saved_data["padding"].toInt());
    g.row_stride = g.chunks * kChunk;
    const Kernels kernels(ctx->saved_data["portable"].toBool());
    const int64_t pooled = g.channels * (g.oh / 2) * (g.ow / 2);
    const torch::Tensor grad = grad_outputs[0].contiguous();
    torch::Tensor grad_weight = torch::empty_like(wt);
    torch::Tensor grad_bias = torch::empty({g.clients, g.channels}, wt.options());
    std::vector<float> padded(g.padded_h * g.padded_w, 0.0f);
    std::vector<float> conv_grad(g.channels * g.oh * g.row_stride);
    for (int64_t client = 0; client < g.clients; ++client) {
      GradAccumulator acc(g.channels);
      for (int64_t n = client * g.per_client; n < (client + 1) * g.per_client; ++n) {
        FillPadded(g, x.data_ptr<float>() + n * g.h * g.w, padded.data());
        UnpoolGradient(g, grad.data_ptr<float>() + n * pooled,
                       where.data_ptr<int32_t>() + n * pooled, conv_grad.data());
        kernels.accumulate(g, padded.data(), conv_grad.data(), &acc);
      }
      acc.Finish(grad_weight.data_ptr<float>() + client * g.channels * kTaps,
                 grad_bias.data_ptr<float>() + client * g.channels);
    }
    return {torch::Tensor(), grad_weight, grad_bias, torch::Tensor(), torch::Tensor()};
  }
};

// Shapes and types both entry points accept.
void CheckArguments(const char* name, const torch::Tensor& images, const torch::Tensor& weight,
                    const torch::Tensor& bias, int64_t padding) {
  const auto is_float_cpu = [](const torch::Tensor& t) {
    return t.scalar_type() == torch::kFloat32 && t.device().is_cpu();
  };
  const std::string prefix = std::string(name) + ": ";
  if (images.dim() != 4 || images.size(1) != 1 || !is_float_cpu(images)) {
    throw std::invalid_argument(prefix + "images must be N x 1 x H x W float CPU");
  }
  if (weight.dim() != 5 || weight.size(2) != 1 || weight.size(3) != kSize ||
      weight.size(4) != kSize || !is_float_cpu(weight)) {
    throw std::invalid_argument(prefix + "weight must be K x C x 1 x 5 x 5 float CPU");
  }
  if (bias.dim() != 2 || bias.size(0) != weight.size(0) || bias.size(1) != weight.size(1) ||
      !is_float_cpu(bias)) {
    throw std::invalid_argument(prefix + "bias must be K x C float CPU");
  }
  if (weight.size(0) == 0 || images.size(0) % weight.size(0) != 0) {
    throw std::invalid_argument(prefix + "images must be a whole number per client");
  }
  if (padding < 0 || images.size(2) + 2 * padding < kSize || images.size(3) + 2 * padding < kSize) {
    throw std::invalid_argument(prefix + "padded images smaller than the filter");
  }
  if (images.requires_grad()) {
    throw std::invalid_argument(prefix + "no gradient for the images");
  }
}

}  // namespace

torch::Tensor SingleChannelConv5x5(const torch::Tensor& images, const torch::Tensor& weight,
                                   const torch::Tensor& bias, int64_t padding,
                                   ConvKernels kernels) {
  CheckArguments("SingleChannelConv5x5", images, weight, bias, padding);
  return SingleChannelConvFunction::apply(images, weight, bias, padding,
                                          kernels == ConvKernels::kPortable);
}

torch::Tensor SingleChannelConvReluPool(const torch::Tensor& images, const torch::Tensor& weight,
                                        const torch::Tensor& bias, int64_t padding,
                                        ConvKernels kernels) {
  CheckArguments("SingleChannelConvReluPool", images, weight, bias, padding);
  return SingleChannelConvReluPoolFunction::apply(images, weight, bias, padding,
                                                  kernels == ConvKernels::kPortable);
}

}  // namespace jigsaw
