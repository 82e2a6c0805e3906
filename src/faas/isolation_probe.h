// The `probe:isolation` function: what a function running in a faas sandbox can reach. An
// operator runs it on a host to check the sandbox there (bench/hostile/sandbox.sh does); the
// sandbox tests run it inside a jail and outside one.
//
// ProbeIsolation tries, and reports as one JSON object:
//   "read":      reading the file `read=PATH` of the payload (default /etc/shadow);
//   "write":     creating a file in each folder of the payload's `write=DIR` tokens (default
//                "/", "/usr/lib", "/etc") and removing it again;
//   "scratch":   creating, writing and removing a file in $TMPDIR (the sandbox's scratch, /tmp);
//   "processes": how many processes /proc lists;
//   "descriptors": "inherited" lists every open descriptor above 2 (3..1023) that the probe did
//                not open itself, "written" those that writing the bytes "probe" reached;
//   "socket":    opening an IPv4 TCP socket;
//   "identity":  uid, gid, CapEff, CapBnd, NoNewPrivs and Seccomp of /proc/self/status, hostname.
// Each attempt is "ok" or "refused: <errno text>". The payload is space-separated key=value tokens
// (anything else in it is ignored; a value ends at '#', where the SGS appends the function name).
// The probe only reads, creates files it removes again, and writes the bytes "probe" to descriptors
// it did not open: it never changes anything else.
#ifndef JIGSAW_FAAS_ISOLATION_PROBE_H_
#define JIGSAW_FAAS_ISOLATION_PROBE_H_

#include <string>

namespace jigsaw::faas {

std::string ProbeIsolation(const std::string& payload);

}  // namespace jigsaw::faas

#endif  // JIGSAW_FAAS_ISOLATION_PROBE_H_
