// Responses and metadata of the Open Inference Protocol (kserve_protocol.h).
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/version.h"
#include "serve/kserve_protocol.h"
#include "serve/kserve_tensor.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;

template <typename T>
void AppendLittleEndian(T value, std::string* out) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "binary tensor data is little-endian");
  out->append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

// One output tensor: its data inline, or its bytes appended to *binary.
template <typename T>
Json Output(const char* name, const char* datatype, Json shape, const std::vector<T>& data,
            bool as_binary, std::string* binary) {
  Json output = {{"name", name}, {"datatype", datatype}, {"shape", std::move(shape)}};
  if (!as_binary) {
    output["data"] = data;
    return output;
  }
  for (T value : data) AppendLittleEndian(value, binary);
  output["parameters"] = {{"binary_data_size", data.size() * sizeof(T)}};
  return output;
}

std::string Join(const std::vector<double>& values) {
  std::string text;
  for (double value : values) {
    if (!text.empty()) text += ",";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
    text += buffer;
  }
  return text;
}

}  // namespace

std::string EncodeBlocksRun(const std::vector<int>& blocks_run) {
  std::string text;
  for (int blocks : blocks_run) {
    if (!text.empty()) text += ",";
    text += std::to_string(blocks);
  }
  return text;
}

std::vector<int> DecodeBlocksRun(const std::string& text) {
  std::vector<int> blocks;
  size_t at = 0;
  while (at < text.size()) {
    size_t used = 0;
    blocks.push_back(std::stoi(text.substr(at), &used));
    at += used;
    if (at < text.size() && text[at++] != ',')
      throw std::invalid_argument("blocks_run: expected ,");
  }
  return blocks;
}

EncodedResponse EncodeInferResponse(const ServedModelInfo& model, const InferRequest& request,
                                    const InferResult& result) {
  Json response;
  response["model_name"] = model.name;
  response["model_version"] = model.version;
  if (!request.id.empty()) response["id"] = request.id;
  Json parameters = {{"blocks_run", EncodeBlocksRun(result.blocks_run)},
                     {"blocks", result.blocks},
                     {"pixel_range", request.pixel_range}};
  if (!request.warning.empty()) parameters["warning"] = request.warning;
  response["parameters"] = parameters;
  std::string binary;
  Json outputs = Json::array();
  if (request.want_logits) {
    outputs.push_back(Output("logits", "FP32", {request.batch, model.classes}, result.logits,
                             request.logits_binary, &binary));
  }
  if (request.want_class) {
    outputs.push_back(
        Output("class", "INT64", {request.batch}, result.classes, request.class_binary, &binary));
  }
  response["outputs"] = outputs;
  EncodedResponse encoded;
  encoded.body = response.dump(-1, ' ', false, Json::error_handler_t::replace);
  encoded.content_type = "application/json";
  if (request.logits_binary || request.class_binary) {
    encoded.json_length = encoded.body.size();
    encoded.body += binary;
    encoded.content_type = "application/octet-stream";
  }
  return encoded;
}

nlohmann::json EncodeModelMetadata(const ServedModelInfo& model) {
  Json contract = {{"layout", "NCHW"}, {"accepted_datatypes", "FP16,FP32,FP64,INT64,UINT8"}};
  if (model.channel_mean.size() == static_cast<size_t>(model.channels)) {
    contract["pixel_range"] = "0..255";
    contract["normalization"] = "(pixel / 255 - channel_mean[c]) / channel_std[c]";
    contract["channel_mean"] = Join(model.channel_mean);
    contract["channel_std"] = Join(model.channel_std);
    contract["request_pixel_range"] =
        "inputs[].parameters.pixel_range: normalized (default for FP16/FP32/FP64), 0..255 "
        "(default for UINT8/INT64) or 0..1; the server normalises 0..255 and 0..1";
  }
  if (!model.dataset.empty()) contract["trained_on"] = model.dataset;
  return {{"name", model.name},
          {"versions", {model.version}},
          {"platform", model.platform},
          {"inputs",
           {{{"name", model.input_name},
             {"datatype", "FP32"},
             {"shape", {-1, model.channels, model.height, model.width}},
             {"parameters", contract}}}},
          {"outputs",
           {{{"name", "logits"}, {"datatype", "FP32"}, {"shape", {-1, model.classes}}},
            {{"name", "class"}, {"datatype", "INT64"}, {"shape", {-1}}}}}};
}

nlohmann::json EncodeServerMetadata() {
  return {
      {"name", "jigsaw"}, {"version", ProjectVersion()}, {"extensions", {"binary_tensor_data"}}};
}

nlohmann::json EncodeError(const std::string& message) { return {{"error", message}}; }

}  // namespace jigsaw
