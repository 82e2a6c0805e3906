#include "net/chakra_options.h"

#include "core/error.h"
#include "core/json_input.h"
#include "core/limits.h"
#include "core/text_input.h"

namespace jigsaw::net {
namespace {

void ReadSystemFile(const std::string& path, ChakraRunSpec* spec) {
  const std::string text = ReadWholeFile(path);
  const auto json = ParseJsonInput<nlohmann::json>(path, text, "expected an ASTRA-sim system JSON");
  if (!json.is_object()) throw InputError(path, 1, "expected a JSON object");
  const struct {
    const char* key;
    bool direct_ok;
  } kKeys[] = {{"all-reduce-implementation", false},
               {"all-gather-implementation", false},
               {"reduce-scatter-implementation", false},
               {"all-to-all-implementation", true}};
  for (const auto& [key, direct_ok] : kKeys) {
    if (!json.contains(key)) continue;
    const auto& list = json.at(key);
    if (!list.is_array() || list.empty() || !list[0].is_string()) {
      throw InputError(path, 0, std::string(key) + ": expected a list of algorithm names");
    }
    for (const auto& entry : list) {
      const std::string name = entry.is_string() ? entry.get<std::string>() : entry.dump();
      if (name == "ring") {
        if (direct_ok) {
          spec->notes.push_back(std::string(key) +
                                " 'ring' runs as the direct all-to-all (every rank sends its "
                                "share to every other at once)");
        }
        continue;
      }
      if (direct_ok && name == "direct") continue;
      throw InputError(path, 0,
                       std::string(key) + " '" + Excerpt(name) + "': not modelled; expected ring" +
                           (direct_ok ? " or direct" : ""));
    }
  }
}

}  // namespace

ChakraRunSpec ChakraOptions::Validate() const {
  if (prefixes.empty()) throw UsageError("--npu-tflops and --chakra-system need --chakra PREFIX");
  ChakraRunSpec spec;
  spec.prefixes = prefixes;
  if (prefixes.size() > 4096) throw UsageError("--chakra: at most 4096 jobs");
  if (!npu_tflops.empty()) {
    try {
      size_t used = 0;
      spec.npu_tflops = std::stod(npu_tflops, &used);
      if (used != npu_tflops.size()) spec.npu_tflops = -1;
    } catch (const std::exception&) {
      spec.npu_tflops = -1;
    }
    if (!(spec.npu_tflops > 0) || spec.npu_tflops > 1e6) {
      throw UsageError("--npu-tflops '" + Excerpt(npu_tflops) +
                       "': expected a compute rate in TFLOP/s of (0, 1e6], e.g. 989");
    }
  }
  if (!system.empty()) {
    spec.system_file = system;
    ReadSystemFile(system, &spec);
  }
  return spec;
}

}  // namespace jigsaw::net
