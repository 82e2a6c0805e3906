// The Triton/Clipper-style baseline: a response cache keyed by the exact input (layer 0 only).
// Holds at most `capacity` inputs with the base model's answer and evicts the least recently
// used. Entries are found by a 64-bit hash of the input bytes and confirmed by comparing the
// stored input, so a hash collision is a miss, never a wrong answer. Inputs of different sizes
// never match.
#ifndef JIGSAW_SERVE_EXACT_MATCH_CACHE_H_
#define JIGSAW_SERVE_EXACT_MATCH_CACHE_H_

#include <list>
#include <unordered_map>

#include "serve/layer_cache.h"

namespace jigsaw {

class ExactMatchCache : public LayerCache {
 public:
  explicit ExactMatchCache(size_t capacity);

  std::string kind() const override { return "exact"; }
  const std::vector<int>& layers() const override { return layers_; }
  std::optional<CacheAnswer> Lookup(int layer, std::span<const float> features) override;
  void Insert(int layer, std::span<const float> features, int64_t label,
              std::span<const float> logits) override;
  size_t MemoryBytes() const override { return bytes_; }

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t hash;
    std::vector<float> input;
    CacheAnswer answer;
  };
  using Entries = std::list<Entry>;

  Entries::iterator Find(uint64_t hash, std::span<const float> input);
  static size_t EntryBytes(const Entry& entry);

  const size_t capacity_;
  const std::vector<int> layers_ = {0};
  Entries entries_;  // most recently used first
  std::unordered_multimap<uint64_t, Entries::iterator> index_;
  size_t bytes_ = 0;
};

// FNV-1a over the bytes of `values`.
uint64_t HashFloats(std::span<const float> values);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_EXACT_MATCH_CACHE_H_
