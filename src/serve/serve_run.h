// `jigsaw serve` as a library call: loads the checkpoint, builds the cache, serves until SIGINT
// or SIGTERM, prints its counters. Progress and warnings go to stderr: where it listens, and a
// warning when it listens beyond loopback without a bearer token.
#ifndef JIGSAW_SERVE_SERVE_RUN_H_
#define JIGSAW_SERVE_SERVE_RUN_H_

#include "serve/serve_options.h"

namespace jigsaw {

// Validates `options` (UsageError / InputError, exit status 2 through the CLI); returns the
// exit status.
int RunServe(ServeOptions options);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_SERVE_RUN_H_
