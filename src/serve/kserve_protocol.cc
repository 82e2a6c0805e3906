// Parsing of inference requests (kserve_protocol.h); responses and metadata are in
// kserve_response.cc.
#include "serve/kserve_protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "serve/kserve_tensor.h"

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

// A $parameters object: values are strings, numbers or booleans (the spec's rule).
const Json* ReadParameters(const Json& owner, const std::string& where) {
  const auto found = owner.find("parameters");
  if (found == owner.end()) return nullptr;
  if (!found->is_object()) Reject(where + ".parameters: expected an object");
  for (const auto& [key, value] : found->items()) {
    if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
      Reject(where + ".parameters." + Excerpt(key) + ": expected a string, number or boolean");
    }
  }
  return &*found;
}

bool BoolParameter(const Json* parameters, const std::string& where, const char* key,
                   bool fallback) {
  if (parameters == nullptr || !parameters->contains(key)) return fallback;
  const Json& value = (*parameters)[key];
  if (!value.is_boolean()) Reject(where + ".parameters." + key + ": expected true or false");
  return value.get<bool>();
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

// Collects the tensor's elements as doubles, each checked against its datatype.
class ElementReader {
 public:
  ElementReader(const DatatypeInfo& type, size_t count) : type_(type) { values_.reserve(count); }

  void FromJson(const Json& value) {
    if (!value.is_number()) {  // integral floats (2.0) pass as integers; 2.5 fails below
      Reject("inputs[0].data: expected numbers (" + std::string(type_.name) + "), got " +
             Excerpt(value.dump()));
    }
    Add(value.get<double>(), value.dump());
  }

  void FromBinary(std::string_view bytes) {
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    for (size_t at = 0; at < bytes.size(); at += type_.bytes) {
      const double value = ReadBinaryElement(type_, data + at);
      Add(value, FormatNumber(value));
    }
  }

  // Row-major nested data: level d must be an array of exactly shape[d] entries; at most
  // shape.size() levels deep, so no input controls the recursion depth.
  void Nested(const Json& value, const std::vector<int64_t>& shape, size_t d) {
    if (d == shape.size()) {
      FromJson(value);
      return;
    }
    if (!value.is_array() || static_cast<int64_t>(value.size()) != shape[d]) {
      Reject("inputs[0].data: nested data does not match shape " + ShapeText(shape) + " at depth " +
             std::to_string(d));
    }
    for (const Json& element : value) Nested(element, shape, d + 1);
  }

  std::vector<double>& values() { return values_; }

 private:
  void Add(double value, const std::string& text) {
    const std::string problem = ElementProblem(type_, value);
    if (!problem.empty()) Reject("inputs[0].data: " + Excerpt(text) + " " + problem);
    values_.push_back(value);
  }

  const DatatypeInfo& type_;
  std::vector<double> values_;
};

// The elements from "data" or from the binary part; `binary` must be used exactly.
std::vector<double> ReadElements(const Json& input, const Json* parameters,
                                 const DatatypeInfo& type, const std::vector<int64_t>& shape,
                                 bool implicit_batch, std::string_view binary) {
  const size_t count = static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]);
  ElementReader reader(type, count);
  const auto data = input.find("data");
  if (parameters != nullptr && parameters->contains("binary_data_size")) {
    const Json& size = (*parameters)["binary_data_size"];
    if (!size.is_number_unsigned()) {
      Reject("inputs[0].parameters.binary_data_size: expected a byte count");
    }
    if (data != input.end()) Reject("inputs[0]: binary_data_size and data are exclusive");
    const size_t expected = count * type.bytes;
    if (size.get<uint64_t>() != expected) {
      Reject("inputs[0].parameters.binary_data_size " + size.dump() + ": shape " +
             ShapeText(shape) + " of " + type.name + " needs " + std::to_string(expected));
    }
    if (binary.size() != expected) {
      Reject("binary tensor data: " + std::to_string(binary.size()) +
             " bytes after the JSON (Inference-Header-Content-Length), expected " +
             std::to_string(expected));
    }
    reader.FromBinary(binary);
    return std::move(reader.values());
  }
  if (!binary.empty()) {
    Reject("binary tensor data after the JSON, but inputs[0] declares no binary_data_size");
  }
  if (data == input.end() || !data->is_array()) Reject("inputs[0].data: expected an array");
  if (!data->empty() && !(*data)[0].is_array()) {
    if (data->size() != count) {
      Reject("inputs[0].data: " + std::to_string(data->size()) + " elements, shape " +
             ShapeText(shape) + " needs " + std::to_string(count));
    }
    for (const Json& element : *data) reader.FromJson(element);
  } else {
    std::vector<int64_t> nested = shape;
    if (implicit_batch) nested.erase(nested.begin());
    reader.Nested(*data, nested, 0);
  }
  return std::move(reader.values());
}

