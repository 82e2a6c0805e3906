#include "serve/exact_match_cache.h"

#include <algorithm>
#include <cstring>

namespace jigsaw {

uint64_t HashFloats(std::span<const float> values) {
  uint64_t hash = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (size_t i = 0; i < values.size_bytes(); ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

ExactMatchCache::ExactMatchCache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

size_t ExactMatchCache::EntryBytes(const Entry& entry) {
  return sizeof(Entry) + entry.input.size() * sizeof(float) +
         entry.answer.scores.size() * sizeof(float);
}

ExactMatchCache::Entries::iterator ExactMatchCache::Find(uint64_t hash,
                                                         std::span<const float> input) {
  auto [begin, end] = index_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    const std::vector<float>& stored = it->second->input;
    if (stored.size() == input.size() &&
        std::memcmp(stored.data(), input.data(), input.size_bytes()) == 0) {
      return it->second;
    }
  }
  return entries_.end();
}

std::optional<CacheAnswer> ExactMatchCache::Lookup(int layer, std::span<const float> features) {
  if (layer != 0) return std::nullopt;
  auto found = Find(HashFloats(features), features);
  if (found == entries_.end()) return std::nullopt;
  entries_.splice(entries_.begin(), entries_, found);
  return found->answer;
}

void ExactMatchCache::Insert(int layer, std::span<const float> features, int64_t label,
                             std::span<const float> logits) {
  if (layer != 0) return;
  const uint64_t hash = HashFloats(features);
  if (auto found = Find(hash, features); found != entries_.end()) {
    entries_.splice(entries_.begin(), entries_, found);
    return;
  }
  entries_.push_front(Entry{hash, std::vector<float>(features.begin(), features.end()),
                            CacheAnswer{label, std::vector<float>(logits.begin(), logits.end())}});
  index_.emplace(hash, entries_.begin());
  bytes_ += EntryBytes(entries_.front());
  while (entries_.size() > capacity_) {
    Entry& oldest = entries_.back();
    auto [begin, end] = index_.equal_range(oldest.hash);
    for (auto it = begin; it != end; ++it) {
      if (&*it->second == &oldest) {
        index_.erase(it);
        break;
      }
    }
    bytes_ -= EntryBytes(oldest);
    entries_.pop_back();
  }
}

}  // namespace jigsaw
