#include "runtime/jpeg_decode.h"

#include <csetjmp>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace jigsaw {
namespace {

// libjpeg reports fatal errors through error_exit, which must not return: jump back to Decode.
// (Throwing a C++ exception through libjpeg's C frames is not portable.)
struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void OnError(j_common_ptr cinfo) {
  auto* manager = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, manager->message);
  std::longjmp(manager->jump, 1);
}

// Level -1 is a warning about corrupt data; the trace levels (>= 0) are ignored.
void OnMessage(j_common_ptr cinfo, int level) {
  if (level < 0) OnError(cinfo);
}

// Only trivially destructible locals here: longjmp skips destructors.
bool Decode(const uint8_t* data, size_t size, int width, int height, uint8_t* interleaved,
            int* components, char* why, size_t why_size) {
  jpeg_decompress_struct cinfo;
  ErrorManager manager;
  cinfo.err = jpeg_std_error(&manager.base);
  manager.base.error_exit = OnError;
  manager.base.emit_message = OnMessage;
  manager.message[0] = '\0';
  if (setjmp(manager.jump)) {
    std::snprintf(why, why_size, "corrupt JPEG data: %s", manager.message);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  bool ok = true;
  if (cinfo.num_components == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (cinfo.num_components == 3 &&
             (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_RGB)) {
    cinfo.out_color_space = JCS_RGB;
  } else {
    std::snprintf(why, why_size,
                  "JPEG with %d colour components (colour space %d), expected RGB "
                  "or grayscale",
                  cinfo.num_components, static_cast<int>(cinfo.jpeg_color_space));
    ok = false;
  }
  if (ok && (cinfo.image_width != static_cast<JDIMENSION>(width) ||
             cinfo.image_height != static_cast<JDIMENSION>(height))) {
    std::snprintf(why, why_size, "JPEG is %ux%u pixels, expected %dx%d", cinfo.image_width,
                  cinfo.image_height, width, height);
    ok = false;
  }
  if (ok) {
    jpeg_start_decompress(&cinfo);
    *components = cinfo.output_components;
    while (cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW row = interleaved + static_cast<size_t>(cinfo.output_scanline) * width * *components;
      jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
  }
  jpeg_destroy_decompress(&cinfo);
  return ok;
}

}  // namespace

std::string DecodeJpegPlanarRgb(const uint8_t* data, size_t size, int width, int height,
                                uint8_t* out) {
  if (size == 0) return "empty file, expected JPEG data";
  const size_t plane = static_cast<size_t>(width) * height;
  std::vector<uint8_t> interleaved(plane * 3);
  int components = 0;
  char why[JMSG_LENGTH_MAX + 64];
  if (!Decode(data, size, width, height, interleaved.data(), &components, why, sizeof(why))) {
    return why;
  }
  for (size_t p = 0; p < plane; ++p) {
    for (int c = 0; c < 3; ++c) {
      out[c * plane + p] = components == 1 ? interleaved[p] : interleaved[p * 3 + c];
    }
  }
  return "";
}

}  // namespace jigsaw
