// The Open Inference Protocol payloads without a server: tensor element rules (FP16 decoding,
// ranges), raw-pixel normalisation, binary tensor data framing, output selection and the
// encoded response, each malformed case a 400 naming its field.
#include "serve/kserve_protocol.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "serve/kserve_tensor.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;

ServedModelInfo Model() {
  ServedModelInfo model;
  model.name = "m";
  model.channels = 2;
  model.height = 1;
  model.width = 2;
  model.classes = 2;
  model.max_batch = 2;
  model.channel_mean = {0.5, 0.25};
  model.channel_std = {0.5, 0.25};
  return model;
}

std::string Input(const std::string& datatype, const Json& data, const Json& parameters = nullptr,
                  const Json& shape = {1, 2, 1, 2}) {
  Json input = {{"name", "input"}, {"shape", shape}, {"datatype", datatype}, {"data", data}};
  if (!parameters.is_null()) input["parameters"] = parameters;
  return Json{{"inputs", {input}}}.dump();
}

void ExpectRejected(const std::string& body, const std::string& fragment,
                    std::optional<size_t> json_length = std::nullopt) {
  try {
    ParseInferRequest(Model(), body, json_length);
    ADD_FAILURE() << "accepted: " << body.substr(0, 200);
  } catch (const ProtocolError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "expected '" << fragment << "' in " << e.what();
  }
}

TEST(KserveTensor, HalfPrecisionDecodesEveryClass) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_NE(ElementProblem(*FindDatatype("FP16"), 70000), "");
  EXPECT_NE(ElementProblem(*FindDatatype("FP64"), 1e300), "");
  EXPECT_NE(ElementProblem(*FindDatatype("UINT8"), 2.5), "");
  EXPECT_EQ(ElementProblem(*FindDatatype("INT64"), -3), "");
  EXPECT_EQ(FindDatatype("BOOL"), nullptr);
  EXPECT_EQ(DatatypeList(), "FP16, FP32, FP64, INT64 or UINT8");
}

TEST(KserveProtocol, RawPixelsAreNormalisedPerChannel) {
  const InferRequest raw = ParseInferRequest(Model(), Input("UINT8", {255, 0, 51, 102}));
  ASSERT_EQ(raw.input.size(), 4u);
  EXPECT_FLOAT_EQ(raw.input[0], 1.0f);   // (1 - 0.5) / 0.5, channel 0
  EXPECT_FLOAT_EQ(raw.input[1], -1.0f);  // (0 - 0.5) / 0.5
  EXPECT_FLOAT_EQ(raw.input[2], -0.2f);  // (0.2 - 0.25) / 0.25, channel 1
  EXPECT_FLOAT_EQ(raw.input[3], 0.6f);
  EXPECT_EQ(raw.pixel_range, "0..255");
  const InferRequest unit =
      ParseInferRequest(Model(), Input("FP32", {1.0, 0.0, 0.2, 0.4}, {{"pixel_range", "0..1"}}));
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(unit.input[i], raw.input[i], 1e-6);
  const InferRequest nested =
      ParseInferRequest(Model(), Input("INT64", {{{255, 0}}, {{51, 102}}}, nullptr, {2, 1, 2}));
  EXPECT_EQ(nested.batch, 1);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(nested.input[i], raw.input[i], 1e-6);
  ServedModelInfo plain = Model();
  plain.channel_mean.clear();
  EXPECT_THROW(ParseInferRequest(plain, Input("UINT8", {1, 2, 3, 4})), ProtocolError);
}

