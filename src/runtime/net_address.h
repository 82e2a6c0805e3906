// The local address other hosts reach this one at. Torch-free.
#ifndef JIGSAW_RUNTIME_NET_ADDRESS_H_
#define JIGSAW_RUNTIME_NET_ADDRESS_H_

#include <string>

namespace jigsaw {

// The IPv4 address of the interface this machine would use to reach host:port (the kernel's
// route choice, found by connecting a UDP socket; nothing is sent). Throws UsageError naming the
// host when it does not resolve or is unreachable.
std::string LocalAddressTowards(const std::string& host, int port);

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_NET_ADDRESS_H_
