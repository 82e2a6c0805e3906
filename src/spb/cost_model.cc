#include "spb/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw {

namespace {

// Stored bandwidth when the samples show no size dependence (JSON has no infinity).
constexpr double kUnboundedBandwidth = 1e15;

const char* KindName(Collective::Kind kind) {
  return kind == Collective::Kind::kAllreduce ? "allreduce" : "broadcast";
}

// Bytes each member sends for a collective of `kind` over `members` ranks on `payload` bytes.
double SentPerMember(Collective::Kind kind, int members, double payload) {
  Collective c;
  c.kind = kind;
  for (int r = 0; r < members; ++r) c.members.push_back(r);
  return EstimatedBytesSent(c, 0, payload);
}

Json CommToJson(const CommModel& comm) {
  Json fits = Json::array();
  for (const CollectiveFit& f : comm.fits) {
    Json samples = Json::array();
    for (const auto& [bytes, seconds] : f.samples) samples.push_back({bytes, seconds});
    fits.push_back({{"kind", KindName(f.kind)},
                    {"members", f.members},
                    {"after", f.back_to_back ? "collective" : "compute"},
                    {"latency_s", f.latency_s},
                    {"bandwidth_bytes_per_s", f.bandwidth_bytes_per_s},
                    {"samples_payload_bytes_s", samples}});
  }
  return {{"method", comm.method}, {"fits", fits}};
}

CommModel CommFromJson(const Json& json) {
  CommModel comm;
  comm.method = json.value("method", "");
  for (const Json& f : json.at("fits")) {
    CollectiveFit fit;
    const std::string kind = f.at("kind").get<std::string>();
    if (kind != "allreduce" && kind != "broadcast") {
      throw std::invalid_argument("comm fit kind must be allreduce or broadcast, got " +
                                  Excerpt(kind));
    }
    fit.kind = kind == "allreduce" ? Collective::Kind::kAllreduce : Collective::Kind::kBroadcast;
    fit.members = static_cast<int>(JsonInteger(f.at("members"), "members", 2, kMaxWorkers));
    const std::string after = f.value("after", "compute");
    if (after != "compute" && after != "collective") {
      throw std::invalid_argument("comm fit \"after\" must be compute or collective, got " +
                                  Excerpt(after));
    }
    fit.back_to_back = after == "collective";
    fit.latency_s = JsonNumber(f.at("latency_s"), "latency_s", 0, kMaxProfileSeconds);
    fit.bandwidth_bytes_per_s =
        JsonNumber(f.at("bandwidth_bytes_per_s"), "bandwidth_bytes_per_s", 0, 1e18);
    if (fit.members < 2 || fit.bandwidth_bytes_per_s <= 0 || fit.latency_s < 0) {
      throw std::invalid_argument("comm fit needs members >= 2, latency_s >= 0, bandwidth > 0");
    }
    for (const Json& s : f.value("samples_payload_bytes_s", Json::array())) {
      fit.samples.emplace_back(JsonNumber(s.at(0), "sample bytes", 0, kMaxProfileBytes),
                               JsonNumber(s.at(1), "sample seconds", 0, kMaxProfileSeconds));
    }
    comm.fits.push_back(fit);
  }
  return comm;
}

}  // namespace

double CommModel::Seconds(Collective::Kind kind, int members, double payload_bytes,
                          bool back_to_back) const {
  bool have_mode = false;
  for (const CollectiveFit& f : fits) have_mode |= f.kind == kind && f.back_to_back == back_to_back;
  const CollectiveFit* best = nullptr;
  for (const CollectiveFit& f : fits) {
    if (f.kind != kind || (have_mode && f.back_to_back != back_to_back)) continue;
    if (best == nullptr || std::abs(f.members - members) < std::abs(best->members - members) ||
        (std::abs(f.members - members) == std::abs(best->members - members) &&
         f.members > best->members)) {
      best = &f;
    }
  }
  if (best == nullptr) {
    throw std::logic_error(std::string("communication model has no ") + KindName(kind) + " fit");
  }
  return best->latency_s +
         SentPerMember(kind, members, payload_bytes) / best->bandwidth_bytes_per_s;
}

