// The Open Inference Protocol (KServe v2) REST payloads, torch-free: inference requests parsed
// with every bound checked, responses and metadata encoded, the binary tensor data extension
// both ways.
//
// A request body is {"id"?: string, "parameters"?: {...}, "inputs": [one input], "outputs"?:
// [{"name", "parameters"?}]}, optionally followed by binary tensor data: with the header
// Inference-Header-Content-Length = L, the first L bytes are the JSON and the rest the input's
// bytes (little-endian, row-major), announced by the input's parameters.binary_data_size (and
// then no "data"). The one input must be named as the model's input (ServedModelInfo::
// input_name), of datatype FP16, FP32, FP64, INT64 or UINT8, shape [N, C, H, W] (or [C, H, W],
// taken as N = 1) matching the model, 1 <= N <= max_batch; JSON "data" flat or nested
// row-major, checked level by level against the shape (never recursing deeper than the shape).
//
// What the values are (the input's parameters.pixel_range):
//   "normalized" (default for FP16, FP32, FP64): the model's input as is, every value finite;
//   "0..255" (default for UINT8 and INT64): raw pixels, each in [0, 255];
//   "0..1": pixels scaled to [0, 1].
// Raw pixels are normalised as training did: (pixel / 255 - channel_mean[c]) / channel_std[c]
// (the model metadata's input parameters declare both). Normalised values outside what any
// pixel can become are answered, with a warning in the response's parameters.
//
// ParseInferRequest throws ProtocolError (status 400 and a message naming the offending field)
// on anything else. Outputs: "logits" (FP32, [N, classes]) and "class" (INT64, [N], the argmax);
// a request may ask for a subset by name (unknown names are a 400) and for binary data per
// output (parameters.binary_data) or for all (the request's parameters.binary_data_output).
#ifndef JIGSAW_SERVE_KSERVE_PROTOCOL_H_
#define JIGSAW_SERVE_KSERVE_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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
  std::string input_name = "input";
  std::string dataset;  // what it was trained on (informational)
  int channels = 0;
  int height = 0;
  int width = 0;
  int classes = 0;
  int max_batch = 64;
  // Training's normalisation, per channel, of pixels on the 0..1 scale; empty: raw pixels are
  // refused (the model declares no contract for them).
  std::vector<double> channel_mean;
  std::vector<double> channel_std;
};

// One decoded inference request; `input` is row-major N x C x H x W, normalised.
struct InferRequest {
  std::string id;
  int batch = 0;
  std::vector<float> input;
  bool want_logits = true;
  bool want_class = true;
  bool logits_binary = false;
  bool class_binary = false;
  std::string pixel_range = "normalized";  // as declared (or defaulted)
  std::string warning;                     // "" or why the answer may be wrong
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

// `json_length`: the Inference-Header-Content-Length header's value, nullopt without it (then
// the whole body is the JSON).
InferRequest ParseInferRequest(const ServedModelInfo& model, std::string_view body,
                               std::optional<size_t> json_length = std::nullopt);
// Parses an Inference-Header-Content-Length value; ProtocolError (400) unless it is a byte
// count no larger than `body_size`.
size_t ParseJsonLength(const std::string& header, size_t body_size);

struct EncodedResponse {
  std::string body;
  std::string content_type;           // application/json, or application/octet-stream with binary
  std::optional<size_t> json_length;  // Inference-Header-Content-Length, with binary outputs
};

EncodedResponse EncodeInferResponse(const ServedModelInfo& model, const InferRequest& request,
                                    const InferResult& result);
nlohmann::json EncodeModelMetadata(const ServedModelInfo& model);
nlohmann::json EncodeServerMetadata();
nlohmann::json EncodeError(const std::string& message);

// "blocks_run" of a response's parameters ("11,10,9": the spec allows only strings, numbers and
// booleans as parameter values) and back; the decoder throws std::invalid_argument.
std::string EncodeBlocksRun(const std::vector<int>& blocks_run);
std::vector<int> DecodeBlocksRun(const std::string& text);

}  // namespace jigsaw

#endif  // JIGSAW_SERVE_KSERVE_PROTOCOL_H_
