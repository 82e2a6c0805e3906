#include "spb/balanced_exchange.h"

#include <algorithm>

#include "core/error.h"

namespace jigsaw {

SpbScale ParseSpbScale(const std::string& text) {
  if (text == "contributors") return SpbScale::kContributors;
  if (text == "world") return SpbScale::kWorld;
  if (text == "lr") return SpbScale::kLr;
  throw UsageError("--spb-scale '" + text + "': expected contributors, world or lr");
}

const char* SpbScaleName(SpbScale scale) {
  switch (scale) {
    case SpbScale::kContributors:
      return "contributors";
    case SpbScale::kWorld:
      return "world";
    case SpbScale::kLr:
      return "lr";
  }
  return "?";
}

std::vector<ExchangeBucket> PlanBuckets(const std::vector<std::vector<int>>& contributors,
                                        const std::vector<int64_t>& block_bytes,
                                        int64_t bucket_cap_bytes) {
  std::vector<ExchangeBucket> buckets;
  for (int b = static_cast<int>(contributors.size()) - 1; b >= 0; --b) {
    if (contributors[b].empty()) continue;
    const bool joins = !buckets.empty() && buckets.back().contributors == contributors[b] &&
                       buckets.back().blocks.back() == b + 1 &&
                       buckets.back().bytes + block_bytes[b] <= bucket_cap_bytes;
    if (!joins) buckets.push_back({{}, contributors[b], 0});
    buckets.back().blocks.push_back(b);
    buckets.back().bytes += block_bytes[b];
  }
  return buckets;
}

int64_t ShardElements(int64_t elements, int workers) { return (elements + workers - 1) / workers; }

namespace {

bool IsContributor(const ExchangeBucket& bucket, int rank) {
  return std::binary_search(bucket.contributors.begin(), bucket.contributors.end(), rank);
}

double ShardBytes(const ExchangeBucket& bucket, int workers) {
  return static_cast<double>(ShardElements(bucket.bytes / 4, workers)) * 4;
}

}  // namespace

double BalancedBytesSent(const ExchangeBucket& bucket, int rank, int workers) {
  if (workers < 2) return 0;
  const double shard = ShardBytes(bucket, workers);
  const double gather = (workers - 1) * shard;
  return IsContributor(bucket, rank) ? 2 * gather : gather;
}

double BalancedBytesReceived(const ExchangeBucket& bucket, int rank, int workers) {
  if (workers < 2) return 0;
  const double shard = ShardBytes(bucket, workers);
  const double others =
      static_cast<double>(bucket.contributors.size()) - (IsContributor(bucket, rank) ? 1.0 : 0.0);
  return (others + workers - 1) * shard;
}

double GradientDivisor(SpbScale scale, int contributors, int workers) {
  return scale == SpbScale::kWorld ? workers : contributors;
}

double LearningRateFactor(SpbScale scale, int contributors, int workers) {
  return scale == SpbScale::kLr ? static_cast<double>(contributors) / workers : 1.0;
}

}  // namespace jigsaw
