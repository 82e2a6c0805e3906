#include "model/adaptation.h"

#include <cmath>

namespace jigsaw {
namespace {

struct GnsSegment {
  int start_epoch;
  int end_epoch;  // exclusive; -1 = until the end
  int multiplier;
};

struct GnsSchedule {
  const char* model;
  int batch_size;
  int scale_factor;
  std::vector<GnsSegment> segments;
};

const std::vector<GnsSchedule>& GnsSchedules() {
  static const std::vector<GnsSchedule> kSchedules = {
      {"ResNet-18", 16, 1, {{31, 41, 2}, {41, 51, 4}, {51, 71, 8}, {71, -1, 16}}},
      {"ResNet-18", 32, 1, {{21, 31, 2}, {31, 51, 4}, {51, -1, 8}}},
      {"ResNet-18", 64, 1, {{11, 31, 2}, {31, -1, 4}}},
      {"ResNet-18", 128, 1, {{11, -1, 2}}},
      {"ResNet-18", 16, 2, {{21, 31, 2}, {31, 91, 4}, {91, 111, 8}, {111, -1, 16}}},
      {"ResNet-18", 32, 2, {{11, 21, 2}, {21, 41, 4}, {41, -1, 8}}},
      {"ResNet-18", 64, 2, {{21, 41, 2}, {41, -1, 4}}},
      {"ResNet-18", 128, 2, {{41, -1, 2}}},
      {"ResNet-18", 16, 4, {{11, 21, 2}, {21, 81, 4}, {81, 91, 8}, {91, -1, 16}}},
      {"ResNet-18", 32, 4, {{21, 31, 2}, {31, 61, 4}, {61, -1, 8}}},
      {"ResNet-18", 64, 4, {{11, 61, 2}, {61, -1, 4}}},
      {"ResNet-18", 128, 4, {{11, -1, 2}}},
      {"ResNet-50", 64, 1, {{101, -1, 2}}},
      {"ResNet-50", 32, 2, {{101, 111, 2}, {111, -1, 4}}},
      {"ResNet-50", 64, 2, {{81, -1, 2}}},
      {"ResNet-50", 32, 4, {{131, 221, 2}, {221, -1, 4}}},
      {"ResNet-50", 64, 4, {{191, -1, 2}}},
      {"LM", 5, 1, {{31, 41, 2}, {41, 61, 4}, {61, 71, 8}, {71, -1, 16}}},
      {"LM", 10, 1, {{11, 21, 2}, {21, 41, 4}, {41, -1, 8}}},
      {"LM", 20, 1, {{11, 41, 2}, {41, -1, 4}}},
      {"LM", 40, 1, {{11, -1, 2}}},
      {"LM", 5, 2, {{31, 51, 2}, {51, 61, 4}, {61, 71, 8}, {71, -1, 16}}},
      {"LM", 10, 2, {{11, 31, 2}, {31, 41, 4}, {41, -1, 8}}},
      {"LM", 20, 2, {{31, 41, 2}, {41, -1, 4}}},
      {"LM", 40, 2, {{11, -1, 2}}},
      {"LM", 5, 4, {{11, 31, 2}, {31, 71, 4}, {71, 91, 8}, {91, -1, 16}}},
      {"LM", 10, 4, {{11, 31, 2}, {31, 61, 4}, {61, -1, 8}}},
      {"LM", 20, 4, {{11, 61, 2}, {61, -1, 4}}},
      {"LM", 40, 4, {{61, -1, 2}}},
      {"Recommendation", 512, 1, {{21, 41, 2}, {41, 71, 4}, {71, 91, 8}, {91, -1, 16}}},
      {"Recommendation", 1024, 1, {{21, 51, 2}, {51, 91, 4}, {91, -1, 8}}},
      {"Recommendation", 2048, 1, {{21, 41, 2}, {41, -1, 4}}},
      {"Recommendation", 4096, 1, {{41, -1, 2}}},
  };
  return kSchedules;
}

}  // namespace

int DatasetSize(const std::string& model) {
  if (model == "ResNet-18") return 50000;
  if (model == "ResNet-50") return 100000;
  if (model == "Transformer") return 10000;
  if (model == "LM") return 59675;
  if (model == "Recommendation") return 117907;
  if (model == "A3C") return 4;
  if (model == "CycleGAN") return 6287;
  return 0;
}

long long IterationsPerEpoch(const std::string& model, int batch_size) {
  const long long dataset = DatasetSize(model);
  return (dataset + batch_size - 1) / batch_size;
}

long long EpochsSpanned(const std::string& model, int batch_size, double steps) {
  return static_cast<long long>(std::ceil(steps / IterationsPerEpoch(model, batch_size)));
}

int AccordionMaxBatchSize(const std::string& model) {
  if (model == "LM") return 80;
  if (model == "ResNet-18") return 256;
  if (model == "ResNet-50") return 128;
  if (model == "Recommendation") return 8192;
  return 0;
}

int GnsBatchSizeLimit(const std::string& model) {
  if (model == "Transformer") return 128;
  return AccordionMaxBatchSize(model);
}

int MinBatchSize(const std::string& model) {
  if (model == "ResNet-18" || model == "ResNet-50" || model == "Transformer") return 16;
  if (model == "LM") return 5;
  if (model == "Recommendation") return 512;
  return 0;
}

bool InAccordionCriticalRegime(const std::string& model, int initial_batch_size, long long epoch) {
  if (model == "LM") return epoch < 10;
  if (model == "Recommendation") {
    if (initial_batch_size == 512 || initial_batch_size == 1024) return epoch < 30;
    if (initial_batch_size == 2048) return epoch < 40;
    return epoch < 10;
  }
  if (model == "ResNet-50") return epoch % 30 < 10;
  if (model == "ResNet-18") {
    const long long head = initial_batch_size == 256 ? 20 : 10;
    return epoch < head || (epoch >= 150 && epoch < 160) || (epoch >= 250 && epoch < 260);
  }
  return true;  // Transformer, CycleGAN, A3C: accordion does not apply.
}

int GnsBatchSize(const std::string& model, int initial_batch_size, int scale_factor,
                 long long epoch) {
  for (const GnsSchedule& schedule : GnsSchedules()) {
    if (model != schedule.model || schedule.batch_size != initial_batch_size ||
        schedule.scale_factor != scale_factor) {
      continue;
    }
    int multiplier = 1;
    for (const GnsSegment& segment : schedule.segments) {
      if (epoch >= segment.start_epoch && (segment.end_epoch < 0 || epoch < segment.end_epoch)) {
        multiplier = segment.multiplier;
      }
    }
    const int limit = GnsBatchSizeLimit(model);
    const int batch = initial_batch_size * multiplier;
    return limit > 0 && batch > limit ? limit : batch;
  }
  return initial_batch_size;
}

std::vector<int> BatchSizeSchedule(AdaptationMode mode, const std::string& model,
                                   int initial_batch_size, int scale_factor, long long epochs) {
  std::vector<int> schedule(epochs > 0 ? epochs : 0, initial_batch_size);
  if (mode == AdaptationMode::kGns) {
    for (long long e = 0; e < epochs; ++e) {
      schedule[e] = GnsBatchSize(model, initial_batch_size, scale_factor, e);
    }
  } else if (mode == AdaptationMode::kAccordion) {
    const int max_batch = AccordionMaxBatchSize(model);
    if (max_batch == 0) return schedule;
    for (long long e = 0; e < epochs; ++e) {
      const bool critical =
          model == "ResNet-50"
              ? (e < 600 && e % 30 < 10)
              : InAccordionCriticalRegime(model, initial_batch_size, e) ||
                    (model == "Recommendation" && ((e >= 60 && e < 70) || (e >= 80 && e < 90)));
      if (!critical && e > epochs * 0.3) schedule[e] = max_batch;
    }
  }
  return schedule;
}

}  // namespace jigsaw
