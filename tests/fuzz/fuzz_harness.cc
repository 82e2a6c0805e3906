// jigsaw_fuzz: a seeded mutation harness over every reader.
//
// For each area (a reader and what runs on its result) it mutates seed inputs (small embedded
// samples, plus the real files of ../shared/data when present) with a seeded RNG, and runs each
// mutated input in a forked child so that a crash or a hang is observed, not suffered:
//   accepted  the reader accepted it and the result passed the area's checks (finite values
//             within docs/limits.md; downstream runs - a simulation, a network run - ended with
//             finite metrics)
//   clear     refused with InputError (file:line) or UsageError (option named), or, for the
//             parameter server, its documented failure ("ps job: ...")
//   crash     the child died of a signal (a segfault, or an ASan/UBSan report with
//             abort_on_error / halt_on_error) or exited otherwise than the harness does
//   hang      it ran past --timeout-s
//   wrong     accepted, but a check failed (silently wrong), or an unexpected exception type
//             escaped (an unclear error)
// It prints one table row per area and exits 1 if anything crashed, hung or was wrong. The same
// seed gives the same inputs. Failing inputs are saved with --save DIR for reproduction.
//
// Usage: jigsaw_fuzz [--area NAME|all] [--inputs N per area] [--seed S] [--timeout-s T]
//                    [--save DIR] [--list]
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "cluster/policies/shockwave_options.h"
#include "cluster/policy.h"
#include "cluster/sim_output.h"
#include "cluster/simulator.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/rng.h"
#include "core/socket.h"
#include "core/text_input.h"
#include "core/wire_message.h"
#include "model/throughput_table.h"
#include "model/trace_generator.h"
#include "model/trace_readers.h"
#include "net/chakra_job.h"
#include "net/chakra_reader.h"
#include "net/chakra_workload.h"
#include "net/network.h"
#include "net/topology.h"
#include "net/workload.h"
#include "ps/client.h"
#include "ps/server.h"
#include "serve/kserve_protocol.h"
#include "spb/cost_model.h"
#include "spb/iteration_estimate.h"
#include "spb/statistical_efficiency.h"

