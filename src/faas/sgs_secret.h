// The secret an SGS requires on every request (faas/sgs_server.h): the load balancer's proof that
// it is the caller. `jigsaw faas` draws one per platform run (128 random bits) before it forks the
// SGSs, hands it to them in memory (never on a command line or in the environment), and sends it
// in the header kSgsSecretHeader on every call to an SGS. A request without it, or with another
// value, gets 403 before its body is read; a local process can no longer run functions or reset
// an SGS's statistics by calling the SGS directly.
#ifndef JIGSAW_FAAS_SGS_SECRET_H_
#define JIGSAW_FAAS_SGS_SECRET_H_

#include <string>

namespace jigsaw::faas {

inline constexpr char kSgsSecretHeader[] = "X-Jigsaw-Sgs-Secret";

// 32 hex digits from the kernel's random source (getrandom); throws std::runtime_error if it
// cannot be read.
std::string NewSgsSecret();

// Constant-time comparison of the header's value with the expected secret.
bool SgsSecretMatches(const std::string& expected, const std::string& given);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_SGS_SECRET_H_
