// LEAF's FEMNIST JSON (https://leaf.cmu.edu), gzip-compressed or plain:
//   {"users": [id, ...], "num_samples": [n, ...],
//    "user_data": {id: {"x": [[784 floats in [0, 1]], ...], "y": [class in [0, 62)], ...}, ...}}
//
// ReadLeafFile checks every field and throws InputError(file, line, what was expected) on the
// first problem: not JSON, a missing or mistyped field, users and num_samples of different
// lengths, a user without data, a count that differs from num_samples, an image that is not 784
// numbers in [0, 1], a label out of range. Pixels are stored as round(255 * x).
// ReadFemnist pairs <dir>/train/*.json[.gz] with <dir>/test/ files of the same shard and keeps
// the users present in both (the shared 5% sample: 105 writers with both splits).
#ifndef JIGSAW_FL_LEAF_READER_H_
#define JIGSAW_FL_LEAF_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fl/federated_data.h"

namespace jigsaw {

inline constexpr int kFemnistClasses = 62;
inline constexpr int kFemnistSide = 28;

struct LeafUser {
  std::string id;
  std::vector<uint8_t> pixels;  // samples x 784
  std::vector<int> labels;
};

std::vector<LeafUser> ReadLeafFile(const std::string& path);

// max_clients > 0 keeps the first that many users (shards in name order).
FederatedData ReadFemnist(const std::string& dir, int max_clients);

// A client list (`jigsaw fl --client-list`): one client id (a LEAF writer id) per line; '#'
// starts a comment that runs to the end of the line, blanks around an id are ignored, blank
// lines are skipped. KeepListedClients keeps exactly the listed clients of `data`, in the list's
// order (the pooled pixels are left as they are, so every kept client's indices stay valid).
// Throws InputError(list_path, line, what was expected) for an id that no client of `data` has
// or an id listed twice, InputError(list_path, 0, ...) for a list with no id or a file that
// cannot be read; `data` is unchanged when it throws.
void KeepListedClients(const std::string& list_path, FederatedData* data);

}  // namespace jigsaw

#endif  // JIGSAW_FL_LEAF_READER_H_
