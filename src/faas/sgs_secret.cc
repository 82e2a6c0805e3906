#include "faas/sgs_secret.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace jigsaw::faas {

std::string NewSgsSecret() {
  uint8_t bytes[16];
  size_t have = 0;
  while (have < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + have, sizeof(bytes) - have, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    have += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string secret;
  for (uint8_t b : bytes) {
    secret += kHex[b >> 4];
    secret += kHex[b & 15];
  }
  return secret;
}

bool SgsSecretMatches(const std::string& expected, const std::string& given) {
  if (expected.empty() || given.size() != expected.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    difference |= static_cast<unsigned char>(expected[i] ^ given[i]);
  }
  return difference == 0;
}

}  // namespace jigsaw::faas
