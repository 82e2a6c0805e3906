#include "serve/kserve_protocol.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Reject(const std::string& message) { throw ProtocolError(400, message); }

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

void AppendElement(const Json& value, const std::string& datatype, std::vector<float>* out) {
  if (!value.is_number() || value.is_boolean()) {
    Reject("inputs[0].data: expected numbers, got " + Excerpt(value.dump()));
  }
  const double number = value.get<double>();
  // The model computes in FP32: FP64 values must fit too.
  if (!std::isfinite(number) || std::fabs(number) > std::numeric_limits<float>::max()) {
    Reject("inputs[0].data: " + Excerpt(value.dump()) + " is not a finite value in FP32 range");
  }
  out->push_back(static_cast<float>(number));
}

// Row-major nested data: level d must be an array of exactly shape[d] entries; at most
// shape.size() levels deep, so no input controls the recursion depth.
void AppendNested(const Json& value, const std::vector<int64_t>& shape, size_t d,
                  const std::string& datatype, std::vector<float>* out) {
  if (d == shape.size()) {
    AppendElement(value, datatype, out);
    return;
  }
  if (!value.is_array() || static_cast<int64_t>(value.size()) != shape[d]) {
    Reject("inputs[0].data: nested data does not match shape " + ShapeText(shape) + " at depth " +
           std::to_string(d));
  }
  for (const Json& element : value) AppendNested(element, shape, d + 1, datatype, out);
}

std::vector<int64_t> ReadShape(const ServedModelInfo& model, const Json& input) {
  const auto shape_field = input.find("shape");
  if (shape_field == input.end() || !shape_field->is_array()) {
    Reject("inputs[0].shape: expected an array of integers");
  }
  if (shape_field->size() != 3 && shape_field->size() != 4) {
    Reject("inputs[0].shape: expected [N, C, H, W] or [C, H, W], got " +
           Excerpt(shape_field->dump()));
  }
  std::vector<int64_t> shape;
  for (const Json& dim : *shape_field) {
    try {
      shape.push_back(JsonInteger(dim, "inputs[0].shape", 1, 1 << 20));
    } catch (const JsonValueError& e) {
      Reject(e.what());
    }
  }
  if (shape.size() == 3) shape.insert(shape.begin(), 1);
  const std::vector<int64_t> expected = {model.channels, model.height, model.width};
  if (!std::equal(expected.begin(), expected.end(), shape.begin() + 1)) {
    Reject("inputs[0].shape " + ShapeText(shape) + ": model '" + model.name + "' expects [N," +
           std::to_string(model.channels) + "," + std::to_string(model.height) + "," +
           std::to_string(model.width) + "]");
  }
  if (shape[0] > model.max_batch) {
    Reject("inputs[0].shape: batch " + std::to_string(shape[0]) + " exceeds the maximum of " +
           std::to_string(model.max_batch));
  }
  return shape;
}

void ReadRequestedOutputs(const Json& body, InferRequest* request) {
  const auto outputs = body.find("outputs");
  if (outputs == body.end()) return;
  if (!outputs->is_array() || outputs->empty() || outputs->size() > 2) {
    Reject("outputs: expected an array of 1 or 2 {\"name\": \"logits\" | \"class\"}");
  }
  request->want_logits = false;
  request->want_class = false;
  for (const Json& output : *outputs) {
    const auto name = output.is_object() ? output.find("name") : output.end();
    if (!output.is_object() || name == output.end() || !name->is_string()) {
      Reject("outputs: each entry needs a string \"name\"");
    }
    const std::string text = name->get<std::string>();
    if (text == "logits") {
      request->want_logits = true;
    } else if (text == "class") {
      request->want_class = true;
    } else {
      Reject("outputs: unknown output '" + Excerpt(text) + "' (expected logits or class)");
    }
  }
}

}  // namespace

