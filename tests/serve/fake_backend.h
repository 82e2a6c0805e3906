// A torch-free InferenceBackend for protocol tests: a 1x4x4 model with 3 classes whose logits
// are fixed functions of the input (logit k = (k + 1) * mean of the sample - k), so a test can
// check what reached the model and what came back without training anything.
#ifndef JIGSAW_TESTS_SERVE_FAKE_BACKEND_H_
#define JIGSAW_TESTS_SERVE_FAKE_BACKEND_H_

#include <algorithm>
#include <mutex>
#include <vector>

#include "serve/backend.h"

namespace jigsaw::test_util {

class FakeBackend : public InferenceBackend {
 public:
  FakeBackend() {
    info_.name = "toy";
    info_.dataset = "synthetic";
    info_.channels = 1;
    info_.height = 4;
    info_.width = 4;
    info_.classes = 3;
    info_.max_batch = 4;
    info_.channel_mean = {0.5};
    info_.channel_std = {0.25};
  }
  const ServedModelInfo& info() const override { return info_; }
  BackendStats stats() const override {
    BackendStats stats;
    stats.answered_after.assign(3, 0);
    return stats;
  }
  InferResult Infer(const InferRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      last_input_ = request.input;
    }
    InferResult result;
    result.blocks = 2;
    for (int n = 0; n < request.batch; ++n) {
      double mean = 0;
      for (int i = 0; i < 16; ++i) mean += request.input[n * 16 + i] / 16.0;
      int best = 0;
      for (int k = 0; k < 3; ++k) {
        result.logits.push_back(static_cast<float>((k + 1) * mean - k));
        if (result.logits.back() > result.logits[n * 3 + best]) best = k;
      }
      result.classes.push_back(best);
      result.blocks_run.push_back(2);
    }
    return result;
  }
  LayerFeatures ComputeLayerFeatures(const InferRequest&, const std::vector<int>&) override {
    return {};
  }
  std::vector<double> MeasureBlockSeconds(const InferRequest&, int) override { return {0, 0}; }
  void SetCache(std::shared_ptr<LayerCache>) override {}

  std::vector<float> last_input() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_input_;
  }

 private:
  ServedModelInfo info_;
  mutable std::mutex mutex_;
  std::vector<float> last_input_;
};

}  // namespace jigsaw::test_util

#endif  // JIGSAW_TESTS_SERVE_FAKE_BACKEND_H_