namespace jigsaw {
namespace {
namespace fs = std::filesystem;

// Thrown by an area's checks: the input was accepted but the result is wrong.
class WrongResult : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Check(bool ok, const std::string& what) {
  if (!ok) throw WrongResult(what);
}

// Child exit codes.
constexpr int kAccepted = 0;
constexpr int kClear = 20;
constexpr int kWrong = 21;

std::string Shared(const std::string& relative) {
  return std::string(JIGSAW_SHARED_DATA) + "/" + relative;
}

// The first `lines` lines of a file, or "" if it is absent.
std::string Head(const std::string& path, int lines) {
  if (!fs::exists(path)) return "";
  const std::string text = ReadWholeFile(path);
  size_t at = 0;
  for (int i = 0; i < lines && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? text : text.substr(0, at);
}

std::string Whole(const std::string& path) { return fs::exists(path) ? ReadWholeFile(path) : ""; }

// ---------------------------------------------------------------------------------------------
// Mutations.

const char* const kExtremes[] = {"0",
                                 "-1",
                                 "1e300",
                                 "-1e300",
                                 "1e400",
                                 "nan",
                                 "inf",
                                 "-inf",
                                 "9223372036854775807",
                                 "18446744073709551616",
                                 "4294967296",
                                 "2147483648",
                                 "0.5",
                                 "1e-320",
                                 "",
                                 "99999999999999999999999999",
                                 "-0",
                                 "1e11",
                                 "1e20",
                                 "3.5e9",
                                 "65536",
                                 "1048577"};

std::string Mutate(std::string text, Rng& rng) {
  const int rounds = 1 + static_cast<int>(rng.UniformInt(4));
  for (int r = 0; r < rounds; ++r) {
    const size_t n = text.size();
    const size_t at = n == 0 ? 0 : rng.UniformInt(n);
    switch (rng.UniformInt(10)) {
      case 0:  // flip a byte
        if (n > 0) text[at] = static_cast<char>(text[at] ^ (1 << rng.UniformInt(8)));
        break;
      case 1:
      case 2:
      case 3: {  // replace a number with an extreme value
        size_t start = text.find_first_of("0123456789", at);
        if (start == std::string::npos) start = text.find_first_of("0123456789");
        if (start == std::string::npos) break;
        while (start > 0 && (std::isdigit(static_cast<unsigned char>(text[start - 1])) ||
                             text[start - 1] == '.' || text[start - 1] == '-')) {
          --start;
        }
        size_t end = start;
        while (end < n && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                           text[end] == '.' || text[end] == 'e' || text[end] == '-')) {
          ++end;
        }
        text.replace(start, end - start,
                     kExtremes[rng.UniformInt(sizeof(kExtremes) / sizeof(kExtremes[0]))]);
        break;
      }
      case 4:  // delete a range
        if (n > 0) text.erase(at, 1 + rng.UniformInt(std::min<size_t>(64, n - at)));
        break;
      case 5: {  // duplicate a range (often a whole line)
        if (n == 0) break;
        const size_t length = 1 + rng.UniformInt(std::min<size_t>(256, n - at));
        text.insert(at, text.substr(at, length));
        break;
      }
      case 6: {  // insert bytes, separators and line ends included
        static const char kBytes[] = {'\0', '\t', '\n', '\r', ',', ' ', '"', '{',    '[',
                                      ']',  '}',  ':',  '-',  '.', 'e', '#', '\xff', '\x80'};
        const size_t count = 1 + rng.UniformInt(8);
        for (size_t i = 0; i < count; ++i) {
          text.insert(text.begin() + static_cast<long>(std::min(at, text.size())),
                      kBytes[rng.UniformInt(sizeof(kBytes))]);
        }
        break;
      }
      case 7:  // truncate
        text.resize(at);
        break;
      case 8: {  // swap two lines
        const size_t a = text.find('\n', at);
        if (a == std::string::npos || a + 1 >= text.size()) break;
        const size_t b = text.find('\n', a + 1);
        if (b == std::string::npos) break;
        const std::string first = text.substr(0, a + 1);
        text = text.substr(a + 1, b - a) + first + text.substr(b + 1);
        break;
      }
      case 9: {  // something big: deep nesting or a long run
        const size_t length = 1000 + rng.UniformInt(100'000);
        const char fill = "[{9x\t,"[rng.UniformInt(6)];
        text.insert(std::min(at, text.size()), std::string(length, fill));
        break;
      }
    }
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Areas.

struct Area {
  std::string name;
  std::vector<std::string> seeds;
  std::function<void(const std::string&)> run;  // throws a clear error, or WrongResult
};

// The input as a file (for readers that take a path), removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_((fs::temp_directory_path() / ("jigsaw_fuzz_" + std::to_string(getpid()))).string()) {
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    if (file == nullptr) throw std::runtime_error("cannot write " + path_);
    std::fwrite(text.data(), 1, text.size(), file);
    std::fclose(file);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const ThroughputTable& Throughputs() {
  static const ThroughputTable table =
      fs::exists(Shared("throughputs/shockwave_tacc_throughputs.json"))
          ? ThroughputTable::Load(Shared("throughputs/shockwave_tacc_throughputs.json"))
          : SyntheticThroughputTable();
  return table;
}

void CheckSummaryFinite(const Json& json, const std::string& where) {
  for (const auto& [key, value] : json.items()) {
    if (value.is_number()) {
      Check(std::isfinite(value.get<double>()), where + " " + key + " is not finite");
    }
    Check(!value.is_null(), where + " " + key + " is null");
  }
}

// A trace the reader accepted: its invariants, then a short simulation of its first jobs.
void RunTrace(const std::string& text, TraceFormat format, uint64_t salt) {
  Trace trace = ParseTrace("fuzz.trace", text, format);
  Check(!trace.jobs.empty(), "an empty trace was accepted");
  int max_gpus = 1;
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobSpec& job = trace.jobs[i];
    Check(job.id == static_cast<int>(i), "job ids are not dense");
    Check(i == 0 || trace.jobs[i - 1].arrival_s <= job.arrival_s, "jobs not sorted by arrival");
    Check(job.arrival_s >= 0 && job.arrival_s <= kMaxTraceSeconds, "arrival out of limits");
    Check(job.total_steps > 0 && job.total_steps <= kMaxTotalSteps, "steps out of limits");
    Check(job.scale_factor >= 1 && job.scale_factor <= kMaxGpus, "GPUs out of limits");
    Check(job.batch_size >= 0 && job.batch_size <= kMaxBatchSize, "batch out of limits");
    Check(std::isfinite(job.priority_weight) && std::isfinite(job.slo) &&
              std::isfinite(job.duration_s),
          "a non-finite field");
    max_gpus = std::max(max_gpus, job.scale_factor);
  }
  if (max_gpus > 4096) return;  // a valid trace, too big a cluster to simulate here
  // Simulate the first jobs whose type the throughput table knows (the simulator refuses the
  // others with a clear error; that is tested elsewhere, here it would hide the reader).
  std::vector<JobSpec> known;
  for (const JobSpec& job : trace.jobs) {
    if (known.size() == 40) break;
    if (!job.typed() || Throughputs().Isolated("v100", {job.job_type, job.scale_factor}) > 0) {
      known.push_back(job);
      known.back().id = static_cast<int>(known.size()) - 1;
    }
  }
  if (known.empty()) return;
  trace.jobs = std::move(known);
  static const char* const kPolicies[] = {"fifo", "las", "max_min_fairness", "srtf", "shockwave"};
  const std::string policy_name = kPolicies[salt % 5];
  ShockwaveOptions shockwave;
  PolicyOptions policy_options;
  policy_options.throughputs = &Throughputs();
  policy_options.shockwave = &shockwave;
  auto policy = MakePolicy(policy_name, policy_options);
  SimConfig config;
  config.gpus = max_gpus;
  config.round_s = 3600;  // long rounds: a 1e8 s job still needs few of them
  Simulator simulator(trace, &Throughputs(), policy.get(), config);
  SimResult result = simulator.Run();
  Check(result.jobs.size() == trace.jobs.size(), "jobs lost in the simulation");
  const Json summary = SummarizeSimulation(&result, {});
  CheckSummaryFinite(summary, policy_name + " summary");
  for (const JobRecord& job : result.jobs) {
    Check(job.finish_s >= job.arrival_s && std::isfinite(job.finish_s),
          "job " + std::to_string(job.id) + " finished before it arrived or never");
  }
}

void RunThroughputs(const std::string& text) {
  const ThroughputTable table = ThroughputTable::Parse("fuzz.json", text);
  for (const std::string& worker : table.worker_types()) {
    for (const char* type : {"ResNet-18 (batch size 32)", "LM (batch size 10)"}) {
      for (int sf : {1, 2, 4}) {
        const double value = table.Isolated(worker, {type, sf});
        Check(std::isfinite(value) && value >= 0 && value <= kMaxThroughput,
              "throughput out of limits");
      }
    }
  }
}

// A KServe v2 inference request against a 1x4x4 model with 3 classes and batches up to 4:
// accepted requests hold exactly the declared, finite samples, and their response encodes.
void RunKserveRequest(const std::string& text) {
  ServedModelInfo model;
  model.name = "fuzz";
  model.channels = 1;
  model.height = 4;
  model.width = 4;
  model.classes = 3;
  model.max_batch = 4;
  model.channel_mean = {0.5};
  model.channel_std = {0.25};
  InferRequest request;
  try {
    request = ParseInferRequest(model, text);
  } catch (const ProtocolError& e) {
    Check(e.status() >= 400 && e.status() < 500, "a protocol error outside 4xx");
    throw InputError("request", 0, e.what());
  }
  Check(request.batch >= 1 && request.batch <= model.max_batch, "batch out of limits");
  Check(request.input.size() == static_cast<size_t>(request.batch) * 16, "wrong sample count");
  for (float value : request.input) Check(std::isfinite(value), "a non-finite input");
  InferResult result;
  result.logits.assign(static_cast<size_t>(request.batch) * 3, 0.5f);
  result.classes.assign(request.batch, 1);
  result.blocks_run.assign(request.batch, 2);
  result.blocks = 2;
  const EncodedResponse reply = EncodeInferResponse(model, request, result);
  Check(!reply.body.empty(), "an empty response");
}

void RunProfile(const std::string& text) {
  const TempFile file(text);
  const ModelProfile profile = ReadProfile(file.path());
  Check(profile.batch >= 1 && !profile.blocks.empty(), "profile without batch or blocks");
  for (const BlockProfile& block : profile.blocks) {
    Check(std::isfinite(block.forward_s) && block.forward_s >= 0 &&
              std::isfinite(block.backward_s) && block.activation_bytes >= 0 &&
              block.parameter_bytes >= 0,
          "block value out of limits");
  }
  try {
    const SpbIterationEstimate estimate =
        EstimateSpbIteration(profile, profile.comm, 1, ParseSpbPlan("full"), profile.batch);
    Check(std::isfinite(estimate.iteration_s) && estimate.iteration_s >= 0,
          "non-finite iteration estimate");
  } catch (const UsageError&) {
    // The plan does not fit this profile: a clear refusal downstream, the profile was valid.
  }
}

void RunEfficiency(const std::string& text) {
  const TempFile file(text);
  const StatisticalEfficiencyTable table = ReadStatisticalEfficiency(file.path());
  for (const StatisticalEfficiencyEntry& e : table.entries) {
    Check(e.statistical_efficiency >= 0 && e.statistical_efficiency <= 1 && e.workers >= 1,
          "efficiency entry out of limits");
  }
}

void RunShockwaveConfig(const std::string& text) {
  const ShockwaveOptions options = ParseShockwaveOptions("fuzz.json", text);
  ValidateShockwaveOptions(options);
  Check(options.future_rounds >= 1 && std::isfinite(options.k), "config out of limits");
}

void RunTopology(const std::string& text) {
  const net::Topology topology = net::ParseTopologyText("fuzz.topo", text);
  for (const net::Link& link : topology.links) {
    Check(link.a < topology.num_nodes() && link.b < topology.num_nodes() && link.rate_bps > 0 &&
              link.delay >= 0 && link.delay <= kMaxLinkDelayPs,
          "link out of limits");
  }
  if (topology.num_nodes() > 2000 || topology.links.size() > 20000) return;
  net::NetConfig config;
  net::Network network(topology, config);
  if (network.num_hosts() < 2) return;
  network.AddFlow(0, network.num_hosts() - 1, 100'000, 0, 0);
  network.Run(10 * net::kMillisecond);
  Check(network.now() <= net::kMaxTime, "time past the horizon");
}

void RunAstra(const std::string& text) {
  const net::Workload workload = net::ParseAstraWorkload("fuzz.txt", text);
  Check(!workload.layers.empty(), "a workload without layers was accepted");
  if (workload.layers.size() > 1000) return;
  net::Network network(net::MakeFatTree(4, 100'000'000'000, net::kMicrosecond), net::NetConfig{});
  net::JobSpec job;
  job.workload = workload;
  for (uint32_t h = 0; h < 16; ++h) job.hosts.push_back(h);
  job.chunks = 2;
  const std::vector<net::JobResult> results =
      net::RunJobs(&network, {job}, 100 * net::kMicrosecond);
  Check(results.size() == 1 && network.now() <= net::kMaxTime, "workload run out of limits");
}

// A Chakra trace accepted by the reader runs as both ranks of a 2-rank job for 100 us: the
// cross-rank checks refuse what does not pair up, with a clear error.
void RunChakraTrace(const std::string& bytes) {
  const net::ChakraTrace trace = net::ParseChakraTrace("fuzz.0.et", bytes);
  Check(trace.nodes.size() <= net::kMaxChakraNodes, "more nodes than the limit");
  if (trace.nodes.size() > 2000) return;
  const net::ChakraJob job = net::MakeChakraJob("fuzz", {trace, trace}, 100);
  net::Network network(net::MakeFatTree(4, 100'000'000'000, net::kMicrosecond), net::NetConfig{});
  net::ChakraJobSpec spec;
  spec.job = &job;
  spec.hosts = {0, 1};
  spec.chunks = 2;
  const auto results = net::RunChakraJobs(&network, {spec}, 100 * net::kMicrosecond);
  Check(results.size() == 1 && network.now() <= net::kMaxTime, "trace run out of limits");
}

// compute 3 us -> all-reduce of 64 KB (attributes as int64 and uint64) -> compute, by hand.
std::string ChakraSeed() {
  auto varint = [](uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
    return out + static_cast<char>(v);
  };
  auto bytes = [&](int field, const std::string& b) {
    return varint(static_cast<uint64_t>(field) << 3 | 2) + varint(b.size()) + b;
  };
  auto number = [&](int field, uint64_t v) {
    return varint(static_cast<uint64_t>(field) << 3) + varint(v);
  };
  auto attr = [&](const std::string& name, int field, uint64_t v) {
    return bytes(10, bytes(1, name) + number(field, v));
  };
  auto message = [&](const std::string& m) { return varint(m.size()) + m; };
  return message(bytes(1, "0.0.4")) + message(number(1, 1) + number(3, 4) + number(7, 3)) +
         message(number(1, 2) + number(3, 7) + bytes(5, varint(1)) + attr("comm_type", 9, 0) +
                 attr("comm_size", 13, 65536) + attr("is_cpu_op", 27, 0)) +
         message(number(1, 3) + number(3, 4) + number(4, 2) + number(7, 2));
}

const wire::Token kFuzzToken = wire::ParseToken("00112233445566778899aabbccddeeff");

std::string Frames(std::initializer_list<wire::Message> messages) {
  std::string bytes;
  for (const wire::Message& m : messages) bytes += wire::EncodeMessage(m, kFuzzToken);
  return bytes;
}

void RunPsStream(const std::string& bytes) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair");
  wire::Socket writer(fds[0]);
  wire::Socket reader(fds[1]);
  std::thread feed([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t sent =
          send(writer.fd(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (sent <= 0) break;
      done += static_cast<size_t>(sent);
    }
    writer.Shutdown();
  });
  try {
    while (true) {
      const wire::Message message = wire::ReceiveMessage(reader.fd(), kFuzzToken, 1024);
      Check(message.data.size() <= 1024, "a message over the limit was accepted");
    }
  } catch (const wire::ConnectionClosed&) {
  } catch (const wire::ProtocolError&) {
    reader.Shutdown();
    feed.join();
    throw UsageError("protocol error");  // the documented refusal
  }
  feed.join();
}

// A whole one-worker job whose worker connection carries the mutated bytes: the server must end
// (done, or its documented failure) and never crash or hang.
void RunPsServer(const std::string& bytes) {
  ps::ServerOptions options;
  options.workers = 1;
  options.quiet = true;
  options.token = kFuzzToken;
  options.timeout_s = 0.5;
  options.handshake_timeout_s = 0.2;
  std::promise<int> port;
  options.on_listening = [&](int p) { port.set_value(p); };
  auto server = std::async(std::launch::async, [options] { return RunParameterServer(options); });
  const int listening = port.get_future().get();
  {
    wire::Socket socket = wire::ConnectTcp("127.0.0.1", listening, 5);
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t sent =
          send(socket.fd(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (sent <= 0) break;
      done += static_cast<size_t>(sent);
    }
    shutdown(socket.fd(), SHUT_WR);
    char sink[4096];
    while (recv(socket.fd(), sink, sizeof(sink), 0) > 0) {
    }
  }
  try {
    const ps::ServerStats stats = server.get();
    for (float p : stats.final_parameters) Check(std::isfinite(p), "a non-finite parameter");
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("ps job: ", 0) == 0) {
      throw UsageError(e.what());  // the server's documented failure
    }
    throw;
  }
}

std::vector<Area> MakeAreas() {
  const std::string shockwave =
      "LM (batch size 10)\tc\tlm\t--steps\t1\t1000\t1\tgns\t1\t-1\t1418\t0\n"
      "ResNet-18 (batch size 32)\tpython3 main.py\tcifar10\t--num_steps\t1\t14345\t2\taccordion"
      "\t1\t-1.000000\t3338\t55\n"
      "ResNet-50 (batch size 64)\tc\tr\t--n\t1\t2931\t4\tstatic\t1\t-1\t2000\t700\n";
  const std::string gavel =
      "ResNet-50 (batch size 64)\tcmd\tdir\t--n\t1\t2931\t4\t1\t-1.000000\t7\n"
      "LM (batch size 20)\tcmd\tdir\t--n\t1\t5000\t1\t1\t-1\t90\n";
  const std::string msr =
      "A3C\tcmd\t-n\t1\t10000\t6.000000\t8\n"
      "Transformer (batch size 128)\tcmd\t-step\t1\t9512\t0.000000\t1\n";
  const std::string philly =
      "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,600,1,600,x\n"
      "2017-10-09 08:11:00,3600,4,14400,y\n2017-10-10 00:00:00,60,2,120,x\n";
  const std::string pollux =
      "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n"
      "bert-1,300,bert,2,32\nimagenet-2,900,imagenet,8,1024\n";
  const std::string throughputs = R"json({"v100": {
  "('ResNet-18 (batch size 32)', 1)": {"null": 10.5, "('LM (batch size 10)', 1)": [5.0, 3.2]},
  "('ResNet-18 (batch size 32)', 2)": {"null": 19.0},
  "('LM (batch size 10)', 1)": {"null": 12.25}}})json";
  const std::string profile = R"json({"model": "hand", "batch": 10, "input_shape": [1, 2, 2],
  "threads": 1,
  "blocks": [{"name": "a", "forward_s": 0.001, "backward_s": 0.003, "backward_weight_s": 0.001,
              "backward_input_s": 0.002, "activation_bytes": 400, "parameter_bytes": 1000},
             {"name": "b", "forward_s": 0.001, "backward_s": 0.003, "backward_weight_s": 0.001,
              "backward_input_s": 0.002, "activation_bytes": 400, "parameter_bytes": 1000}],
  "batch_s": 0.0005, "loss_s": 0.00025, "optimizer_s": 0.0008,
  "comm": {"method": "fit", "fits": [{"kind": "allreduce", "members": 2, "after": "compute",
    "latency_s": 0.0001, "bandwidth_bytes_per_s": 1e7, "samples_payload_bytes_s": [[100, 0.001]]}]},
  "steps": {"workers": 2, "repeats": 3, "depths": [
    {"depth": 0, "slowest_compute_s": 0.01, "forward_s": 0.002, "backward_s": 0},
    {"depth": 1, "slowest_compute_s": 0.02, "forward_s": 0.002, "backward_s": 0.003},
    {"depth": 2, "slowest_compute_s": 0.03, "forward_s": 0.002, "backward_s": 0.006}]}})json";
  const std::string efficiency =
      Whole(std::string(JIGSAW_SOURCE_DIR) + "/data/spb_statistical_efficiency.json");
  const std::string config = R"json({"future_rounds": 20, "k": 1e-3, "lambda": 12.0,
  "rhomax": 1.0, "log_approximation_bases": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "gpu_ram": 16,
  "solver_rel_gap": 1e-3, "solver_num_threads": 24, "solver_timeout": 15})json";
  const std::string topology =
      "5 1 4\n4\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n"
      "2 4 25Gbps 0.005ms 0\n3 4 100Gbps 1000ns 0.001\n";
  const std::string astra =
      "DATA\n2\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 65536 5\n"
      "fc\t-1\t1\tALLGATHER\t4096\t2\tNONE\t0\t3\tALLTOALL\t8000\t0\n";
  const std::string session =
      Frames({wire::Message{wire::MessageType::kHello, 0, 1, {}},
              wire::Message{wire::MessageType::kInit, 0, 0, {0.5f, -1.0f, 2.0f, 0.0f}},
              wire::Message{wire::MessageType::kPull, 0, 0, {}},
              wire::Message{wire::MessageType::kPush, 0, 0, {1.0f, 1.0f, 1.0f, 1.0f}},
              wire::Message{wire::MessageType::kPull, 0, 1, {}},
              wire::Message{wire::MessageType::kBye, 0, 0, {}}});

  const std::string kserve = R"json({"id": "a", "inputs": [{"name": "input", "shape": [1, 1, 4, 4],
  "datatype": "FP32", "data": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15.5]}],
  "outputs": [{"name": "class"}]})json";
  const std::string kserve_nested = R"json({"inputs": [{"name": "input", "shape": [1, 4, 4],
  "datatype": "FP64", "data": [[[1, 2, 3, 4], [5, 6, 7, 8], [9, 1e3, -1, 0], [2, 2, 2, 2]]]}]})json";
  const std::string kserve_pixels = R"json({"parameters": {"binary_data_output": false},
  "inputs": [{"name": "input", "shape": [1, 1, 4, 4], "datatype": "UINT8",
  "parameters": {"pixel_range": "0..255"}, "data": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
  14, 255]}], "outputs": [{"name": "logits", "parameters": {"binary_data": true}}]})json";
  auto with = [](std::vector<std::string> seeds, std::initializer_list<std::string> extra) {
    for (const std::string& s : extra) {
      if (!s.empty()) seeds.push_back(s);
    }
    return seeds;
  };
  auto trace_area = [&](const std::string& name, TraceFormat format,
                        std::vector<std::string> seeds) {
    return Area{name, seeds, [format](const std::string& text) {
                  RunTrace(text, format, std::hash<std::string>{}(text));
                }};
  };
  return {
      trace_area("shockwave_trace", TraceFormat::kShockwave,
                 with({shockwave}, {Head(Shared("traces/shockwave/shockwave_120.trace"), 30)})),
      trace_area(
          "gavel_trace", TraceFormat::kGavel,
          with({gavel}, {Head(Shared("traces/gavel/physical_cluster/small_test.trace"), 30)})),
      trace_area("gavel_msr_trace", TraceFormat::kGavelMsr,
                 with({msr}, {Head(Shared("traces/gavel/msr/0e4a51.trace"), 30)})),
      trace_area("philly_trace", TraceFormat::kPhilly,
                 with({philly}, {Head(Shared("traces/philly/philly.csv"), 30)})),
      trace_area("pollux_trace", TraceFormat::kPollux,
                 with({pollux}, {Head(Shared("traces/pollux/workloads/workload-1.csv"), 30)})),
      trace_area("auto_trace", TraceFormat::kAuto, {shockwave, gavel, msr, philly, pollux}),
      Area{"throughputs_json", {throughputs}, RunThroughputs},
      Area{"profile_json", {profile}, RunProfile},
      Area{"efficiency_json", with({}, {efficiency}), RunEfficiency},
      Area{"shockwave_config_json",
           with({config}, {Whole(Shared("configs/shockwave/tacc_32gpus.json"))}),
           RunShockwaveConfig},
      Area{"net_topology",
           with({topology}, {Whole(Shared("topologies/clos/128_nodes_16_switch_topology.txt"))}),
           RunTopology},
      Area{"astra_workload",
           with({astra}, {Whole(Shared("workloads/astra/microAllReduce.txt")),
                          Whole(Shared("workloads/astra/Resnet50_DataParallel.txt"))}),
           RunAstra},
      Area{"chakra_trace",
           with({ChakraSeed()},
                {Whole(Shared("workloads/chakra/workload/microbenchmarks/all_reduce/8npus_1MB/"
                              "all_reduce.0.et"))}),
           RunChakraTrace},
      Area{"ps_messages", {session}, RunPsStream},
      Area{"ps_server", {session}, RunPsServer},
      Area{"kserve_request", {kserve, kserve_nested, kserve_pixels}, RunKserveRequest},
  };
}