CollectiveFit FitCollective(Collective::Kind kind, int members,
                            const std::vector<std::pair<double, double>>& samples) {
  CollectiveFit fit;
  fit.kind = kind;
  fit.members = members;
  fit.samples = samples;
  const double n = static_cast<double>(samples.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [bytes, seconds] : samples) {
    const double x = SentPerMember(kind, members, bytes);
    sx += x;
    sy += seconds;
    sxx += x * x;
    sxy += x * seconds;
  }
  const double denominator = n * sxx - sx * sx;
  if (samples.size() < 2 || denominator <= 0) {
    throw std::invalid_argument("a collective fit needs at least two distinct sizes");
  }
  double slope = (n * sxy - sx * sy) / denominator;
  double intercept = (sy - slope * sx) / n;
  if (intercept < 0) {  // refit through the origin
    intercept = 0;
    slope = sxy / sxx;
  }
  if (slope <= 0) {  // no measurable size dependence: constant time, "infinite" bandwidth
    intercept = sy / n;
    slope = 1.0 / kUnboundedBandwidth;
  }
  fit.latency_s = intercept;
  fit.bandwidth_bytes_per_s = std::min(1.0 / slope, kUnboundedBandwidth);
  return fit;
}

Json ProfileToJson(const ModelProfile& profile) {
  Json json;
  json["format"] = "jigsaw-block-profile-v2";
  json["model"] = profile.model;
  json["batch"] = profile.batch;
  json["input_shape"] = profile.input_shape;
  json["threads"] = profile.threads;
  Json blocks = Json::array();
  for (size_t i = 0; i < profile.blocks.size(); ++i) {
    const BlockProfile& b = profile.blocks[i];
    blocks.push_back({{"index", i},
                      {"name", b.name},
                      {"forward_s", b.forward_s},
                      {"backward_s", b.backward_s},
                      {"backward_weight_s", b.backward_weight_s},
                      {"backward_input_s", b.backward_input_s},
                      {"activation_bytes", b.activation_bytes},
                      {"parameter_bytes", b.parameter_bytes}});
  }
  json["blocks"] = blocks;
  json["batch_s"] = profile.batch_s;
  json["loss_s"] = profile.loss_s;
  json["optimizer_s"] = profile.optimizer_s;
  if (!profile.comm.empty()) json["comm"] = CommToJson(profile.comm);
  if (!profile.steps.empty()) {
    Json depths = Json::array();
    for (const DepthStepProfile& d : profile.steps.depths) {
      depths.push_back({{"depth", d.depth},
                        {"slowest_compute_s", d.slowest_compute_s},
                        {"mean_compute_s", d.mean_compute_s},
                        {"alone_compute_s", d.alone_compute_s},
                        {"forward_s", d.forward_s},
                        {"backward_s", d.backward_s}});
    }
    json["steps"] = {
        {"workers", profile.steps.workers}, {"repeats", profile.steps.repeats}, {"depths", depths}};
  }
  return json;
}

