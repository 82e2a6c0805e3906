// ClusterSpec: a heterogeneous cluster as `--cluster-spec v100:32,p100:16,k80:16` writes it
// (Gavel's worker types and GPU counts per type).
//
// Types are kept in the order given, must be distinct and named in the throughput table (checked
// by RequireWorkerTypesInTable); counts are whole GPUs >= 1. Parse errors are UsageErrors that
// quote the offending entry and say what was expected.
#ifndef JIGSAW_CLUSTER_CLUSTER_SPEC_H_
#define JIGSAW_CLUSTER_CLUSTER_SPEC_H_

#include <string>
#include <vector>

namespace jigsaw {

class ThroughputTable;

struct WorkerPool {
  std::string type;  // a worker type of the throughput table ("v100")
  int gpus = 0;
};

using ClusterSpec = std::vector<WorkerPool>;

ClusterSpec ParseClusterSpec(const std::string& text);
std::string FormatClusterSpec(const ClusterSpec& spec);  // "v100:32,p100:16"
int TotalGpus(const ClusterSpec& spec);
// Throws UsageError naming the unknown type and the table's types.
void RequireWorkerTypesInTable(const ClusterSpec& spec, const ThroughputTable& table);

}  // namespace jigsaw

#endif  // JIGSAW_CLUSTER_CLUSTER_SPEC_H_
