// Decoding small JPEG images (libjpeg) into the planar layout of ImageSet.
//
// DecodeJpegPlanarRgb decodes `size` bytes of JPEG data that must be exactly width x height pixels,
// RGB/YCbCr (3 components) or grayscale (1 component, copied into all three channels), into
// `out`: 3 * height * width bytes, channel-major (all R, then all G, then all B), rows top to
// bottom. libjpeg's warnings (corrupt or truncated data, which it would otherwise paper over with
// grey pixels) count as errors. Returns "" on success, otherwise what is wrong (then `out` holds
// garbage). Never throws, never prints.
#ifndef JIGSAW_RUNTIME_JPEG_DECODE_H_
#define JIGSAW_RUNTIME_JPEG_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace jigsaw {

std::string DecodeJpegPlanarRgb(const uint8_t* data, size_t size, int width, int height,
                                uint8_t* out);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_JPEG_DECODE_H_
