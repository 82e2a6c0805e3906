#include "cluster/cluster_spec.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/error.h"
#include "core/limits.h"
#include "model/throughput_table.h"

namespace jigsaw {
namespace {

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw UsageError("--cluster-spec '" + Excerpt(text) + "': " + why +
                   " (expected TYPE:GPUS[,TYPE:GPUS...], e.g. v100:32,p100:16,k80:16)");
}

}  // namespace

ClusterSpec ParseClusterSpec(const std::string& text) {
  if (text.empty()) Fail(text, "empty");
  ClusterSpec spec;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string entry =
        text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size()) {
      Fail(text, "entry '" + Excerpt(entry) + "' is not TYPE:GPUS");
    }
    WorkerPool pool;
    pool.type = entry.substr(0, colon);
    for (char c : pool.type) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
        Fail(text, "worker type '" + Excerpt(pool.type) + "' has a character other than letters, " +
                       "digits, '_' and '-'");
      }
    }
    const std::string count = entry.substr(colon + 1);
    char* end = nullptr;
    errno = 0;
    const long gpus = std::strtol(count.c_str(), &end, 10);
    if (!std::isdigit(static_cast<unsigned char>(count[0])) || *end != '\0' || errno != 0 ||
        gpus < 1 || gpus > kMaxGpus) {
      Fail(text, "GPU count '" + Excerpt(count) + "' of " + pool.type +
                     " is not a whole number in [1, " + std::to_string(kMaxGpus) + "]");
    }
    pool.gpus = static_cast<int>(gpus);
    for (const WorkerPool& other : spec) {
      if (other.type == pool.type) Fail(text, "worker type '" + pool.type + "' given twice");
    }
    spec.push_back(pool);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  long long total = 0;
  for (const WorkerPool& pool : spec) total += pool.gpus;
  if (total > kMaxGpus) {
    Fail(text, std::to_string(total) + " GPUs in all, more than " + std::to_string(kMaxGpus));
  }
  return spec;
}

std::string FormatClusterSpec(const ClusterSpec& spec) {
  std::string text;
  for (const WorkerPool& pool : spec) {
    text += (text.empty() ? "" : ",") + pool.type + ":" + std::to_string(pool.gpus);
  }
  return text;
}

int TotalGpus(const ClusterSpec& spec) {
  int total = 0;
  for (const WorkerPool& pool : spec) total += pool.gpus;
  return total;
}

void RequireWorkerTypesInTable(const ClusterSpec& spec, const ThroughputTable& table) {
  for (const WorkerPool& pool : spec) {
    if (table.Entries(pool.type) != nullptr) continue;
    std::string known;
    for (const std::string& type : table.worker_types())
      known += (known.empty() ? "" : ", ") + type;
    throw UsageError("--cluster-spec: worker type '" + pool.type + "' is not in " + table.name() +
                     " (expected one of: " + known + ")");
  }
}

}  // namespace jigsaw
