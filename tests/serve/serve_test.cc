// The KServe v2 server over loopback with a tiny LeNet trained by `jigsaw train`: conformance with
// valid requests, a clear 4xx for each kind of malformed one, the bounded inference queue, and
// `jigsaw serve` errors. No assertion depends on timing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "serve/cache_setup.h"
#include "serve/exact_match_cache.h"
#include "serve/http_server.h"
#include "serve/inference_queue.h"
#include "serve/knn_cache.h"
#include "serve/serve_bench.h"
#include "serve/torch_backend.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;

struct CommandRun {
  int exit_code = -1;
  std::string output;
};

CommandRun RunJigsaw(const std::string& args) {
  CommandRun run;
  const std::string command = std::string(JIGSAW_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ =
        (std::filesystem::temp_directory_path() / ("jigsaw_serve_test_" + std::to_string(getpid())))
            .string();
    std::filesystem::remove_all(out_);
    const CommandRun train = RunJigsaw(
        "train --model lenet --dataset synthetic --synthetic-train 64 --synthetic-test 16 "
        "--synthetic-size 28 --workers 1 --batch 16 --epochs 1 --max-iters-per-epoch 2 --quiet "
        "--out " +
        out_);
    ASSERT_EQ(train.exit_code, 0) << train.output;
    TorchBackendOptions options;
    options.checkpoint = out_ + "/checkpoint.pt";
    options.max_batch = 4;
    backend_ = LoadTorchBackend(options).release();
    HttpServerOptions server;
    server.http.port = 0;
    server.http.handler_threads = 3;
    server.http.request_timeout_s = 3;
    server.queue_capacity = 8;
    server.http.max_body_bytes = 256 << 10;
    server_ = new HttpServer(server, *backend_);
    port_ = server_->Start();
  }
  static void TearDownTestSuite() {
    delete server_;
    delete backend_;
    server_ = nullptr;
    backend_ = nullptr;
    std::filesystem::remove_all(out_);
  }

  static httplib::Client Client() {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60, 0);
    return client;
  }

  // A deterministic input of `batch` samples.
  static std::vector<float> Input(int batch) {
    std::vector<float> data(static_cast<size_t>(batch) * 28 * 28);
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<float>((i * 37) % 101) / 50.0f - 1;
    return data;
  }

  static Json Request(int batch, const std::vector<float>& data) {
    return {{"id", "r1"},
            {"inputs",
             {{{"name", "input"},
               {"shape", {batch, 1, 28, 28}},
               {"datatype", "FP32"},
               {"data", data}}}}};
  }

  static httplib::Result Infer(const std::string& body, const std::string& model = "lenet") {
    httplib::Client client = Client();
    return client.Post(("/v2/models/" + model + "/infer").c_str(), body, "application/json");
  }

  // A 4xx with a JSON {"error": non-empty message}.
  static void ExpectRejected(const std::string& body, int status, const std::string& fragment) {
    httplib::Result result = Infer(body);
    ASSERT_TRUE(result) << "no reply for " << body.substr(0, 200);
    EXPECT_EQ(result->status, status) << body.substr(0, 200) << " -> " << result->body;
    const Json reply = Json::parse(result->body, nullptr, false);
    ASSERT_TRUE(reply.is_object()) << result->body;
    ASSERT_TRUE(reply.contains("error")) << result->body;
    EXPECT_NE(reply["error"].get<std::string>().find(fragment), std::string::npos)
        << "expected '" << fragment << "' in " << reply["error"];
  }

  static std::string out_;
  static InferenceBackend* backend_;
  static HttpServer* server_;
  static int port_;
};

std::string ServeTest::out_;
InferenceBackend* ServeTest::backend_ = nullptr;
HttpServer* ServeTest::server_ = nullptr;
int ServeTest::port_ = 0;

