#include "faas/load_run.h"

#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "core/result_set.h"
#include "faas/dag_reader.h"
#include "net/units.h"

namespace jigsaw::faas {

LoadOptions LoadRunOptions::Validate() const {
  LoadOptions load = this->load;
  std::string number = rate;
  if (number.size() > 2 && number.substr(number.size() - 2) == "/s") {
    number.resize(number.size() - 2);
  }
  char* end = nullptr;
  load.rate_per_s = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(load.rate_per_s > 0) || load.rate_per_s > 1e5) {
    throw UsageError("--rate '" + rate + "': expected requests per second like 20/s");
  }
  if (!net::ParseDuration(burst_period, &load.burst_period) || load.burst_period <= 0) {
    throw UsageError("--burst-period '" + burst_period +
                     "': expected a positive duration like 10s");
  }
  if (!(load.burst_sigma >= 0 && load.burst_sigma <= 5)) {
    throw UsageError("--burst-sigma must be in [0, 5]");
  }
  return load;
}

std::string LoadTable(const Json& summary) {
  char text[512];
  const Json& lat = summary["latency_ms"];
  const int header =
      std::snprintf(text, sizeof(text), "%-12s %8s %8s %10s %10s %10s %10s %8s %10s\n", "target",
                    "measured", "ok", "met%", "p50_ms", "p99_ms", "p99.9_ms", "cold%", "rss_MiB");
  std::snprintf(text + header, sizeof(text) - header,
                "%-12s %8lld %8lld %10.2f %10.1f %10.1f %10.1f %8.2f %10.1f\n",
                summary["target"].get<std::string>().c_str(),
                static_cast<long long>(summary["measured"].get<int64_t>()),
                static_cast<long long>(summary["ok"].get<int64_t>()),
                summary["deadline_met_pct"].get<double>(), lat.value("p50", 0.0),
                lat.value("p99", 0.0), lat.value("p999", 0.0),
                summary["cold_start_pct"].get<double>(),
                summary["sandbox_rss_mib"]["mean_sum_over_sgs"].get<double>());
  return text;
}

int RunLoadCommand(const LoadRunOptions& options) {
  const LoadOptions load = options.Validate();
  const Catalog catalog = ReadDagFile(options.dags);
  std::string csv;
  const Json summary = RunLoad(catalog, load, &csv);
  ResultSet files(options.out);
  files.Add("summary.json", summary.dump(2) + "\n");
  files.Add("requests.csv", std::move(csv));
  files.Commit();
  std::fputs(LoadTable(summary).c_str(), stdout);
  return 0;
}

}  // namespace jigsaw::faas