// ---------------------------------------------------------------------------------------------
// Running inputs in children.

enum class Outcome { kAccepted, kClear, kCrash, kHang, kWrong };

struct Tally {
  int tried = 0, accepted = 0, clear = 0, crash = 0, hang = 0, wrong = 0;
  std::string example;  // the first bad outcome's message
};

[[noreturn]] void RunChild(const Area& area, const std::string& input, const std::string& err) {
  const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) dup2(fd, 2);
  try {
    area.run(input);
    std::fflush(stderr);
    _exit(kAccepted);
  } catch (const InputError& e) {
    _exit(kClear);
  } catch (const UsageError& e) {
    _exit(kClear);
  } catch (const WrongResult& e) {
    std::fprintf(stderr, "wrong: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unclear error (%s): %s\n", typeid(e).name(), e.what());
  }
  std::fflush(stderr);
  _exit(kWrong);
}

Outcome RunOne(const Area& area, const std::string& input, double timeout_s, const std::string& err,
               std::string* detail) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) RunChild(area, input, err);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      *detail = "ran past " + std::to_string(timeout_s) + " s";
      return Outcome::kHang;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kAccepted) return Outcome::kAccepted;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kClear) return Outcome::kClear;
  *detail = fs::exists(err) ? ReadWholeFile(err).substr(0, 600) : "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kWrong) return Outcome::kWrong;
  *detail = (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                 : "exit " + std::to_string(WEXITSTATUS(status))) +
            ": " + *detail;
  return Outcome::kCrash;
}

