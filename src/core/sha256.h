// SHA-256 (FIPS 180-4) of a byte string or a file, as lowercase hex: summary.json records the
// hash of every input file so a result names exactly the data it came from.
#ifndef JIGSAW_CORE_SHA256_H_
#define JIGSAW_CORE_SHA256_H_

#include <string>
#include <string_view>

namespace jigsaw {

std::string Sha256Hex(std::string_view data);
// Streams the file; throws std::runtime_error naming the path when it cannot be read.
std::string Sha256FileHex(const std::string& path);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_SHA256_H_