TEST(KserveProtocol, BinaryInputFraming) {
  Json input = {{"name", "input"},
                {"shape", {1, 2, 1, 2}},
                {"datatype", "FP32"},
                {"parameters", {{"binary_data_size", 16}}}};
  const std::string json = Json{{"inputs", {input}}}.dump();
  const float values[4] = {0.5f, -1.0f, 2.0f, 0.0f};
  std::string bytes(16, '\0');
  std::memcpy(bytes.data(), values, 16);
  const InferRequest request = ParseInferRequest(Model(), json + bytes, json.size());
  EXPECT_EQ(request.input, std::vector<float>(values, values + 4));
  ExpectRejected(json + bytes.substr(1), "bytes after the JSON", json.size());
  ExpectRejected(json + bytes, "Inference-Header-Content-Length");  // binary, no header
  Json both = input;
  both["data"] = {1, 2, 3, 4};
  ExpectRejected(Json{{"inputs", {both}}}.dump(), "exclusive");
  Json wrong = input;
  wrong["parameters"]["binary_data_size"] = 12;
  ExpectRejected(Json{{"inputs", {wrong}}}.dump() + bytes, "needs 16",
                 Json{{"inputs", {wrong}}}.dump().size());
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data(), &nan, 4);
  ExpectRejected(json + bytes, "not finite", json.size());
  EXPECT_EQ(ParseJsonLength("12", 20), 12u);
  EXPECT_THROW(ParseJsonLength("21", 20), ProtocolError);
  EXPECT_THROW(ParseJsonLength("-1", 20), ProtocolError);
  EXPECT_THROW(ParseJsonLength("", 20), ProtocolError);
}

TEST(KserveProtocol, MalformedRequestsNameTheirField) {
  ExpectRejected("", "empty");
  ExpectRejected("   ", "empty");
  ExpectRejected("[1]", "JSON object");
  ExpectRejected(R"({"inputs": []})", "exactly one");
  ExpectRejected(R"({"inputs": [{"name": "image", "shape": [1,2,1,2], "datatype": "FP32",
                   "data": [1,2,3,4]}]})",
                 "has one input, 'input'");
  ExpectRejected(Input("FP32", {1, 2, 3}), "needs 4");
  ExpectRejected(Input("FP32", {1, 2, 3, "4"}), "numbers");
  ExpectRejected(Input("FP32", {1, 2, 3, 4}, {{"pixel_range", 255}}), "pixel_range");
  ExpectRejected(Input("FP32", {1, 2, 3, 4}, {{"list", {1, 2}}}), "string, number or boolean");
  ExpectRejected(Input("FP32", {1, 2, 3, 4}, nullptr, {3, 2, 1, 2}), "maximum");
  ExpectRejected(Input("FP32", {1, 2, 3, 4}, nullptr, {1, 3, 1, 2}), "expects");
  Json outputs = Json::parse(Input("FP32", {1, 2, 3, 4}));
  outputs["outputs"] = {{{"name", "class"}}, {{"name", "class"}}};
  ExpectRejected(outputs.dump(), "twice");
  outputs["outputs"] = {{{"name", "class"}, {"parameters", {{"binary_data", "yes"}}}}};
  ExpectRejected(outputs.dump(), "true or false");
  outputs["outputs"] = {{{"name", "scores"}}};
  ExpectRejected(outputs.dump(), "unknown output");
}

TEST(KserveProtocol, ResponsesEncodeJsonAndBinaryOutputs) {
  InferRequest request = ParseInferRequest(Model(), Input("FP32", {0, 0, 0, 0}));
  request.id = "r";
  InferResult result;
  result.logits = {0.25f, -1.5f};
  result.classes = {0};
  result.blocks_run = {3};
  result.blocks = 3;
  const EncodedResponse json = EncodeInferResponse(Model(), request, result);
  EXPECT_EQ(json.content_type, "application/json");
  EXPECT_FALSE(json.json_length);
  const Json reply = Json::parse(json.body);
  EXPECT_EQ(reply["id"], "r");
  EXPECT_EQ(reply["parameters"]["blocks_run"], "3");
  EXPECT_EQ(reply["outputs"][0]["data"], Json({0.25, -1.5}));
  request.class_binary = true;
  const EncodedResponse mixed = EncodeInferResponse(Model(), request, result);
  ASSERT_TRUE(mixed.json_length);
  EXPECT_EQ(mixed.content_type, "application/octet-stream");
  EXPECT_EQ(mixed.body.size(), *mixed.json_length + 8);
  const Json head = Json::parse(mixed.body.substr(0, *mixed.json_length));
  EXPECT_EQ(head["outputs"][1]["parameters"]["binary_data_size"], 8);
  EXPECT_EQ(DecodeBlocksRun("11,10,9"), std::vector<int>({11, 10, 9}));
  EXPECT_EQ(DecodeBlocksRun(EncodeBlocksRun({})), std::vector<int>());
  EXPECT_THROW(DecodeBlocksRun("1;2"), std::invalid_argument);
}

}  // namespace
}  // namespace jigsaw
