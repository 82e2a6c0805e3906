// The KServe v2 / Triton REST inference protocol, torch-free: request parsing with every bound
// checked, response and metadata encoding.
//
// A request body is {"id"?: string, "inputs": [{"name", "shape", "datatype", "data"}],
// "outputs"?: [{"name"}], "parameters"?: {...}}. Exactly one input is accepted: an FP32 or FP64
// tensor of shape [N, C, H, W] (or [C, H, W], taken as N = 1) matching the model's input, with
// 1 <= N <= max_batch; "data" is flat or nested row-major, every element a finite number within
// FP32 range (the model computes in FP32, whatever the datatype), their count the product of the
// shape. ParseInferRequest throws ProtocolError (an HTTP 4xx status and
// a message naming the offending field) on anything else, never reads past the limits, and never
// recurses deeper than the declared shape.
//
// Outputs: "logits" (FP32, [N, classes]) and "class" (INT64, [N], the argmax). A request may ask
// for a subset by name; unknown names are a 400.
#ifndef JIGSAW_SERVE_KSERVE_PROTOCOL_H_
#define JIGSAW_SERVE_KSERVE_PROTOCOL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace jigsaw {

class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// What the served model accepts and returns.
struct ServedModelInfo {
  std::string name;
  std::string version = "1";
  std::string platform = "jigsaw_libtorch";
  int channels = 0;
  int height = 0;
  int width = 0;
  int classes = 0;
  int max_batch = 64;
};

// One decoded inference request; `input` is row-major N x C x H x W.
struct InferRequest {
  std::string id;
  int batch = 0;
  std::vector<float> input;
  bool want_logits = true;
  bool want_class = true;
};

// Logits of every sample (batch x classes, row-major) and how the request was answered.
struct InferResult {
  std::vector<float> logits;
  std::vector<int64_t> classes;
  // Per sample, how many of the model's `blocks` ran before the answer (a cache hit at layer k
  // ran k; the full model ran all). Reported in the response's "parameters".
  std::vector<int> blocks_run;
  int blocks = 0;
};

InferRequest ParseInferRequest(const ServedModelInfo& model, const std::string& body);

nlohmann::json EncodeInferResponse(const ServedModelInfo& model, const InferRequest& request,
                                   const InferResult& result);
nlohmann::json EncodeModelMetadata(const ServedModelInfo& model);
nlohmann::json EncodeError(const std::string& message);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_KSERVE_PROTOCOL_H_