int Main(int argc, char** argv) {
  std::string only = "all", save;
  int inputs = 200;
  uint64_t seed = 1;
  double timeout_s = 30;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--area") {
      only = value();
    } else if (arg == "--inputs") {
      inputs = std::stoi(value());
    } else if (arg == "--seed") {
      seed = std::stoull(value());
    } else if (arg == "--timeout-s") {
      timeout_s = std::stod(value());
    } else if (arg == "--save") {
      save = value();
    } else if (arg == "--list") {
      list = true;
    } else {
      throw UsageError("unknown option " + arg + " (see the header of tests/fuzz/fuzz_harness.cc)");
    }
  }
  const std::vector<Area> areas = MakeAreas();
  if (list) {
    for (const Area& area : areas) std::printf("%s\n", area.name.c_str());
    return 0;
  }
  const std::string err =
      (fs::temp_directory_path() / ("jigsaw_fuzz_" + std::to_string(getpid()) + ".err")).string();
  if (!save.empty()) fs::create_directories(save);
  std::printf("| area | seeds | tried | accepted | clear error | crash | hang | wrong |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  Tally total;
  std::vector<std::string> examples;
  bool found = false;
  for (size_t a = 0; a < areas.size(); ++a) {
    const Area& area = areas[a];
    if (only != "all" && only != area.name) continue;
    found = true;
    Rng rng(seed * 1000003 + a);
    Tally tally;
    for (int i = 0; i < inputs; ++i) {
      // Every tenth input is a seed itself (they must be accepted), the rest mutations.
      const std::string& base = area.seeds[rng.UniformInt(area.seeds.size())];
      const std::string input = i % 10 == 0 ? base : Mutate(base, rng);
      std::string detail;
      const Outcome outcome = RunOne(area, input, timeout_s, err, &detail);
      ++tally.tried;
      switch (outcome) {
        case Outcome::kAccepted:
          ++tally.accepted;
          break;
        case Outcome::kClear:
          ++tally.clear;
          break;
        case Outcome::kCrash:
          ++tally.crash;
          break;
        case Outcome::kHang:
          ++tally.hang;
          break;
        case Outcome::kWrong:
          ++tally.wrong;
          break;
      }
      if (outcome == Outcome::kCrash || outcome == Outcome::kHang || outcome == Outcome::kWrong) {
        const std::string name = area.name + "_" + std::to_string(i);
        examples.push_back(name + ": " + detail);
        if (!save.empty()) WriteFileAtomically(save + "/" + name + ".input", input);
      }
    }
    std::printf("| %s | %zu | %d | %d | %d | %d | %d | %d |\n", area.name.c_str(),
                area.seeds.size(), tally.tried, tally.accepted, tally.clear, tally.crash,
                tally.hang, tally.wrong);
    std::fflush(stdout);
    total.tried += tally.tried;
    total.accepted += tally.accepted;
    total.clear += tally.clear;
    total.crash += tally.crash;
    total.hang += tally.hang;
    total.wrong += tally.wrong;
  }
  if (!found) throw UsageError("unknown area '" + only + "' (--list shows them)");
  std::printf("| total | | %d | %d | %d | %d | %d | %d |\n", total.tried, total.accepted,
              total.clear, total.crash, total.hang, total.wrong);
  for (const std::string& example : examples) std::printf("\n%s\n", example.c_str());
  std::remove(err.c_str());
  return total.crash + total.hang + total.wrong == 0 ? 0 : 1;
}

}  // namespace
}  // namespace jigsaw

int main(int argc, char** argv) {
  try {
    return jigsaw::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jigsaw_fuzz: %s\n", e.what());
    return 2;
  }
}
