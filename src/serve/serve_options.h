// The options of `jigsaw serve` (src/cli binds its flags to these fields) and their checks.
//
// Validate() throws UsageError naming the option (as its flag) and what was expected; it also
// derives what the fields imply: the body limit in bytes, the cache set-up's units, and the
// bearer token read from `token_file` (InputError naming the file when it is unreadable, empty,
// longer than 4 KiB or not printable ASCII).
#ifndef JIGSAW_SERVE_SERVE_OPTIONS_H_
#define JIGSAW_SERVE_SERVE_OPTIONS_H_

#include <string>
#include <vector>

#include "serve/cache_setup.h"
#include "serve/http_server.h"
#include "serve/torch_backend.h"

namespace jigsaw {

// One table per enum: parsing, help text and error lists all come from it.
struct CacheKind {
  const char* name;
  const char* help;
};
const std::vector<CacheKind>& CacheKinds();
// "none, exact, freeze, gati or branchy" (for help and errors).
std::string CacheKindList();

struct ServeOptions {
  TorchBackendOptions backend;
  std::string cache = "none";
  int cache_entries = 4096;
  HttpServerOptions server;
  double max_body_mb = 16;
  CacheSetupOptions setup;
  std::string cache_memory = "64MiB";
  std::string lookup_budget = "1s";
  std::string online = "on";
  std::string token_file;  // "" = no authentication

  void Validate();
};

// The token in `path` (surrounding whitespace removed); InputError naming the file otherwise.
std::string ReadTokenFile(const std::string& path);

// The warning `jigsaw serve` prints when it listens beyond loopback without a token; "" when
// it listens on loopback only or has a token.
std::string ExposureWarning(const ServeOptions& options);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_SERVE_OPTIONS_H_