ModelProfile ReadProfile(const std::string& path) {
  const std::string text = ReadWholeFile(path);
  const Json json = ParseJsonInput<Json>(path, text, "not valid JSON");
  auto seconds = [](const Json& j, const char* key) {
    return JsonNumber(j.at(key), key, 0, kMaxProfileSeconds);
  };
  auto seconds_or = [&](const Json& j, const char* key, double fallback) {
    return j.contains(key) ? seconds(j, key) : fallback;
  };
  ModelProfile profile;
  try {
    if (!json.is_object()) throw std::invalid_argument("expected a JSON object");
    profile.model = json.at("model").get<std::string>();
    profile.batch = static_cast<int>(JsonInteger(json.at("batch"), "batch", 1, kMaxBatchSize));
    const Json& shape = json.at("input_shape");
    if (!shape.is_array() || shape.size() > 8) {
      throw std::invalid_argument("input_shape: expected an array of at most 8 sizes");
    }
    for (const Json& d : shape) {
      profile.input_shape.push_back(static_cast<int>(JsonInteger(d, "input_shape", 1, 1 << 20)));
    }
    profile.threads = json.contains("threads")
                          ? static_cast<int>(JsonInteger(json.at("threads"), "threads", 1, 1024))
                          : 1;
    const Json& blocks = json.at("blocks");
    if (!blocks.is_array() || static_cast<long long>(blocks.size()) > kMaxProfileBlocks) {
      throw std::invalid_argument("blocks: expected an array of at most " +
                                  std::to_string(kMaxProfileBlocks) + " blocks");
    }
    for (const Json& b : blocks) {
      BlockProfile block;
      block.name = b.at("name").get<std::string>();
      block.forward_s = seconds(b, "forward_s");
      block.backward_s = seconds(b, "backward_s");
      block.backward_weight_s = seconds(b, "backward_weight_s");
      block.backward_input_s = seconds(b, "backward_input_s");
      block.activation_bytes = JsonInteger(b.at("activation_bytes"), "activation_bytes", 0,
                                           static_cast<long long>(kMaxProfileBytes));
      block.parameter_bytes = JsonInteger(b.at("parameter_bytes"), "parameter_bytes", 0,
                                          static_cast<long long>(kMaxProfileBytes));
      profile.blocks.push_back(block);
    }
    profile.batch_s = seconds_or(json, "batch_s", 0.0);
    profile.loss_s = seconds_or(json, "loss_s", 0.0);
    profile.optimizer_s = seconds_or(json, "optimizer_s", 0.0);
    if (json.contains("comm")) profile.comm = CommFromJson(json.at("comm"));
    if (json.contains("steps")) {
      const Json& steps = json.at("steps");
      profile.steps.workers =
          static_cast<int>(JsonInteger(steps.at("workers"), "steps.workers", 1, kMaxWorkers));
      profile.steps.repeats =
          static_cast<int>(JsonInteger(steps.at("repeats"), "steps.repeats", 1, 1'000'000'000));
      for (const Json& d : steps.at("depths")) {
        DepthStepProfile step;
        step.depth = static_cast<int>(JsonInteger(d.at("depth"), "depth", 0, kMaxProfileBlocks));
        step.slowest_compute_s = seconds(d, "slowest_compute_s");
        step.mean_compute_s = seconds_or(d, "mean_compute_s", step.slowest_compute_s);
        step.alone_compute_s = seconds_or(d, "alone_compute_s", step.mean_compute_s);
        step.forward_s = seconds(d, "forward_s");
        step.backward_s = seconds(d, "backward_s");
        if (step.depth != static_cast<int>(profile.steps.depths.size())) {
          throw std::invalid_argument("steps.depths must list depths 0, 1, ... in order");
        }
        profile.steps.depths.push_back(step);
      }
    }
  } catch (const Json::exception& e) {
    throw InputError(path, 0, std::string("malformed block profile: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, std::string("malformed block profile: ") + e.what());
  }
  if (profile.blocks.empty()) {
    throw InputError(path, 0, "a profile needs a positive batch and at least one block");
  }
  if (!profile.steps.empty() && profile.steps.depths.size() != profile.blocks.size() + 1) {
    throw InputError(path, 0, "steps.depths must have one entry per depth 0 .. blocks");
  }
  return profile;
}

double PredictBackwardS(const ModelProfile& profile, int depth, int batch) {
  const int blocks = static_cast<int>(profile.blocks.size());
  double seconds = 0;
  for (int b = std::max(0, blocks - depth); b < blocks; ++b) {
    const BlockProfile& block = profile.blocks[b];
    seconds += b == blocks - depth || b == 0 ? block.backward_weight_s : block.backward_s;
  }
  return seconds * batch / profile.batch;
}

double PredictBytesSent(const ModelProfile& profile, const std::vector<Collective>& collectives,
                        int rank) {
  double bytes = 0;
  for (const Collective& c : collectives) {
    double payload = 0;
    for (int b : c.blocks) payload += static_cast<double>(profile.blocks[b].parameter_bytes);
    bytes += EstimatedBytesSent(c, rank, payload);
  }
  return bytes;
}

}  // namespace jigsaw
