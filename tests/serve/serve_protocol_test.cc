// `jigsaw serve`'s Open Inference Protocol (KServe v2) REST surface over loopback, one test per
// point of the spec: health, server and model metadata (with the input contract), versioned
// paths, the input name, every accepted datatype, raw pixels normalised as declared, the binary
// tensor data extension both ways, JSON errors with their status codes, 405 for wrong methods,
// any Content-Type, and the bearer token. The model is a torch-free fake (fake_backend.h).
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "serve/fake_backend.h"
#include "serve/http_server.h"
#include "serve/serve_options.h"
#include "test_util/raw_http.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;

std::vector<double> Pixels() {  // 16 raw pixels in 0..255
  std::vector<double> pixels;
  for (int i = 0; i < 16; ++i) pixels.push_back(i * 17);
  return pixels;
}

// What the model must receive for Pixels(): (p / 255 - 0.5) / 0.25.
std::vector<float> Normalised() {
  std::vector<float> out;
  for (double p : Pixels()) out.push_back(static_cast<float>((p / 255 - 0.5) / 0.25));
  return out;
}

Json Request(const std::string& datatype, const Json& data, const Json& parameters = nullptr) {
  Json input = {{"name", "input"}, {"shape", {1, 1, 4, 4}}, {"datatype", datatype}, {"data", data}};
  if (!parameters.is_null()) input["parameters"] = parameters;
  return {{"id", "q"}, {"inputs", {input}}};
}

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

class ServeProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(""); }
  void Start(const std::string& token) {
    if (server_) server_->Stop();
    HttpServerOptions options;
    options.http.port = 0;
    options.http.handler_threads = 2;
    options.token = token;
    server_ = std::make_unique<HttpServer>(options, backend_);
    port_ = server_->Start();
  }
  httplib::Client Client() {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    return client;
  }
  httplib::Result Infer(const std::string& body, const std::string& path = "/v2/models/toy/infer",
                        const httplib::Headers& headers = {}) {
    return Client().Post(path.c_str(), headers, body, "application/json");
  }
  // A JSON {"error": non-empty string} with `status`, containing `fragment`.
  static void ExpectError(const httplib::Result& result, int status, const std::string& fragment) {
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, status) << result->body;
    const Json body = Json::parse(result->body, nullptr, false);
    ASSERT_TRUE(body.is_object() && body.contains("error") && body["error"].is_string())
        << result->body;
    EXPECT_NE(body["error"].get<std::string>().find(fragment), std::string::npos)
        << "expected '" << fragment << "' in " << body["error"];
  }
  void ExpectModelSaw(const std::vector<float>& expected) {
    const std::vector<float> got = backend_.last_input();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-3) << i;
  }

  test_util::FakeBackend backend_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(ServeProtocolTest, HealthAnswersAsTheSpecWordsIt) {
  auto live = Client().Get("/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  EXPECT_EQ(Json::parse(live->body), Json({{"live", true}}));
  auto ready = Client().Get("/v2/health/ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(Json::parse(ready->body), Json({{"ready", true}}));
  for (const char* path : {"/v2/models/toy/ready", "/v2/models/toy/versions/1/ready"}) {
    auto model = Client().Get(path);
    ASSERT_TRUE(model);
    EXPECT_EQ(model->status, 200);
    EXPECT_EQ(Json::parse(model->body), Json({{"name", "toy"}, {"ready", true}}));
  }
  ExpectError(Client().Get("/v2/models/other/ready"), 404, "unknown model");
  ExpectError(Client().Get("/v2/models/toy/versions/7/ready"), 404, "version");
}

TEST_F(ServeProtocolTest, ServerAndModelMetadataDeclareTheInputContract) {
  for (const char* path : {"/v2", "/v2/"}) {
    auto server = Client().Get(path);
    ASSERT_TRUE(server);
    ASSERT_EQ(server->status, 200);
    const Json metadata = Json::parse(server->body);
    EXPECT_EQ(metadata["name"], "jigsaw");
    EXPECT_TRUE(metadata["version"].is_string());
    EXPECT_EQ(metadata["extensions"], Json({"binary_tensor_data"}));
  }
  auto model = Client().Get("/v2/models/toy");
  auto versioned = Client().Get("/v2/models/toy/versions/1");
  ASSERT_TRUE(model && versioned);
  ASSERT_EQ(model->status, 200);
  EXPECT_EQ(model->body, versioned->body);
  const Json metadata = Json::parse(model->body);
  EXPECT_EQ(metadata["versions"], Json({"1"}));
  const Json& input = metadata["inputs"][0];
  EXPECT_EQ(input["name"], "input");
  EXPECT_EQ(input["datatype"], "FP32");
  EXPECT_EQ(input["shape"], Json({-1, 1, 4, 4}));
  EXPECT_EQ(input["parameters"]["channel_mean"], "0.5");
  EXPECT_EQ(input["parameters"]["channel_std"], "0.25");
  EXPECT_EQ(input["parameters"]["pixel_range"], "0..255");
  for (const auto& [key, value] : input["parameters"].items()) {
    EXPECT_TRUE(value.is_string() || value.is_number() || value.is_boolean()) << key;
  }
  EXPECT_EQ(metadata["outputs"][0]["name"], "logits");
  EXPECT_EQ(metadata["outputs"][1]["name"], "class");
  ExpectError(Client().Get("/v2/models/toy/versions/2"), 404, "version");
  ExpectError(Client().Get("/v2/models/other"), 404, "unknown model");
}

TEST_F(ServeProtocolTest, VersionedAndUnversionedInferAndTheInputNameChecked) {
  const Json request = Request("FP32", Normalised());
  for (const char* path : {"/v2/models/toy/infer", "/v2/models/toy/versions/1/infer"}) {
    auto result = Infer(request.dump(), path);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
    const Json reply = Json::parse(result->body);
    EXPECT_EQ(reply["model_name"], "toy");
    EXPECT_EQ(reply["model_version"], "1");
    EXPECT_EQ(reply["id"], "q");
    EXPECT_EQ(reply["outputs"][0]["shape"], Json({1, 3}));
    EXPECT_EQ(reply["outputs"][1]["datatype"], "INT64");
    for (const auto& [key, value] : reply["parameters"].items()) {
      EXPECT_TRUE(value.is_string() || value.is_number() || value.is_boolean()) << key;
    }
  }
  ExpectError(Infer(request.dump(), "/v2/models/toy/versions/9/infer"), 404, "version");
  Json renamed = request;
  renamed["inputs"][0]["name"] = "x";
  ExpectError(Infer(renamed.dump()), 400, "'input'");
}

TEST_F(ServeProtocolTest, EveryAcceptedDatatypeReachesTheModelAlike) {
  std::vector<double> unit;
  for (double p : Pixels()) unit.push_back(p / 255);
  const struct {
    Json request;
  } cases[] = {
      {Request("FP32", Normalised())},
      {Request("FP64", Normalised())},
      {Request("FP16", Normalised())},
      {Request("UINT8", Pixels())},
      {Request("INT64", Pixels())},
      {Request("FP32", Pixels(), {{"pixel_range", "0..255"}})},
      {Request("FP16", Pixels(), {{"pixel_range", "0..255"}})},
      {Request("FP64", unit, {{"pixel_range", "0..1"}})},
  };
  for (const auto& c : cases) {
    auto result = Infer(c.request.dump());
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 200) << c.request.dump() << " -> " << result->body;
    ExpectModelSaw(Normalised());
  }
  ExpectError(Infer(Request("BOOL", {true}).dump()), 400, "FP16, FP32, FP64, INT64 or UINT8");
  ExpectError(Infer(Request("UINT8", std::vector<int>(16, 256)).dump()), 400, "UINT8");
  ExpectError(Infer(Request("FP16", std::vector<double>(16, 70000)).dump()), 400, "FP16");
  ExpectError(Infer(Request("INT64", std::vector<double>(16, 0.5)).dump()), 400, "integer");
  ExpectError(Infer(Request("UINT8", Pixels(), {{"pixel_range", "normalized"}}).dump()), 400,
              "pixel_range");
  ExpectError(
      Infer(Request("FP32", std::vector<double>(16, 300), {{"pixel_range", "0..255"}}).dump()), 400,
      "outside the declared pixel range");
  ExpectError(Infer(Request("FP32", Pixels(), {{"pixel_range", "0-255"}}).dump()), 400,
              "normalized, 0..255 or 0..1");
}

TEST_F(ServeProtocolTest, RawPixelsSentAsNormalisedAreAnsweredWithAWarning) {
  auto result = Infer(Request("FP32", Pixels()).dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  const Json reply = Json::parse(result->body);
  EXPECT_EQ(reply["parameters"]["pixel_range"], "normalized");
  EXPECT_NE(reply["parameters"]["warning"].get<std::string>().find("pixel_range"),
            std::string::npos);
  auto clean = Infer(Request("FP32", Normalised()).dump());
  ASSERT_TRUE(clean);
  EXPECT_FALSE(Json::parse(clean->body)["parameters"].contains("warning"));
}

TEST_F(ServeProtocolTest, BinaryTensorDataIn) {
  const std::vector<float> values = Normalised();
  Json request = Request("FP32", nullptr, {{"binary_data_size", 64}});
  request["inputs"][0].erase("data");
  const std::string json = request.dump();
  const httplib::Headers headers = {
      {"Inference-Header-Content-Length", std::to_string(json.size())}};
  auto result = Client().Post("/v2/models/toy/infer", headers, json + Bytes(values),
                              "application/octet-stream");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200) << result->body;
  ExpectModelSaw(values);
  std::vector<uint16_t> halves;  // FP16 1.0 = 0x3c00, -1.0 = 0xbc00
  for (int i = 0; i < 16; ++i) halves.push_back(i % 2 ? 0x3c00 : 0xbc00);
  Json half = Request("FP16", nullptr, {{"binary_data_size", 32}});
  half["inputs"][0].erase("data");
  const std::string half_json = half.dump();
  auto half_result =
      Client().Post("/v2/models/toy/infer",
                    {{"Inference-Header-Content-Length", std::to_string(half_json.size())}},
                    half_json + Bytes(halves), "application/octet-stream");
  ASSERT_TRUE(half_result);
  EXPECT_EQ(half_result->status, 200) << half_result->body;
  EXPECT_FLOAT_EQ(backend_.last_input()[0], -1.0f);
  EXPECT_FLOAT_EQ(backend_.last_input()[1], 1.0f);
  ExpectError(Client().Post("/v2/models/toy/infer", headers, json + Bytes(values).substr(4),
                            "application/octet-stream"),
              400, "bytes after the JSON");
  ExpectError(Client().Post("/v2/models/toy/infer", {{"Inference-Header-Content-Length", "999999"}},
                            json, "text/plain"),
              400, "Inference-Header-Content-Length");
  const std::string plain = Request("FP32", values).dump();
  ExpectError(Client().Post("/v2/models/toy/infer",
                            {{"Inference-Header-Content-Length", std::to_string(plain.size())}},
                            plain + "junk", "application/octet-stream"),
              400, "binary_data_size");
}

TEST_F(ServeProtocolTest, BinaryTensorDataOut) {
  auto reference = Infer(Request("FP32", Normalised()).dump());
  ASSERT_TRUE(reference);
  const Json expected = Json::parse(reference->body);
  Json request = Request("FP32", Normalised());
  request["outputs"] = {{{"name", "logits"}, {"parameters", {{"binary_data", true}}}},
                        {{"name", "class"}}};
  auto result = Infer(request.dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  ASSERT_TRUE(result->has_header("Inference-Header-Content-Length"));
  const size_t json_length =
      std::stoul(result->get_header_value("Inference-Header-Content-Length"));
  const Json reply = Json::parse(result->body.substr(0, json_length));
  EXPECT_EQ(reply["outputs"][0]["parameters"]["binary_data_size"], 12);
  EXPECT_FALSE(reply["outputs"][0].contains("data"));
  EXPECT_EQ(reply["outputs"][1]["data"], expected["outputs"][1]["data"]);
  ASSERT_EQ(result->body.size(), json_length + 12);
  std::vector<float> logits(3);
  std::memcpy(logits.data(), result->body.data() + json_length, 12);
  for (int k = 0; k < 3; ++k) {
    EXPECT_FLOAT_EQ(logits[k], expected["outputs"][0]["data"][k].get<float>());
  }
  Json all = Request("FP32", Normalised());
  all["parameters"] = {{"binary_data_output", true}};
  all["outputs"] = {{{"name", "logits"}},
                    {{"name", "class"}, {"parameters", {{"binary_data", false}}}}};
  auto mixed = Infer(all.dump());
  ASSERT_TRUE(mixed);
  const size_t mixed_length =
      std::stoul(mixed->get_header_value("Inference-Header-Content-Length"));
  const Json mixed_reply = Json::parse(mixed->body.substr(0, mixed_length));
  EXPECT_EQ(mixed_reply["outputs"][0]["parameters"]["binary_data_size"], 12);
  EXPECT_TRUE(mixed_reply["outputs"][1].contains("data"));
  Json class_only = Request("FP32", Normalised());
  class_only["parameters"] = {{"binary_data_output", true}};
  auto binary_class = Infer(class_only.dump());
  ASSERT_TRUE(binary_class);
  const size_t class_length =
      std::stoul(binary_class->get_header_value("Inference-Header-Content-Length"));
  int64_t label = -1;
  std::memcpy(&label, binary_class->body.data() + class_length + 12, 8);
  EXPECT_EQ(label, expected["outputs"][1]["data"][0].get<int64_t>());
}

TEST_F(ServeProtocolTest, ErrorsAreJsonWithTheirStatus) {
  ExpectError(Infer(""), 400, "empty");
  ExpectError(Infer("{\"inputs\": ["), 400, "request");
  ExpectError(Client().Get("/v2/models/toy/infer"), 405, "POST");
  ExpectError(Client().Post("/v2/models/toy", "{}", "application/json"), 405, "GET");
  ExpectError(Client().Put("/v2/health/live", "", "text/plain"), 405, "GET");
  auto wrong = Client().Get("/v2/models/toy/infer");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->get_header_value("Allow"), "POST");
  ExpectError(Client().Get("/v3/anything"), 404, "no such endpoint");
  Json request = Request("FP32", Normalised());
  request["parameters"] = {{"nested", {{"no", 1}}}};
  ExpectError(Infer(request.dump()), 400, "string, number or boolean");
}

TEST_F(ServeProtocolTest, AnyContentTypeIsReadAsJson) {
  const std::string body = Request("FP32", Normalised()).dump() + std::string(10000, ' ');
  for (const char* type : {"text/plain", "application/octet-stream", ""}) {
    auto result = Client().Post("/v2/models/toy/infer", body, type);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 200) << type << ": " << result->body;
  }
  test_util::RawConnection raw(port_);  // no Content-Type header at all
  ASSERT_TRUE(raw.Send("POST /v2/models/toy/infer HTTP/1.1\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body));
  EXPECT_EQ(raw.Read().status, 200);
}

TEST_F(ServeProtocolTest, ABearerTokenGuardsAllButTheHealthProbes) {
  Start("s3cret-token");
  ExpectError(Infer(Request("FP32", Normalised()).dump()), 401, "bearer token");
  ExpectError(Client().Get("/v2/models/toy"), 401, "bearer token");
  ExpectError(Infer(Request("FP32", Normalised()).dump(), "/v2/models/toy/infer",
                    {{"Authorization", "Bearer wrong"}}),
              401, "bearer token");
  auto live = Client().Get("/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  auto ok = Infer(Request("FP32", Normalised()).dump(), "/v2/models/toy/infer",
                  {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  test_util::RawConnection raw(port_);  // refused on its head, before a byte of its body
  ASSERT_TRUE(raw.Send("POST /v2/models/toy/infer HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n"));
  EXPECT_EQ(raw.Read().status, 401);
}

TEST(ServeOptionsTest, LoopbackHostsAndTokenFiles) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("192.168.1.5"));
  ServeOptions exposed;
  exposed.server.http.host = "0.0.0.0";
  EXPECT_NE(ExposureWarning(exposed).find("--token-file"), std::string::npos);
  exposed.server.token = "t";
  EXPECT_EQ(ExposureWarning(exposed), "");
  ServeOptions local;
  EXPECT_EQ(ExposureWarning(local), "");
  EXPECT_THROW(ReadTokenFile("/nonexistent/token"), InputError);
}

}  // namespace
}  // namespace jigsaw
