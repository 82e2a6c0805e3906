#include "faas/function_code.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "core/sha256.h"
#include "core/text_input.h"
#include "core/units.h"
#include "faas/isolation_probe.h"
#include "runtime/jpeg_decode.h"
#include "runtime/tar_reader.h"

namespace jigsaw::faas {
namespace {

constexpr uint64_t kMaxStateBytes = 256ULL << 20;
constexpr size_t kImagesLoaded = 512;
constexpr uint64_t kMaxJpegBytes = 1 << 20;
constexpr int kCifarSide = 32;
constexpr double kMaxWaitS = 10;

bool ParseInt(std::string_view text, int low, int high, int* value) {
  if (text.empty() || text.size() > 6) return false;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < low || v > high) return false;
  *value = v;
  return true;
}

}  // namespace

bool ParseFunctionCode(const std::string& full_text, FunctionCode* code, std::string* error) {
  FunctionCode parsed;
  const size_t plus = full_text.find('+');
  if (plus != std::string::npos) {
    const std::string wait = full_text.substr(plus + 1);
    double seconds = 0;
    if (wait.rfind("wait:", 0) != 0 || !ParseDurationSeconds(wait.substr(5), &seconds) ||
        seconds <= 0 || seconds > kMaxWaitS) {
      *error = "'+' must be followed by wait:DURATION (0 < DURATION <= 10s) like +wait:20ms";
      return false;
    }
    parsed.wait_us = static_cast<int64_t>(seconds * 1e6 + 0.5);
  }
  const std::string text = full_text.substr(0, plus);
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "sha256") {
    parsed.kind = FunctionCode::Kind::kSha256;
    if (!ParseBytes(arg, &parsed.bytes) || parsed.bytes == 0 || parsed.bytes > kMaxStateBytes) {
      *error = "must be sha256:SIZE with SIZE in 1B..256MiB like sha256:1MiB";
      return false;
    }
  } else if (kind == "resize") {
    parsed.kind = FunctionCode::Kind::kResize;
    const size_t x = arg.find('x');
    const std::string side = arg.substr(0, x);
    const std::string count = x == std::string::npos ? "1" : arg.substr(x + 1);
    if (!ParseInt(side, 1, 1024, &parsed.side) || !ParseInt(count, 1, 64, &parsed.count)) {
      *error =
          "must be resize:SIDE or resize:SIDExCOUNT (SIDE 1..1024, COUNT 1..64) like resize:64";
      return false;
    }
  } else if (kind == "probe") {
    parsed.kind = FunctionCode::Kind::kProbe;
    if (arg != "isolation") {
      *error = "must be probe:isolation";
      return false;
    }
  } else {
    *error =
        "must be sha256:SIZE, resize:SIDE[xCOUNT] or probe:isolation, optionally followed by "
        "+wait:DURATION";
    return false;
  }
  *code = parsed;
  return true;
}

FunctionRunner::FunctionRunner(const FunctionCode& code, const std::string& cifar_archive)
    : code_(code) {
  if (code.kind == FunctionCode::Kind::kSha256) {
    state_.resize(code.bytes);
    uint32_t x = 2463534242u;  // xorshift32: cheap, deterministic filler
    for (char& c : state_) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      c = static_cast<char>(x);
    }
    return;
  }
  if (code.kind == FunctionCode::Kind::kProbe) return;
  TarReader tar(cifar_archive);
  TarMember member;
  while (jpegs_.size() < kImagesLoaded && tar.Next(&member)) {
    if (member.kind != TarMember::Kind::kRegularFile) continue;
    std::string lower = member.name;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower.size() < 4 || lower.substr(lower.size() - 4) != ".jpg") continue;
    jpegs_.push_back(tar.ReadData(kMaxJpegBytes));
  }
  if (jpegs_.empty()) {
    throw InputError(cifar_archive, 0, "no .jpg member: expected the CIFAR-10 JPEG archive");
  }
}

std::string FunctionRunner::Invoke(const std::string& payload) const {
  std::string result = Compute(payload);
  if (code_.wait_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(code_.wait_us));
  return result;
}

std::string FunctionRunner::Compute(const std::string& payload) const {
  if (code_.kind == FunctionCode::Kind::kSha256) {
    std::string data = payload;
    data.append(state_);
    return Sha256Hex(data);
  }
  if (code_.kind == FunctionCode::Kind::kProbe) return ProbeIsolation(payload);
  const std::string key = Sha256Hex(payload);
  uint64_t pick = std::stoull(key.substr(0, 12), nullptr, 16);
  std::string outputs;
  std::vector<uint8_t> image(3 * kCifarSide * kCifarSide);
  for (int i = 0; i < code_.count; ++i) {
    const std::string& jpeg = jpegs_[(pick + i) % jpegs_.size()];
    const std::string error =
        DecodeJpegPlanarRgb(reinterpret_cast<const uint8_t*>(jpeg.data()), jpeg.size(), kCifarSide,
                            kCifarSide, image.data());
    if (!error.empty()) throw std::runtime_error("JPEG decode: " + error);
    const std::vector<uint8_t> resized = ResizePlanarRgb(image, kCifarSide, kCifarSide, code_.side);
    outputs.append(reinterpret_cast<const char*>(resized.data()), resized.size());
  }
  return Sha256Hex(outputs);
}

std::vector<uint8_t> ResizePlanarRgb(const std::vector<uint8_t>& image, int width, int height,
                                     int side) {
  std::vector<uint8_t> out(static_cast<size_t>(3) * side * side);
  const double sx = static_cast<double>(width) / side;
  const double sy = static_cast<double>(height) / side;
  for (int c = 0; c < 3; ++c) {
    const uint8_t* plane = image.data() + static_cast<size_t>(c) * width * height;
    uint8_t* target = out.data() + static_cast<size_t>(c) * side * side;
    for (int y = 0; y < side; ++y) {
      const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, height - 1.0);
      const int y0 = static_cast<int>(fy);
      const int y1 = std::min(y0 + 1, height - 1);
      const double wy = fy - y0;
      for (int x = 0; x < side; ++x) {
        const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, width - 1.0);
        const int x0 = static_cast<int>(fx);
        const int x1 = std::min(x0 + 1, width - 1);
        const double wx = fx - x0;
        const double top = plane[y0 * width + x0] * (1 - wx) + plane[y0 * width + x1] * wx;
        const double bottom = plane[y1 * width + x0] * (1 - wx) + plane[y1 * width + x1] * wx;
        target[y * side + x] = static_cast<uint8_t>(top * (1 - wy) + bottom * wy + 0.5);
      }
    }
  }
  return out;
}

}  // namespace jigsaw::faas
