#include "serve/kserve_tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace jigsaw {
namespace {

template <typename Table>
std::string List(const Table& table) {
  std::string list;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0) list += i + 1 == table.size() ? " or " : ", ";
    list += table[i].name;
  }
  return list;
}

uint64_t LittleEndian(const unsigned char* bytes, size_t n) {
  uint64_t value = 0;
  for (size_t i = n; i > 0; --i) value = (value << 8) | bytes[i - 1];
  return value;
}

}  // namespace

const std::vector<DatatypeInfo>& Datatypes() {
  static const std::vector<DatatypeInfo> table = {
      {Datatype::kFp16, "FP16", 2, false},  {Datatype::kFp32, "FP32", 4, false},
      {Datatype::kFp64, "FP64", 8, false},  {Datatype::kInt64, "INT64", 8, true},
      {Datatype::kUint8, "UINT8", 1, true},
  };
  return table;
}

const DatatypeInfo* FindDatatype(std::string_view name) {
  for (const DatatypeInfo& info : Datatypes()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

std::string DatatypeList() { return List(Datatypes()); }

const std::vector<PixelRangeInfo>& PixelRanges() {
  static const std::vector<PixelRangeInfo> table = {
      {PixelRange::kNormalized, "normalized", 0,
       "the model's input as is: (pixel / 255 - channel_mean[c]) / channel_std[c]"},
      {PixelRange::kRaw255, "0..255", 255, "raw pixels; the server normalises them"},
      {PixelRange::kUnit, "0..1", 1, "pixels / 255; the server normalises them"},
  };
  return table;
}

const PixelRangeInfo* FindPixelRange(std::string_view name) {
  for (const PixelRangeInfo& info : PixelRanges()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

std::string PixelRangeList() { return List(PixelRanges()); }

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half >> 15) << 31;
  const uint32_t exponent = (half >> 10) & 0x1f;
  const uint32_t mantissa = half & 0x3ff;
  float magnitude = 0;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal (or zero)
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity()
                              : std::numeric_limits<float>::quiet_NaN();
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  uint32_t bits = 0;
  std::memcpy(&bits, &magnitude, sizeof(bits));
  bits |= sign;
  float value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

double ReadBinaryElement(const DatatypeInfo& type, const unsigned char* bytes) {
  switch (type.type) {
    case Datatype::kFp16:
      return HalfToFloat(static_cast<uint16_t>(LittleEndian(bytes, 2)));
    case Datatype::kFp32: {
      const uint32_t bits = static_cast<uint32_t>(LittleEndian(bytes, 4));
      float value = 0;
      std::memcpy(&value, &bits, sizeof(value));
      return value;
    }
    case Datatype::kFp64: {
      const uint64_t bits = LittleEndian(bytes, 8);
      double value = 0;
      std::memcpy(&value, &bits, sizeof(value));
      return value;
    }
    case Datatype::kInt64:
      return static_cast<double>(static_cast<int64_t>(LittleEndian(bytes, 8)));
    case Datatype::kUint8:
      return bytes[0];
  }
  return 0;
}

std::string ElementProblem(const DatatypeInfo& type, double value) {
  if (!std::isfinite(value)) return "is not finite";
  switch (type.type) {
    case Datatype::kFp16:
      return std::fabs(value) > 65504 ? "is outside FP16's range" : "";
    case Datatype::kFp32:
    case Datatype::kFp64:
      // The model computes in FP32, whatever the datatype.
      return std::fabs(value) > std::numeric_limits<float>::max() ? "is outside FP32 range" : "";
    case Datatype::kInt64:
      return value != std::floor(value) ? "is not an integer" : "";
    case Datatype::kUint8:
      return value != std::floor(value) || value < 0 || value > 255 ? "is not a UINT8 (0..255)"
                                                                    : "";
  }
  return "";
}

}  // namespace jigsaw
