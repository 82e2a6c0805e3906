#include "serve/serve_bench.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "core/rng.h"
#include "core/stats.h"
#include "runtime/image_splits.h"
#include "serve/kserve_protocol.h"

namespace jigsaw {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string Body(const ImageSet& set, const std::vector<int>& indices) {
  std::vector<float> values;
  for (int index : indices) NormalizedSample(set, index, &values);
  std::string body = "{\"inputs\":[{\"name\":\"input\",\"datatype\":\"FP32\",\"shape\":[" +
                     std::to_string(indices.size()) + "," + std::to_string(set.channels) + "," +
                     std::to_string(set.height) + "," + std::to_string(set.width) + "],\"data\":[";
  char number[32];
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(number, sizeof(number), i == 0 ? "%.6g" : ",%.6g", values[i]);
    body += number;
  }
  body += "]}],\"outputs\":[{\"name\":\"class\"}]}";
  return body;
}

struct Answer {
  std::vector<int64_t> classes;
  std::vector<int> blocks_run;
  int blocks = 0;
};

Answer ParseAnswer(const std::string& body) {
  const Json json = Json::parse(body);
  Answer answer;
  for (const Json& output : json.at("outputs")) {
    if (output.at("name") == "class")
      answer.classes = output.at("data").get<std::vector<int64_t>>();
  }
  answer.blocks_run = DecodeBlocksRun(json.at("parameters").at("blocks_run").get<std::string>());
  answer.blocks = json.at("parameters").at("blocks").get<int>();
  return answer;
}

Json GetStats(const ServeBenchOptions& options) {
  httplib::Client client(options.host, options.port);
  client.set_connection_timeout(5);
  const httplib::Result result = client.Get("/v2/stats");
  if (!result || result->status != 200) {
    throw std::runtime_error("serve-bench: GET /v2/stats on " + options.host + ":" +
                             std::to_string(options.port) + " failed");
  }
  return Json::parse(result->body);
}

std::string InferPath(const ServeBenchOptions& options) {
  return "/v2/models/" + options.model + "/infer";
}

void WriteReference(const ServeBenchOptions& options, const ImageSet& set, int first, int end) {
  httplib::Client client(options.host, options.port);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);
  client.set_read_timeout(60);
  std::ofstream out(options.reference_out);
  if (!out) throw UsageError("--reference-out: cannot write " + options.reference_out);
  // One image a request, as the stream sends them (batching could change float rounding).
  for (int start = first; start < end; ++start) {
    const std::vector<int> indices = {start};
    httplib::Result result =
        client.Post(InferPath(options), Body(set, indices), "application/json");
    if (!result || result->status != 200) {
      throw std::runtime_error(
          "serve-bench: reference pass failed at image " + std::to_string(start) +
          (result ? ": HTTP " + std::to_string(result->status) + " " + result->body.substr(0, 200)
                  : ": no answer"));
    }
    const Answer answer = ParseAnswer(result->body);
    for (size_t i = 0; i < indices.size(); ++i)
      out << indices[i] << " " << answer.classes[i] << "\n";
  }
  if (!out.flush()) throw UsageError("--reference-out: cannot write " + options.reference_out);
}

std::map<int, int64_t> ReadReference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "expected a serve-bench reference file: cannot open");
  std::map<int, int64_t> reference;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream fields(line);
    int index = 0;
    int64_t label = 0;
    std::string rest;
    if (!(fields >> index >> label) || (fields >> rest)) {
      throw InputError(path, number, "expected \"index class\"");
    }
    reference[index] = label;
  }
  return reference;
}

