#include "net/chakra_report.h"

#include <cstdio>
#include <set>

#include "core/stats.h"

namespace jigsaw::net {
namespace {

double Us(Time t) { return RoundTo(ToMicroseconds(t), 3); }

std::string UsText(Time t) { return t >= 0 ? FormatFixed(ToMicroseconds(t), 3) : ""; }

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

Json JobJson(const ChakraJobResult& result, const std::vector<uint32_t>& hosts) {
  Json job;
  job["prefix"] = result.prefix;
  job["ranks"] = result.ranks;
  job["host_ranks"] = hosts;
  job["finished"] = result.finished >= 0;
  std::vector<double> iterations;
  for (Time t : result.iteration_times) iterations.push_back(Us(t));
  job["iteration_time_us"] = iterations.empty() ? Json() : Json(RoundTo(Mean(iterations), 3));
  job["iteration_times_us"] = iterations;
  job["nodes_per_iteration"] = result.nodes;
  job["nodes_done"] = result.nodes_done;
  job["nodes_by_type"] = result.nodes_by_type;
  uint64_t collectives = 0, sends = 0;
  for (const ChakraCommRecord& c : result.comms) (c.src_rank < 0 ? collectives : sends) += 1;
  job["collectives"] = collectives;
  job["sends"] = sends;
  job["not_modelled"] = result.not_modelled;
  job["ignored"] = result.ignored;
  return job;
}

void AppendCsv(uint32_t job, const ChakraJobResult& result, std::string* csv) {
  for (const ChakraCommRecord& c : result.comms) {
    *csv += std::to_string(job) + ',' + std::to_string(c.iteration) + ',' +
            std::to_string(c.node_id) + ',' + CsvField(c.name) + ',' + c.type + ',' +
            std::to_string(c.bytes) + ',' + (c.src_rank >= 0 ? std::to_string(c.src_rank) : "") +
            ',' + (c.dst_rank >= 0 ? std::to_string(c.dst_rank) : "") + ',' + UsText(c.issued) +
            ',' + UsText(c.started) + ',' + UsText(c.finished) + ',' +
            (c.finished >= 0 && c.started >= 0 ? UsText(c.finished - c.started) : "") + '\n';
  }
}

void NameOnce(const ChakraJobResult& result, std::set<std::string>* named) {
  for (const auto& [name, count] : result.not_modelled) {
    if (named->insert("n " + name).second) {
      std::fprintf(stderr,
                   "jigsaw: net: %s: %s nodes are not modelled (replayed as their "
                   "duration_micros; %llu met, counted in summary.json)\n",
                   result.prefix.c_str(), name.c_str(), static_cast<unsigned long long>(count));
    }
  }
  for (const auto& [name, count] : result.ignored) {
    if (named->insert("i " + name).second) {
      std::fprintf(stderr,
                   "jigsaw: net: %s: %s read and not modelled (%llu met, counted in "
                   "summary.json)\n",
                   result.prefix.c_str(), name.c_str(), static_cast<unsigned long long>(count));
    }
  }
}

}  // namespace

ChakraRunOutput RunChakra(Network* network, const ChakraRunSpec& spec,
                          const ChakraRunSettings& settings, Json* summary) {
  std::vector<ChakraJob> jobs;
  for (const std::string& prefix : spec.prefixes) {
    jobs.push_back(LoadChakraJob(prefix, spec.npu_tflops));
  }
  const auto placed = PlaceJobs(network->num_hosts(), static_cast<uint32_t>(jobs.size()),
                                settings.placement, settings.seed);
  std::vector<ChakraJobSpec> specs(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    specs[j].job = &jobs[j];
    specs[j].hosts = placed[j];
    specs[j].dims = settings.dims;
    specs[j].chunks = settings.chunks;
    specs[j].iterations = settings.iterations;
    specs[j].npu_tflops = spec.npu_tflops;
  }
  for (const std::string& note : spec.notes) {
    std::fprintf(stderr, "jigsaw: net: %s: %s\n", spec.system_file.c_str(), note.c_str());
  }
  const std::vector<ChakraJobResult> results =
      RunChakraJobs(network, specs, settings.stop, settings.progress);
  ChakraRunOutput output;
  output.collectives_csv =
      "job,iteration,node_id,name,type,bytes,src_rank,dst_rank,issued_us,started_us,"
      "finished_us,duration_us\n";
  Json list = Json::array();
  std::set<std::string> named;
  for (uint32_t j = 0; j < results.size(); ++j) {
    std::vector<uint32_t> hosts = placed[j];
    hosts.resize(std::min<size_t>(hosts.size(), results[j].ranks));
    list.push_back(JobJson(results[j], hosts));
    AppendCsv(j, results[j], &output.collectives_csv);
    output.unfinished_jobs += results[j].finished < 0;
    NameOnce(results[j], &named);
  }
  Json settings_json;
  settings_json["npu_tflops"] = spec.npu_tflops > 0 ? Json(spec.npu_tflops) : Json();
  settings_json["system_file"] = spec.system_file.empty() ? Json() : Json(spec.system_file);
  settings_json["notes"] = spec.notes;
  settings_json["chunks"] = settings.chunks;
  (*summary)["chakra"] = std::move(settings_json);
  (*summary)["chakra_jobs"] = std::move(list);
  return output;
}

}  // namespace jigsaw::net
