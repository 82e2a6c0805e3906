// ThroughputTable: Gavel/Shockwave `throughputs.json`.
//
// Format: {worker_type: {"('<job_type>', <scale_factor>)": {"null": isolated it/s,
//          "('<partner_type>', <partner_sf>)": [self it/s, partner it/s], ...}}}.
// Lookups return nullptr/false when an entry is absent; Load throws InputError (file:line and
// what was expected) on malformed input.
#ifndef JIGSAW_MODEL_THROUGHPUT_TABLE_H_
#define JIGSAW_MODEL_THROUGHPUT_TABLE_H_

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jigsaw {

struct JobKey {
  std::string job_type;
  int scale_factor = 1;
  bool operator==(const JobKey& other) const = default;
};

struct JobKeyHash {
  size_t operator()(const JobKey& key) const {
    return std::hash<std::string>()(key.job_type) * 31 + static_cast<size_t>(key.scale_factor);
  }
};

struct ThroughputEntry {
  double isolated = 0;  // iterations/s alone
  // partner -> (self it/s, partner it/s) when co-located on the same GPUs.
  std::unordered_map<JobKey, std::pair<double, double>, JobKeyHash> colocated;
};

class ThroughputTable {
 public:
  static ThroughputTable Load(const std::string& path);
  static ThroughputTable Parse(const std::string& name, const std::string& text);

  const ThroughputEntry* Find(const std::string& worker_type, const JobKey& key) const;
  // Isolated iterations/s, or 0 if absent.
  double Isolated(const std::string& worker_type, const JobKey& key) const;
  std::vector<std::string> worker_types() const;
  // Every entry of a worker type (null if the type is absent).
  const std::unordered_map<JobKey, ThroughputEntry, JobKeyHash>* Entries(
      const std::string& worker_type) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::map<std::string, std::unordered_map<JobKey, ThroughputEntry, JobKeyHash>> table_;
};

// Parses "('ResNet-18 (batch size 16)', 1)"; false if malformed.
bool ParseJobKey(const std::string& text, JobKey* key);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_THROUGHPUT_TABLE_H_