// The images the stream asks for, in order.
std::vector<int> Stream(const ServeBenchOptions& options, const ImageSet& set, int first, int end) {
  Rng rng(options.seed);
  std::vector<int> out;
  if (options.stream == "uniform") {
    for (int i = 0; i < options.requests; ++i) {
      out.push_back(first + static_cast<int>(rng.UniformInt(end - first)));
    }
    return out;
  }
  std::vector<std::vector<int>> by_class(set.classes);
  for (int i = first; i < end; ++i) by_class[set.labels[i]].push_back(i);
  std::vector<int> ranking;
  for (int c = 0; c < set.classes; ++c) {
    if (!by_class[c].empty()) ranking.push_back(c);
  }
  std::vector<double> cumulative(ranking.size());
  double total = 0;
  for (size_t r = 0; r < ranking.size(); ++r) {
    total += 1.0 / std::pow(r + 1.0, options.zipf_s);
    cumulative[r] = total;
  }
  for (int i = 0; i < options.requests; ++i) {
    if (i % options.drift_every == 0) {
      for (size_t r = ranking.size(); r > 1; --r)
        std::swap(ranking[r - 1], ranking[rng.UniformInt(r)]);
    }
    const double u = rng.Uniform() * total;
    const size_t r = std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
    const std::vector<int>& images = by_class[ranking[std::min(r, ranking.size() - 1)]];
    out.push_back(images[rng.UniformInt(images.size())]);
  }
  return out;
}

}  // namespace

