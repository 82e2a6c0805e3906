#include "spb/cost_model.h"

#include <algorithm>

#include "core/error.h"
#include "core/text_input.h"

namespace jigsaw {

Json ProfileToJson(const ModelProfile& profile) {
  Json json;
  json["format"] = "jigsaw-block-profile-v1";
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
  return json;
}

ModelProfile ReadProfile(const std::string& path) {
  Json json;
  try {
    json = Json::parse(ReadWholeFile(path));
  } catch (const Json::parse_error& e) {
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  ModelProfile profile;
  try {
    profile.model = json.at("model").get<std::string>();
    profile.batch = json.at("batch").get<int>();
    profile.input_shape = json.at("input_shape").get<std::vector<int>>();
    profile.threads = json.value("threads", 1);
    for (const Json& b : json.at("blocks")) {
      BlockProfile block;
      block.name = b.at("name").get<std::string>();
      block.forward_s = b.at("forward_s").get<double>();
      block.backward_s = b.at("backward_s").get<double>();
      block.backward_weight_s = b.at("backward_weight_s").get<double>();
      block.backward_input_s = b.at("backward_input_s").get<double>();
      block.activation_bytes = b.at("activation_bytes").get<int64_t>();
      block.parameter_bytes = b.at("parameter_bytes").get<int64_t>();
      profile.blocks.push_back(block);
    }
  } catch (const Json::exception& e) {
    throw InputError(path, 0, std::string("malformed block profile: ") + e.what());
  }
  if (profile.batch <= 0 || profile.blocks.empty()) {
    throw InputError(path, 0, "a profile needs a positive batch and at least one block");
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
