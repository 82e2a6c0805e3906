// Tensor element types and pixel ranges of serve's Open Inference Protocol input, torch-free:
// one table per enum (parsing, metadata and error lists come from it), and the element reading
// rules shared by JSON and binary tensor data.
#ifndef JIGSAW_SERVE_KSERVE_TENSOR_H_
#define JIGSAW_SERVE_KSERVE_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jigsaw {

enum class Datatype { kFp16, kFp32, kFp64, kInt64, kUint8 };

struct DatatypeInfo {
  Datatype type;
  const char* name;  // as the protocol spells it
  size_t bytes;      // in binary tensor data
  bool integer;
};

const std::vector<DatatypeInfo>& Datatypes();
const DatatypeInfo* FindDatatype(std::string_view name);  // nullptr when unknown
std::string DatatypeList();                               // "FP16, FP32, FP64, INT64 or UINT8"

enum class PixelRange { kNormalized, kRaw255, kUnit };

struct PixelRangeInfo {
  PixelRange range;
  const char* name;  // the input parameter's value
  double top;        // largest pixel value (0: normalised, no range)
  const char* help;
};

const std::vector<PixelRangeInfo>& PixelRanges();
const PixelRangeInfo* FindPixelRange(std::string_view name);
std::string PixelRangeList();  // "normalized, 0..255 or 0..1"

// IEEE 754 binary16 to float (subnormals, infinities and NaN included).
float HalfToFloat(uint16_t half);
// One element of binary tensor data (little-endian) as a double.
double ReadBinaryElement(const DatatypeInfo& type, const unsigned char* bytes);
// Why `value` cannot be an element of `type` ("" when it can): not finite, out of the type's
// range, or (FP64) beyond FP32's range, which the model computes in.
std::string ElementProblem(const DatatypeInfo& type, double value);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_KSERVE_TENSOR_H_
