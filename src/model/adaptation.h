// Dynamic batch-size adaptation (Shockwave's accordion and GNS job modes).
//
// Facts carried over from Shockwave's simulator: dataset sizes per model, the per-model maximum
// (and minimum) batch sizes, accordion's critical regimes, and GNS's per-(model, initial batch
// size, GPUs) doubling schedules. All functions are pure; epochs are 0-based.
#ifndef JIGSAW_MODEL_ADAPTATION_H_
#define JIGSAW_MODEL_ADAPTATION_H_

#include <string>
#include <vector>

#include "model/job_spec.h"

namespace jigsaw {

// Training-set size of the model's dataset (CIFAR-10 50,000; ImageNet subset 100,000; Multi30k
// 10,000; Wikitext-2 59,675; ML-20M 117,907; Pong 4; monet2photo 6,287); 0 if unknown.
int DatasetSize(const std::string& model);
// ceil(dataset / batch); requires DatasetSize(model) > 0 and batch > 0.
long long IterationsPerEpoch(const std::string& model, int batch_size);
// Number of epochs a job of `steps` iterations at `batch_size` spans: ceil(steps / per-epoch).
long long EpochsSpanned(const std::string& model, int batch_size, double steps);

// Largest batch size accordion/GNS scale to (LM 80, ResNet-18 256, ResNet-50 128,
// Recommendation 8192); 0 for models whose batch size does not scale under accordion.
int AccordionMaxBatchSize(const std::string& model);
// GNS cap (as above plus Transformer 128); 0 if none.
int GnsBatchSizeLimit(const std::string& model);
// Smallest profiled batch size (ResNet-18/50 and Transformer 16, LM 5, Recommendation 512).
int MinBatchSize(const std::string& model);

// Whether `epoch` lies in an accordion critical regime (small batch needed for accuracy), as the
// simulator evaluates it at round boundaries.
bool InAccordionCriticalRegime(const std::string& model, int initial_batch_size, long long epoch);

// GNS schedule: the batch size GNS asks for at `epoch`, for a job that started at
// `initial_batch_size` on `scale_factor` GPUs (initial_batch_size when no schedule exists).
int GnsBatchSize(const std::string& model, int initial_batch_size, int scale_factor,
                 long long epoch);

// Per-epoch batch sizes over a job's whole run, the profile a scheduler plans with:
// accordion uses the large batch outside critical regimes after the first 30% of epochs; GNS
// follows its schedule; static keeps the initial batch size.
std::vector<int> BatchSizeSchedule(AdaptationMode mode, const std::string& model,
                                   int initial_batch_size, int scale_factor, long long epochs);

}  // namespace jigsaw

#endif  // JIGSAW_MODEL_ADAPTATION_H_
