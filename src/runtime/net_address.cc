#include "runtime/net_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "core/error.h"

namespace jigsaw {

std::string LocalAddressTowards(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int status = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (status != 0 || found == nullptr) {
    throw UsageError("--master host '" + host + "' does not resolve: " + gai_strerror(status));
  }
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  std::string address;
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
    sockaddr_in local{};
    socklen_t length = sizeof(local);
    char text[INET_ADDRSTRLEN] = {0};
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0 &&
        inet_ntop(AF_INET, &local.sin_addr, text, sizeof(text)) != nullptr) {
      address = text;
    }
  }
  const int error = errno;
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  if (address.empty() || address == "0.0.0.0") {
    throw UsageError("no route from this machine to --master host '" + host +
                     "': " + std::strerror(error) + " (set --gloo-host)");
  }
  return address;
}

}  // namespace jigsaw
