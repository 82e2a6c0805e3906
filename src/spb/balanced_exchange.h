// The balanced gradient exchange of structured partial backpropagation (torch-free planning and
// byte accounting; src/runtime/gradient_exchange.h runs it over Gloo).
//
// Blocks whose contributor sets are equal and adjacent are grouped into buckets of at most
// `bucket_cap_bytes` (a single block larger than the cap is a bucket of its own), ordered from the
// last block down (the order backward produces them). Blocks with no contributor form no bucket
// and exchange nothing. For a bucket of B gradient bytes, padded to a multiple of N floats and cut
// into N equal shards, over N workers of which the s in `contributors` computed it:
//   1. all-to-all: every contributor sends shard j of its gradient to worker j (non-contributors
//      send nothing); worker j sums the s partial shards in rank order and scales the sum
//      (see SpbScale);
//   2. all-gather: every worker sends its reduced shard to every other worker.
// Bytes sent per worker: contributors 2(N-1)/N x B, the others (N-1)/N x B; received:
// (s - [worker in contributors]) x B/N + (N-1)/N x B. So no worker sends more than in full
// data parallelism (a ring all-reduce also sends 2(N-1)/N x B), non-contributors send half, and
// every worker ends with bitwise-identical gradients (each shard is reduced once, on one worker).
#ifndef JIGSAW_SPB_BALANCED_EXCHANGE_H_
#define JIGSAW_SPB_BALANCED_EXCHANGE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace jigsaw {

// How a block's summed gradient is scaled before the update, with s its contributors, N workers:
//   contributors  divide by s (the mean over the samples that reached the block);
//   world         divide by N (unbiased: the expected step is s/N of full's, like freezing it
//                 part of the time);
//   lr            divide by s and multiply the block's learning rate by s/N (the same expected
//                 step as world; differs from it through weight decay and momentum state).
enum class SpbScale { kContributors, kWorld, kLr };

// Throws UsageError naming the option value.
SpbScale ParseSpbScale(const std::string& text);
const char* SpbScaleName(SpbScale scale);

struct ExchangeBucket {
  std::vector<int> blocks;        // descending block indices
  std::vector<int> contributors;  // ascending worker ranks, non-empty
  int64_t bytes = 0;              // float32 gradient bytes of the blocks (unpadded)
};

std::vector<ExchangeBucket> PlanBuckets(const std::vector<std::vector<int>>& contributors,
                                        const std::vector<int64_t>& block_bytes,
                                        int64_t bucket_cap_bytes);

// Float elements of one shard: ceil(elements / workers).
int64_t ShardElements(int64_t elements, int workers);

// Bytes `rank` sends / receives for the bucket (padded shards), 0 when workers == 1.
double BalancedBytesSent(const ExchangeBucket& bucket, int rank, int workers);
double BalancedBytesReceived(const ExchangeBucket& bucket, int rank, int workers);

// What the update of a block divides its summed gradient by, and its learning-rate factor.
double GradientDivisor(SpbScale scale, int contributors, int workers);
double LearningRateFactor(SpbScale scale, int contributors, int workers);

}  // namespace jigsaw

#endif  // JIGSAW_SPB_BALANCED_EXCHANGE_H_