ServeBenchResult RunServeBench(const ServeBenchOptions& options) {
  if (options.model.empty()) throw UsageError("--model: the served model's name is required");
  if (options.stream != "zipf" && options.stream != "uniform") {
    throw UsageError("--stream '" + options.stream + "': expected zipf or uniform");
  }
  if (!(options.rate > 0 && options.rate <= 1e6) || options.requests < 1 ||
      options.requests > 10000000 || options.connections < 1 || options.connections > 1024 ||
      options.drift_every < 1 || !(options.zipf_s >= 0 && options.zipf_s <= 10) ||
      options.max_backlog < 1) {
    throw UsageError(
        "serve-bench: --rate in (0, 1e6], --requests in [1, 1e7], --connections in [1, 1024], "
        "--drift-every >= 1, --zipf-s in [0, 10], --max-backlog >= 1");
  }
  const ImageSet set = LoadImageSplit(options.data, false);
  const int first = options.first;
  const int end = options.count > 0 ? first + options.count : set.count;
  if (first < 0 || first >= set.count || end > set.count) {
    throw UsageError("--first/--count: the test split has " + std::to_string(set.count) +
                     " images");
  }
  if (!options.reference_out.empty()) WriteReference(options, set, first, end);
  std::map<int, int64_t> reference;
  if (!options.reference_in.empty() || !options.reference_out.empty()) {
    reference =
        ReadReference(options.reference_in.empty() ? options.reference_out : options.reference_in);
  }

  const std::vector<int> stream = Stream(options, set, first, end);
  std::map<int, std::string> bodies;
  for (int index : stream) {
    if (!bodies.count(index)) bodies[index] = Body(set, {index});
  }
  // Arrival times (seconds from the start), a Poisson process.
  std::vector<double> arrivals(stream.size());
  {
    std::mt19937_64 engine(options.seed * 7919 + 1);
    std::exponential_distribution<double> gap(options.rate);
    double t = 0;
    for (double& a : arrivals) a = (t += gap(engine));
  }
  const Json before = GetStats(options);

  struct Outcome {
    bool ok = false;
    double ms = 0;
    int64_t label = -1;
    int blocks_run = 0;
    int blocks = 0;
  };
  std::vector<Outcome> outcomes(stream.size());
  std::deque<size_t> backlog;
  std::mutex mutex;
  std::condition_variable ready;
  bool done = false;
  int dropped = 0;
  const Clock::time_point start = Clock::now();
  const std::string path = InferPath(options);
  std::vector<std::thread> workers;
  for (int w = 0; w < options.connections; ++w) {
    workers.emplace_back([&] {
      httplib::Client client(options.host, options.port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      client.set_read_timeout(30);
      while (true) {
        size_t k;
        {
          std::unique_lock<std::mutex> lock(mutex);
          ready.wait(lock, [&] { return done || !backlog.empty(); });
          if (backlog.empty()) return;
          k = backlog.front();
          backlog.pop_front();
        }
        Outcome outcome;
        httplib::Result result = client.Post(path, bodies[stream[k]], "application/json");
        const std::chrono::duration<double> since = Clock::now() - start;
        outcome.ms = (since.count() - arrivals[k]) * 1e3;
        if (result && result->status == 200) {
          try {
            const Answer answer = ParseAnswer(result->body);
            outcome.ok = !answer.classes.empty() && !answer.blocks_run.empty();
            if (outcome.ok) {
              outcome.label = answer.classes[0];
              outcome.blocks_run = answer.blocks_run[0];
              outcome.blocks = answer.blocks;
            }
          } catch (const std::exception&) {
            outcome.ok = false;
          }
        }
        std::lock_guard<std::mutex> lock(mutex);
        outcomes[k] = outcome;
      }
    });
  }
  std::vector<char> was_dropped(stream.size(), 0);
  for (size_t k = 0; k < stream.size(); ++k) {
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(arrivals[k])));
    std::lock_guard<std::mutex> lock(mutex);
    if (backlog.size() >= static_cast<size_t>(options.max_backlog)) {
      ++dropped;
      was_dropped[k] = 1;
      continue;
    }
    backlog.push_back(k);
    ready.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  ready.notify_all();
  for (std::thread& worker : workers) worker.join();
  const std::chrono::duration<double> elapsed = Clock::now() - start;
  const Json after = GetStats(options);

  ServeBenchResult result;
  result.seconds = elapsed.count();
  result.dropped = dropped;
  result.sent = static_cast<int>(stream.size()) - dropped;
  std::vector<double> latencies;
  int correct = 0, agreeing = 0, referenced = 0;
  double blocks_total = 0;
  for (size_t k = 0; k < stream.size(); ++k) {
    if (was_dropped[k]) continue;
    const Outcome& o = outcomes[k];
    if (!o.ok) {
      ++result.failed;
      continue;
    }
    ++result.ok;
    latencies.push_back(o.ms);
    result.blocks = o.blocks;
    blocks_total += o.blocks_run;
    correct += o.label == set.labels[stream[k]] ? 1 : 0;
    const auto it = reference.find(stream[k]);
    if (it != reference.end()) {
      ++referenced;
      agreeing += it->second == o.label ? 1 : 0;
    }
  }
  std::sort(latencies.begin(), latencies.end());
  if (!latencies.empty()) {
    double sum = 0;
    for (double v : latencies) sum += v;
    result.mean_ms = sum / latencies.size();
    result.p50_ms = SampleQuantile(latencies, 0.5);
    result.p99_ms = SampleQuantile(latencies, 0.99);
    result.max_ms = latencies.back();
    result.accuracy = static_cast<double>(correct) / result.ok;
    result.mean_blocks = blocks_total / result.ok;
  }
  result.throughput = result.ok / std::max(1e-9, result.seconds);
  if (referenced > 0) result.agreement = static_cast<double>(agreeing) / referenced;
  const std::vector<int64_t> a = after.at("answered_after_blocks").get<std::vector<int64_t>>();
  const std::vector<int64_t> b = before.at("answered_after_blocks").get<std::vector<int64_t>>();
  int64_t answered = 0, half = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    result.answered_after.push_back(a[i] - (i < b.size() ? b[i] : 0));
    answered += result.answered_after.back();
    if (2 * i <= a.size() - 1) half += result.answered_after.back();
  }
  result.half_or_fewer = answered > 0 ? static_cast<double>(half) / answered : 0;
  result.cache_bytes = after.at("cache_bytes").get<int64_t>();
  if (answered > 0) {
    auto per_request_ms = [&](const char* key) {
      return (after.value(key, 0.0) - before.value(key, 0.0)) * 1e3 / static_cast<double>(answered);
    };
    result.cache_ms = per_request_ms("cache_seconds");
    result.insert_ms = per_request_ms("cache_insert_seconds");
    result.infer_ms = per_request_ms("infer_seconds");
    result.cpu_ms = per_request_ms("process_cpu_seconds");
  }
  result.cache = after.at("cache").get<std::string>();
  return result;
}

}  // namespace jigsaw
