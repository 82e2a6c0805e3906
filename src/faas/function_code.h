// The real code a function of the real platform (`jigsaw faas`) runs inside its sandbox.
//
// A DAG file's "code" field names it:
//   "sha256:SIZE"         SHA-256 over the request payload followed by SIZE bytes of state the
//                         sandbox built at initialisation (SIZE: core size spellings, 1B..256MiB).
//   "resize:SIDE[xCOUNT]" decodes COUNT (default 1, at most 64) CIFAR-10 JPEGs picked by the
//                         payload's hash and resizes each (bilinear) to SIDE x SIDE (1..1024);
//                         initialisation loads the first 512 JPEGs of the CIFAR-10 archive into
//                         memory (the JPEG bytes, still encoded).
//   "probe:isolation"     reports what the sandbox can reach (faas/isolation_probe.h): for
//                         checking a host's sandboxes, not a workload.
//   any of them + "+wait:DURATION" then blocks DURATION (at most 10 s) after the computation,
//                         holding its sandbox but not a core: an I/O-bound function (a call to
//                         remote storage or a downstream service), so an SGS's slots can exceed
//                         the host's cores (bench/faas_real_io_dags.json).
// FunctionRunner holds one sandbox's initialised state; Invoke returns a short text result (a hex
// digest, or the probe's JSON report) and throws std::runtime_error on bad data.
#ifndef JIGSAW_FAAS_FUNCTION_CODE_H_
#define JIGSAW_FAAS_FUNCTION_CODE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw::faas {

struct FunctionCode {
  enum class Kind { kSha256, kResize, kProbe };
  Kind kind = Kind::kSha256;
  uint64_t bytes = 1 << 20;  // sha256
  int side = 64;             // resize
  int count = 1;             // resize
  int64_t wait_us = 0;       // "+wait:"
};

// False with *error saying what was expected.
bool ParseFunctionCode(const std::string& text, FunctionCode* code, std::string* error);

class FunctionRunner {
 public:
  // Builds the function's state; `cifar_archive` (resize only) is the CIFAR-10 JPEG .tar.gz.
  // Throws InputError / std::runtime_error when the data cannot be read.
  FunctionRunner(const FunctionCode& code, const std::string& cifar_archive);

  std::string Invoke(const std::string& payload) const;

 private:
  std::string Compute(const std::string& payload) const;

  FunctionCode code_;
  std::string state_;               // sha256
  std::vector<std::string> jpegs_;  // resize
};

// Bilinear resize of a planar RGB image (3 x height x width bytes) to 3 x side x side.
std::vector<uint8_t> ResizePlanarRgb(const std::vector<uint8_t>& image, int width, int height,
                                     int side);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_FUNCTION_CODE_H_