// Converts the elements to the model's normalised FP32 input, as `range` declares them.
void Normalise(const ServedModelInfo& model, const PixelRangeInfo& range,
               const std::vector<double>& values, InferRequest* request) {
  const size_t plane = static_cast<size_t>(model.height) * model.width;
  const bool known = model.channel_mean.size() == static_cast<size_t>(model.channels) &&
                     model.channel_std.size() == static_cast<size_t>(model.channels);
  if (range.top > 0 && !known) {
    Reject("inputs[0].parameters.pixel_range '" + std::string(range.name) + "': model '" +
           model.name + "' declares no normalisation; send normalized values");
  }
  request->input.resize(values.size());
  size_t outside = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t c = (i / plane) % static_cast<size_t>(model.channels);
    const double v = values[i];
    if (range.top > 0) {
      if (v < 0 || v > range.top) {
        Reject("inputs[0].data: " + FormatNumber(v) + " is outside the declared pixel range " +
               range.name);
      }
      request->input[i] =
          static_cast<float>((v / range.top - model.channel_mean[c]) / model.channel_std[c]);
      continue;
    }
    request->input[i] = static_cast<float>(v);
    // Normalised values come from pixels in 0..1: far outside that, they are likely raw pixels.
    if (known && ((v * model.channel_std[c] + model.channel_mean[c]) < -0.5 ||
                  (v * model.channel_std[c] + model.channel_mean[c]) > 1.5)) {
      ++outside;
    }
  }
  if (outside > 0) {
    request->warning = std::to_string(outside) +
                       " input values are outside what normalised pixels can be; raw pixels? "
                       "Declare inputs[0].parameters.pixel_range (0..255 or 0..1)";
  }
}

void ReadRequestedOutputs(const Json& body, InferRequest* request, bool binary_default) {
  request->logits_binary = request->class_binary = binary_default;
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
    bool* wanted = text == "logits"  ? &request->want_logits
                   : text == "class" ? &request->want_class
                                     : nullptr;
    if (wanted == nullptr) {
      Reject("outputs: unknown output '" + Excerpt(text) + "' (expected logits or class)");
    }
    if (*wanted) Reject("outputs: '" + text + "' is requested twice");
    *wanted = true;
    const Json* parameters = ReadParameters(output, "outputs[" + text + "]");
    const bool binary =
        BoolParameter(parameters, "outputs[" + text + "]", "binary_data", binary_default);
    (text == "logits" ? request->logits_binary : request->class_binary) = binary;
  }
}

}  // namespace

size_t ParseJsonLength(const std::string& header, size_t body_size) {
  if (header.empty() || header.size() > 19 ||
      !std::all_of(header.begin(), header.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    Reject("Inference-Header-Content-Length '" + Excerpt(header) + "': expected a byte count");
  }
  const uint64_t length = std::stoull(header);
  if (length > body_size) {
    Reject("Inference-Header-Content-Length " + header + " exceeds the body's " +
           std::to_string(body_size) + " bytes");
  }
  return static_cast<size_t>(length);
}

InferRequest ParseInferRequest(const ServedModelInfo& model, std::string_view body,
                               std::optional<size_t> json_length) {
  const std::string_view json_text = body.substr(0, json_length.value_or(body.size()));
  const std::string_view binary = body.substr(json_text.size());
  if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    Reject("request body is empty: expected a KServe v2 inference request (JSON object)");
  }
  if (json_text.find('\0') != std::string_view::npos) {  // nlohmann would stop there
    Reject(
        "request: a NUL byte in the JSON (binary tensor data follows the JSON only with an "
        "Inference-Header-Content-Length header giving the JSON's length)");
  }
  Json json;
  try {
    json = ParseJsonInput<Json>("request", std::string(json_text),
                                "a KServe v2 inference request (JSON object)");
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
  const Json* request_parameters = ReadParameters(json, "request");
  const bool binary_output =
      BoolParameter(request_parameters, "request", "binary_data_output", false);
  const auto inputs = json.find("inputs");
  if (inputs == json.end() || !inputs->is_array() || inputs->size() != 1) {
    Reject("inputs: expected an array with exactly one tensor, named '" + model.input_name + "'");
  }
  const Json& input = (*inputs)[0];
  if (!input.is_object()) Reject("inputs[0]: expected an object");
  const auto name = input.find("name");
  if (name == input.end() || !name->is_string()) Reject("inputs[0].name: expected a string");
  if (name->get<std::string>() != model.input_name) {
    Reject("inputs[0].name '" + Excerpt(name->get<std::string>()) + "': model '" + model.name +
           "' has one input, '" + model.input_name + "'");
  }
  const auto datatype_field = input.find("datatype");
  if (datatype_field == input.end() || !datatype_field->is_string()) {
    Reject("inputs[0].datatype: expected a string");
  }
  const DatatypeInfo* type = FindDatatype(datatype_field->get<std::string>());
  if (type == nullptr) {
    Reject("inputs[0].datatype '" + Excerpt(datatype_field->get<std::string>()) + "': expected " +
           DatatypeList());
  }
  const Json* parameters = ReadParameters(input, "inputs[0]");
  std::string range_name = type->integer ? "0..255" : "normalized";
  if (parameters != nullptr && parameters->contains("pixel_range")) {
    const Json& value = (*parameters)["pixel_range"];
    if (!value.is_string()) Reject("inputs[0].parameters.pixel_range: expected a string");
    range_name = value.get<std::string>();
  }
  const PixelRangeInfo* range = FindPixelRange(range_name);
  if (range == nullptr) {
    Reject("inputs[0].parameters.pixel_range '" + Excerpt(range_name) + "': expected " +
           PixelRangeList());
  }
  if (type->integer && range->top == 0) {
    Reject("inputs[0]: " + std::string(type->name) +
           " values are pixels: pixel_range must be 0..255 or 0..1");
  }
  const std::vector<int64_t> shape = ReadShape(model, input);
  const std::vector<double> values =
      ReadElements(input, parameters, *type, shape, input["shape"].size() == 3, binary);
  request.pixel_range = range->name;
  Normalise(model, *range, values, &request);
  request.batch = static_cast<int>(shape[0]);
  ReadRequestedOutputs(json, &request, binary_output);
  return request;
}

}  // namespace jigsaw