InferRequest ParseInferRequest(const ServedModelInfo& model, const std::string& body) {
  Json json;
  try {
    json = ParseJsonInput<Json>("request", body, "a KServe v2 inference request (JSON object)");
  } catch (const InputError& e) {
    Reject(e.what());
  }
  if (!json.is_object()) Reject("request: expected a JSON object");
  InferRequest request;
  if (const auto id = json.find("id"); id != json.end()) {
    if (!id->is_string()) Reject("id: expected a string");
    request.id = id->get<std::string>();
    if (request.id.size() > 256) Reject("id: longer than 256 characters");
  }
  const auto inputs = json.find("inputs");
  if (inputs == json.end() || !inputs->is_array() || inputs->size() != 1) {
    Reject("inputs: expected an array with exactly one tensor");
  }
  const Json& input = (*inputs)[0];
  if (!input.is_object()) Reject("inputs[0]: expected an object");
  const auto name = input.find("name");
  if (name == input.end() || !name->is_string()) Reject("inputs[0].name: expected a string");
  const auto datatype_field = input.find("datatype");
  if (datatype_field == input.end() || !datatype_field->is_string()) {
    Reject("inputs[0].datatype: expected a string");
  }
  const std::string datatype = datatype_field->get<std::string>();
  if (datatype != "FP32" && datatype != "FP64") {
    Reject("inputs[0].datatype '" + Excerpt(datatype) + "': expected FP32 or FP64");
  }
  const std::vector<int64_t> shape = ReadShape(model, input);
  const int64_t count = shape[0] * shape[1] * shape[2] * shape[3];
  const auto data = input.find("data");
  if (data == input.end() || !data->is_array()) Reject("inputs[0].data: expected an array");
  request.input.reserve(static_cast<size_t>(count));
  if (!data->empty() && !(*data)[0].is_array()) {
    if (static_cast<int64_t>(data->size()) != count) {
      Reject("inputs[0].data: " + std::to_string(data->size()) + " elements, shape " +
             ShapeText(shape) + " needs " + std::to_string(count));
    }
    for (const Json& element : *data) AppendElement(element, datatype, &request.input);
  } else {
    std::vector<int64_t> nested = shape;
    if (input["shape"].size() == 3) nested.erase(nested.begin());
    AppendNested(*data, nested, 0, datatype, &request.input);
  }
  request.batch = static_cast<int>(shape[0]);
  ReadRequestedOutputs(json, &request);
  return request;
}

nlohmann::json EncodeInferResponse(const ServedModelInfo& model, const InferRequest& request,
                                   const InferResult& result) {
  Json response;
  response["model_name"] = model.name;
  response["model_version"] = model.version;
  if (!request.id.empty()) response["id"] = request.id;
  Json outputs = Json::array();
  if (request.want_logits) {
    outputs.push_back({{"name", "logits"},
                       {"datatype", "FP32"},
                       {"shape", {request.batch, model.classes}},
                       {"data", result.logits}});
  }
  if (request.want_class) {
    outputs.push_back({{"name", "class"},
                       {"datatype", "INT64"},
                       {"shape", {request.batch}},
                       {"data", result.classes}});
  }
  response["outputs"] = outputs;
  response["parameters"] = {{"blocks_run", result.blocks_run}, {"blocks", result.blocks}};
  return response;
}

nlohmann::json EncodeModelMetadata(const ServedModelInfo& model) {
  return {{"name", model.name},
          {"versions", {model.version}},
          {"platform", model.platform},
          {"inputs",
           {{{"name", "input"},
             {"datatype", "FP32"},
             {"shape", {-1, model.channels, model.height, model.width}}}}},
          {"outputs",
           {{{"name", "logits"}, {"datatype", "FP32"}, {"shape", {-1, model.classes}}},
            {{"name", "class"}, {"datatype", "INT64"}, {"shape", {-1}}}}}};
}

nlohmann::json EncodeError(const std::string& message) { return {{"error", message}}; }

}  // namespace jigsaw