TEST_F(ServeTest, HealthAndMetadata) {
  httplib::Client client = Client();
  auto ready = client.Get("/v2/health/ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(Json::parse(ready->body)["ready"], true);
  auto live = client.Get("/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  auto model = client.Get("/v2/models/lenet");
  ASSERT_TRUE(model);
  ASSERT_EQ(model->status, 200);
  const Json metadata = Json::parse(model->body);
  EXPECT_EQ(metadata["name"], "lenet");
  EXPECT_EQ(metadata["inputs"][0]["shape"], Json({-1, 1, 28, 28}));
  EXPECT_EQ(metadata["outputs"][0]["shape"], Json({-1, 10}));
  auto model_ready = client.Get("/v2/models/lenet/ready");
  ASSERT_TRUE(model_ready);
  EXPECT_EQ(model_ready->status, 200);
  auto unknown = client.Get("/v2/models/resnet99");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_TRUE(Json::parse(unknown->body).contains("error"));
  auto no_path = client.Get("/v3/whatever");
  ASSERT_TRUE(no_path);
  EXPECT_EQ(no_path->status, 404);
  EXPECT_TRUE(Json::parse(no_path->body).contains("error"));
}

TEST_F(ServeTest, InferMatchesTheModelAndArgmax) {
  const std::vector<float> data = Input(2);
  httplib::Result result = Infer(Request(2, data).dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const Json reply = Json::parse(result->body);
  EXPECT_EQ(reply["model_name"], "lenet");
  EXPECT_EQ(reply["id"], "r1");
  ASSERT_EQ(reply["outputs"].size(), 2u);
  const Json& logits = reply["outputs"][0];
  const Json& classes = reply["outputs"][1];
  EXPECT_EQ(logits["name"], "logits");
  EXPECT_EQ(logits["shape"], Json({2, 10}));
  EXPECT_EQ(classes["name"], "class");
  EXPECT_EQ(classes["shape"], Json({2}));

  InferRequest direct;
  direct.batch = 2;
  direct.input = data;
  const InferResult expected = backend_->Infer(direct);
  ASSERT_EQ(logits["data"].size(), expected.logits.size());
  for (size_t i = 0; i < expected.logits.size(); ++i) {
    EXPECT_NEAR(logits["data"][i].get<double>(), expected.logits[i], 1e-4);
  }
  for (int n = 0; n < 2; ++n) {
    int best = 0;
    for (int k = 1; k < 10; ++k) {
      if (logits["data"][n * 10 + k].get<double>() > logits["data"][n * 10 + best].get<double>()) {
        best = k;
      }
    }
    EXPECT_EQ(classes["data"][n].get<int>(), best);
  }
}

TEST_F(ServeTest, FullModelRunsEveryBlockWithoutACache) {
  httplib::Result result = Infer(Request(2, Input(2)).dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const Json parameters = Json::parse(result->body)["parameters"];
  EXPECT_EQ(parameters["blocks"], 5);
  EXPECT_EQ(parameters["blocks_run"], "5,5");
}

// The exact-match cache inside the real serving path: a repeated sample is answered before
// block 0 with the base model's logits, a new one runs the model; a mixed batch splits.
TEST_F(ServeTest, ExactMatchCacheAnswersRepeatedInputsFromLayerZero) {
  TorchBackendOptions options;
  options.checkpoint = out_ + "/checkpoint.pt";
  auto cache = std::make_shared<ExactMatchCache>(16);
  options.cache = cache;
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(options);
  InferRequest first;
  first.batch = 1;
  first.input = Input(1);
  const InferResult miss = backend->Infer(first);
  EXPECT_EQ(miss.blocks_run, std::vector<int>({5}));
  EXPECT_EQ(cache->size(), 1u);
  const InferResult hit = backend->Infer(first);
  EXPECT_EQ(hit.blocks_run, std::vector<int>({0}));
  EXPECT_EQ(hit.logits, miss.logits);
  EXPECT_EQ(hit.classes, miss.classes);

  InferRequest mixed;
  mixed.batch = 2;
  mixed.input = Input(1);
  std::vector<float> other = Input(1);
  for (float& v : other) v = -v;
  mixed.input.insert(mixed.input.begin(), other.begin(), other.end());
  const InferResult split = backend->Infer(mixed);
  EXPECT_EQ(split.blocks_run, std::vector<int>({5, 0}));
  EXPECT_EQ(std::vector<float>(split.logits.begin() + 10, split.logits.end()), miss.logits);
  InferRequest alone;
  alone.batch = 1;
  alone.input = other;
  EXPECT_EQ(backend_->Infer(alone).classes[0], split.classes[0]);
  EXPECT_EQ(cache->size(), 2u);
  const BackendStats stats = backend->stats();
  EXPECT_EQ(stats.cache, "exact");
  EXPECT_EQ(stats.samples, 4);
  EXPECT_EQ(stats.answered_after, std::vector<int64_t>({2, 0, 0, 0, 0, 2}));
  EXPECT_EQ(stats.cache_bytes, cache->MemoryBytes());
  EXPECT_GT(stats.cache_bytes, 2 * 784 * sizeof(float));
}

// A Freeze cache after block 2 inside the real serving path: a sample seen before leaves the
// model after 2 of its 5 blocks with the class the full model gave it.
TEST_F(ServeTest, KnnCacheAnswersASeenSampleAfterTwoBlocks) {
  TorchBackendOptions options;
  options.checkpoint = out_ + "/checkpoint.pt";
  KnnCacheOptions knn;
  knn.layers = {2};
  knn.max_distance = {1e-3};
  knn.k = 1;
  auto cache = std::make_shared<KnnCache>(knn);
  options.cache = cache;
  std::unique_ptr<InferenceBackend> backend = LoadTorchBackend(options);
  InferRequest request;
  request.batch = 1;
  request.input = Input(1);
  const InferResult first = backend->Infer(request);
  EXPECT_EQ(first.blocks_run, std::vector<int>({5}));
  EXPECT_EQ(cache->entries(2), 1u);
  const InferResult second = backend->Infer(request);
  EXPECT_EQ(second.blocks_run, std::vector<int>({2}));
  EXPECT_EQ(second.classes, first.classes);
  InferRequest other = request;
  for (float& v : other.input) v = -v;
  EXPECT_EQ(backend->Infer(other).blocks_run, std::vector<int>({5}));  // far: a miss
}

// Offline features are exactly what the serving path shows caches: a Freeze cache warmed from
// ComputeLayerFeatures answers those samples after 2 blocks with the full model's classes.
TEST_F(ServeTest, OfflineLayerFeaturesWarmACacheTheServingPathHits) {
  InferRequest request;
  request.batch = 3;
  request.input = Input(3);
  for (size_t i = 784; i < 2 * 784; ++i) request.input[i] *= -1;
  for (size_t i = 2 * 784; i < 3 * 784; ++i) request.input[i] *= 0.5f;
  const LayerFeatures features = backend_->ComputeLayerFeatures(request, {0, 2});
  ASSERT_EQ(features.widths.size(), 2u);
  EXPECT_EQ(features.widths[0], 784);
  EXPECT_EQ(features.features[0], request.input);
  EXPECT_EQ(features.widths[1], 400);  // LeNet's second block ends flattened: 16 x 5 x 5
  EXPECT_EQ(features.classes, backend_->Infer(request).classes);
  EXPECT_THROW(backend_->ComputeLayerFeatures(request, {2, 0}), UsageError);
  EXPECT_THROW(backend_->ComputeLayerFeatures(request, {5}), UsageError);

  KnnCacheOptions knn;
  knn.layers = {2};
  knn.max_distance = {1e-4};
  knn.k = 1;
  auto cache = std::make_shared<KnnCache>(knn);
  for (int n = 0; n < 3; ++n) {
    cache->Insert(2, std::span<const float>(features.features[1].data() + n * 400, 400),
                  features.classes[n], {});
  }
  TorchBackendOptions options;
  options.checkpoint = out_ + "/checkpoint.pt";
  options.cache = cache;
  std::unique_ptr<InferenceBackend> cached = LoadTorchBackend(options);
  const InferResult result = cached->Infer(request);
  EXPECT_EQ(result.blocks_run, std::vector<int>({2, 2, 2}));
  EXPECT_EQ(result.classes, features.classes);
}

TEST_F(ServeTest, NestedDataAndImplicitBatchAndOutputSubset) {
  const std::vector<float> data = Input(1);
  Json nested = Json::array();
  Json channel = Json::array();
  for (int h = 0; h < 28; ++h) {
    channel.push_back(std::vector<float>(data.begin() + h * 28, data.begin() + (h + 1) * 28));
  }
  nested.push_back(channel);
  const Json body = {
      {"inputs",
       {{{"name", "input"}, {"shape", {1, 28, 28}}, {"datatype", "FP64"}, {"data", nested}}}},
      {"outputs", {{{"name", "class"}}}}};
  httplib::Result result = Infer(body.dump());
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const Json reply = Json::parse(result->body);
  ASSERT_EQ(reply["outputs"].size(), 1u);
  EXPECT_EQ(reply["outputs"][0]["name"], "class");
  InferRequest direct;
  direct.batch = 1;
  direct.input = data;
  EXPECT_EQ(reply["outputs"][0]["data"][0].get<int64_t>(), backend_->Infer(direct).classes[0]);
}

TEST_F(ServeTest, MalformedRequestsGetA4xxAndTheServerGoesOn) {
  const std::vector<float> data = Input(1);
  ExpectRejected("{not json", 400, "request");
  ExpectRejected("[1, 2]", 400, "JSON object");
  ExpectRejected("{}", 400, "inputs");
  ExpectRejected(std::string(100, '[') + std::string(100, ']'), 400, "request");
  Json two = Request(1, data);
  two["inputs"].push_back(two["inputs"][0]);
  ExpectRejected(two.dump(), 400, "exactly one");
  Json datatype = Request(1, data);
  datatype["inputs"][0]["datatype"] = "INT8";
  ExpectRejected(datatype.dump(), 400, "FP32");
  Json channels = Request(1, data);
  channels["inputs"][0]["shape"] = {1, 3, 28, 28};
  ExpectRejected(channels.dump(), 400, "expects");
  Json negative = Request(1, data);
  negative["inputs"][0]["shape"] = {-1, 1, 28, 28};
  ExpectRejected(negative.dump(), 400, "shape");
  ExpectRejected(Request(5, Input(5)).dump(), 400, "maximum");
  ExpectRejected(Request(2, data).dump(), 400, "needs");
  Json text = Request(1, data);
  text["inputs"][0]["data"][3] = "7";
  ExpectRejected(text.dump(), 400, "numbers");
  Json huge = Request(1, data);
  huge["inputs"][0]["data"][0] = 1e39;
  ExpectRejected(huge.dump(), 400, "FP32 range");
  huge["inputs"][0]["datatype"] = "FP64";
  huge["inputs"][0]["data"][0] = 1e300;  // a valid double, but the model computes in FP32
  ExpectRejected(huge.dump(), 400, "FP32 range");
  Json ragged = Request(1, data);
  ragged["inputs"][0]["data"] = {{{1.0, 2.0}}};
  ExpectRejected(ragged.dump(), 400, "nested");
  Json output = Request(1, data);
  output["outputs"] = {{{"name", "probabilities"}}};
  ExpectRejected(output.dump(), 400, "unknown output");
  Json id = Request(1, data);
  id["id"] = 12;
  ExpectRejected(id.dump(), 400, "id");
  ExpectRejected(std::string(300 << 10, ' '), 413, "limit");

  httplib::Result unknown = Infer(Request(1, data).dump(), "resnet99");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  httplib::Result valid = Infer(Request(1, data).dump());
  ASSERT_TRUE(valid);
  EXPECT_EQ(valid->status, 200);
  const HttpServerStats stats = server_->stats();
  EXPECT_GE(stats.client_errors, 16);
  EXPECT_EQ(stats.server_errors, 0);
  httplib::Client client = Client();
  auto counters = client.Get("/v2/stats");
  ASSERT_TRUE(counters);
  ASSERT_EQ(counters->status, 200);
  const Json reply = Json::parse(counters->body);
  EXPECT_EQ(reply["cache"], "none");
  ASSERT_EQ(reply["answered_after_blocks"].size(), 6u);
  EXPECT_GE(reply["samples"].get<int64_t>(), 1);
  EXPECT_EQ(reply["answered_after_blocks"][5], reply["samples"]);  // no cache: all ran 5 blocks
}

TEST_F(ServeTest, ConcurrentClientsAllGetAnswers) {
  const std::string body = Request(1, Input(1)).dump();
  std::vector<int> statuses(12, 0);
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client = Client();
      for (int i = 0; i < 3; ++i) {
        auto result = client.Post("/v2/models/lenet/infer", body, "application/json");
        statuses[c * 3 + i] = result ? result->status : -1;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  for (int status : statuses) EXPECT_TRUE(status == 200 || status == 503) << status;
  EXPECT_GT(std::count(statuses.begin(), statuses.end(), 200), 0);
}

// Holds every inference until released, so the queue's bound can be reached deterministically;
// the inference itself is the real model's.
class GatedBackend : public InferenceBackend {
 public:
  explicit GatedBackend(InferenceBackend& inner) : inner_(inner) {}
  const ServedModelInfo& info() const override { return inner_.info(); }
  BackendStats stats() const override { return inner_.stats(); }
  LayerFeatures ComputeLayerFeatures(const InferRequest& request,
                                     const std::vector<int>& layers) override {
    return inner_.ComputeLayerFeatures(request, layers);
  }
  std::vector<double> MeasureBlockSeconds(const InferRequest& request, int repeats) override {
    return inner_.MeasureBlockSeconds(request, repeats);
  }
  void SetCache(std::shared_ptr<LayerCache> cache) override { inner_.SetCache(std::move(cache)); }
  InferResult Infer(const InferRequest& request) override {
    std::unique_lock<std::mutex> lock(mutex_);
    ++started_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    lock.unlock();
    return inner_.Infer(request);
  }
  void WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return started_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  InferenceBackend& inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int started_ = 0;
  bool open_ = false;
};

TEST_F(ServeTest, InferenceQueueRefusesBeyondItsCapacity) {
  GatedBackend gated(*backend_);
  std::vector<std::future<InferResult>> accepted;
  {
    InferenceQueue queue(gated, 2);
    InferRequest request;
    request.batch = 1;
    request.input = Input(1);
    auto first = queue.TrySubmit(request);
    ASSERT_TRUE(first);
    gated.WaitStarted(1);  // the first one is running, the queue is empty again
    auto second = queue.TrySubmit(request);
    auto third = queue.TrySubmit(request);
    ASSERT_TRUE(second);
    ASSERT_TRUE(third);
    EXPECT_FALSE(queue.TrySubmit(request));
    gated.Open();
    accepted.push_back(std::move(*first));
    accepted.push_back(std::move(*second));
    accepted.push_back(std::move(*third));
  }
  for (auto& future : accepted) EXPECT_EQ(future.get().classes.size(), 1u);
}

// `jigsaw serve --port 0` end to end: it prints the port it bound, answers, and stops cleanly on
// SIGTERM with its counters.
TEST_F(ServeTest, CliServesUntilSigterm) {
  const std::string log = out_ + "/serve.log";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::FILE* err = std::freopen(log.c_str(), "w", stderr);
    if (err == nullptr) _exit(127);
    const std::string checkpoint = out_ + "/checkpoint.pt";
    execl(JIGSAW_BINARY, JIGSAW_BINARY, "serve", "--model", checkpoint.c_str(), "--port", "0",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kills the server if an assertion below returns early, so no test leaves a process behind.
  struct KillOnExit {
    pid_t pid;
    ~KillOnExit() {
      if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } guard{child};
  int port = 0;
  for (int attempt = 0; attempt < 1200 && port == 0; ++attempt) {  // a bound, not a timing check
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(text.c_str() + at + 10);
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(port, 0) << "no port announced";
  httplib::Client client("127.0.0.1", port);
  auto ready = client.Get("/v2/health/ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  auto reply =
      client.Post("/v2/models/lenet/infer", Request(1, Input(1)).dump(), "application/json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  guard.pid = 0;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("2 requests, 1 inferences"), std::string::npos) << text;
}

TEST(ServeCliTest, RefusesMissingOrForeignCheckpoints) {
  const CommandRun missing = RunJigsaw("serve --model /nonexistent/checkpoint.pt --port 0");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/checkpoint.pt"), std::string::npos) << missing.output;
  const std::string junk = (std::filesystem::temp_directory_path() /
                            ("jigsaw_serve_junk_" + std::to_string(getpid()) + ".pt"))
                               .string();
  {
    std::FILE* f = std::fopen(junk.c_str(), "w");
    std::fputs("not a checkpoint", f);
    std::fclose(f);
  }
  const CommandRun foreign = RunJigsaw("serve --model " + junk + " --port 0");
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(foreign.output.find("checkpoint"), std::string::npos) << foreign.output;
  std::filesystem::remove(junk);
}

// serve-bench against the real server: a reference pass, then a Zipf and a uniform stream; every
// answer is counted and the server's per-block counters cover exactly the stream.
TEST_F(ServeTest, ServeBenchDrivesTheServer) {
  ServeBenchOptions options;
  options.port = port_;
  options.model = "lenet";
  options.data.dataset = "synthetic";
  options.data.synthetic_test = 40;
  options.first = 10;
  options.rate = 500;
  options.requests = 30;
  options.connections = 2;
  options.reference_out = out_ + "/reference.txt";
  const ServeBenchResult zipf = RunServeBench(options);
  EXPECT_EQ(zipf.ok, 30);
  EXPECT_EQ(zipf.failed + zipf.dropped, 0);
  ASSERT_FALSE(zipf.answered_after.empty());
  EXPECT_EQ(zipf.answered_after.back(), 30);  // no cache: the full model answered every one
  EXPECT_EQ(zipf.cache, "none");
  EXPECT_GE(zipf.agreement, 0.9);  // same server, same batch size: only float ties could differ
  EXPECT_GE(zipf.accuracy, 0.0);
  EXPECT_LE(zipf.accuracy, 1.0);
  EXPECT_LE(zipf.p50_ms, zipf.p99_ms);
  EXPECT_EQ(zipf.cache_ms, 0.0);  // no cache: no time in lookups
  std::ifstream reference(options.reference_out);
  int lines = 0;
  for (std::string line; std::getline(reference, line);) ++lines;
  EXPECT_EQ(lines, 30);  // images 10 .. 39
  options.reference_in = options.reference_out;
  options.reference_out.clear();
  options.stream = "uniform";
  const ServeBenchResult uniform = RunServeBench(options);
  EXPECT_EQ(uniform.ok, 30);
  EXPECT_GE(uniform.agreement, 0.9);
  options.stream = "bursty";
  EXPECT_THROW(RunServeBench(options), UsageError);
}

// Each learned/approximate cache kind is warmed and calibrated on held-out data and then serves:
// answers come back for every sample and the counters add up.
TEST_F(ServeTest, CacheSetupBuildsEveryKindAndServes) {
  for (const std::string kind : {"freeze", "gati", "branchy"}) {
    CacheSetupOptions options;
    options.kind = kind;
    options.data.dataset = "synthetic";
    options.data.synthetic_test = 120;
    options.calibration_samples = 120;
    options.train_epochs = 3;
    options.online = false;
    std::ostringstream log;
    std::shared_ptr<LayerCache> cache = BuildCache(*backend_, options, log);
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(cache->kind(), kind);
    EXPECT_NE(log.str().find("cache setup:"), std::string::npos);
    for (int layer : cache->layers()) {
      EXPECT_GE(layer, 1);
      EXPECT_LT(layer, 5);
    }
    backend_->SetCache(cache);
    const BackendStats before = backend_->stats();
    EXPECT_EQ(before.cache, kind);
    InferRequest request;
    request.batch = 4;
    request.input.assign(4 * 28 * 28, 0.3f);
    const InferResult result = backend_->Infer(request);
    ASSERT_EQ(result.classes.size(), 4u);
    for (int64_t c : result.classes) {
      EXPECT_GE(c, 0);
      EXPECT_LT(c, 10);
    }
    const BackendStats after = backend_->stats();
    int64_t answered = 0;
    for (size_t k = 0; k < after.answered_after.size(); ++k) {
      answered += after.answered_after[k] - before.answered_after[k];
    }
    EXPECT_EQ(answered, 4);
    EXPECT_GE(after.cache_seconds, before.cache_seconds);  // lookups are accounted, never negative
    backend_->SetCache(nullptr);
  }
  CacheSetupOptions bad;
  bad.kind = "lru";
  std::ostringstream log;
  EXPECT_THROW(BuildCache(*backend_, bad, log), UsageError);
}

// Hostile peers: more idle connections than HTTP threads, and a slowloris peer dribbling a header,
// must not stop the server: a valid request is served while they stay connected. Every
// socket is closed before the test ends.
TEST_F(ServeTest, IdleAndSlowPeersDoNotStopTheServer) {
  std::vector<int> sockets;
  auto connect_one = [&] {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
      sockets.push_back(fd);
      return fd;
    }
    if (fd >= 0) close(fd);
    return -1;
  };
  for (int i = 0; i < 12; ++i) connect_one();  // idle: never send a byte
  const int slow = connect_one();
  ASSERT_GE(slow, 0);
  const std::string partial = "POST /v2/models/lenet/infer HTTP/1.1\r\nHost: x\r\n";
  ASSERT_EQ(send(slow, partial.data(), partial.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(partial.size()));
  httplib::Result result = Infer(Request(1, Input(1)).dump());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200) << result->body;
  // The slow peer's request never completed: the server cut it (EOF or reset), it got no 200.
  timeval bound{30, 0};  // never wait forever, whatever the server does
  setsockopt(slow, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
  char buffer[256];
  const ssize_t got = recv(slow, buffer, sizeof(buffer), 0);
  EXPECT_TRUE(got <= 0 || std::string(buffer, got).find(" 200 ") == std::string::npos);
  for (int fd : sockets) close(fd);
  EXPECT_EQ(server_->stats().server_errors, 0);
}

}  // namespace
}  // namespace jigsaw
