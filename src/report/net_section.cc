// Charts of `jigsaw net` runs: flows.csv (FCT, and slowdown where the run wrote it) and the
// optional timeseries/queue.csv and timeseries/pfc.csv (columns: /work/notes/s3/contract.md,
// docs/net.md).
#include <algorithm>
#include <filesystem>
#include <map>

#include "core/output.h"
#include "core/stats.h"
#include "report/charts.h"
#include "report/csv_table.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {
namespace {

constexpr size_t kTopPorts = 8;

struct NetData {
  std::map<std::string, std::vector<double>> fct_by_bucket, slowdown_by_bucket;
  std::vector<double> fcts, slowdowns;
  size_t flows = 0;
  bool has_slowdown = false;
  bool has_queue = false, has_pfc = false;
  std::vector<Point> max_queue;  // per sample time, the largest port queue
  // The kTopPorts ports with the largest peak queue: "node N port P" and its samples.
  std::vector<std::pair<std::string, std::vector<Point>>> top_ports;
  std::vector<std::pair<double, double>> pauses;
};

bool Exists(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

NetData ReadNet(const RunDir& run) {
  NetData data;
  const CsvTable flows = CsvTable::Read(run.path + "/flows.csv");
  const size_t bytes = flows.Column("bytes"), fct = flows.Column("fct_us");
  data.has_slowdown = flows.Has("slowdown");
  const size_t slowdown = data.has_slowdown ? flows.Column("slowdown") : 0;
  data.flows = flows.rows();
  for (size_t r = 0; r < flows.rows(); ++r) {
    const double f = flows.Number(r, fct);
    if (std::isnan(f)) continue;  // not finished when the run ended
    const std::string bucket = FlowSizeBucket(flows.Number(r, bytes));
    data.fcts.push_back(f);
    data.fct_by_bucket[bucket].push_back(f);
    if (data.has_slowdown) {
      const double s = flows.Number(r, slowdown);
      data.slowdowns.push_back(s);
      data.slowdown_by_bucket[bucket].push_back(s);
    }
  }
  const std::string queue_path = run.path + "/timeseries/queue.csv";
  if ((data.has_queue = Exists(queue_path))) {
    const CsvTable queue = CsvTable::Read(queue_path);
    const size_t time = queue.Column("time_us"), queue_bytes = queue.Column("queue_bytes"),
                 node = queue.Column("node"), port = queue.Column("port");
    std::map<double, double> largest;
    std::map<std::pair<std::string, std::string>, std::vector<Point>> by_port;
    for (size_t r = 0; r < queue.rows(); ++r) {
      const double t = queue.Number(r, time), q = queue.Number(r, queue_bytes);
      double& peak = largest[t];
      peak = std::max(peak, q);
      by_port[{queue.Cell(r, node), queue.Cell(r, port)}].push_back({t, q});
    }
    for (const auto& [t, q] : largest) data.max_queue.push_back({t, q});
    std::vector<std::pair<double, std::pair<std::string, std::string>>> peaks;
    for (const auto& [key, points] : by_port) {
      double peak = 0;
      for (const Point& p : points) peak = std::max(peak, p.y);
      peaks.push_back({peak, key});
    }
    std::sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < peaks.size() && i < kTopPorts; ++i) {
      const auto& key = peaks[i].second;
      std::vector<Point> points = by_port[key];
      std::stable_sort(points.begin(), points.end(),
                       [](const Point& a, const Point& b) { return a.x < b.x; });
      data.top_ports.push_back({"node " + key.first + " port " + key.second, std::move(points)});
    }
  }
  const std::string pfc_path = run.path + "/timeseries/pfc.csv";
  if ((data.has_pfc = Exists(pfc_path))) {
    const CsvTable pfc = CsvTable::Read(pfc_path);
    const size_t start = pfc.Column("start_us"), end = pfc.Column("end_us");
    for (size_t r = 0; r < pfc.rows(); ++r) {
      data.pauses.push_back({pfc.Number(r, start), pfc.Number(r, end)});
    }
  }
  return data;
}

}  // namespace

const std::vector<std::string>& FlowSizeBuckets() {
  static const std::vector<std::string> buckets = {"< 10 KB", "10 KB - 100 KB", "100 KB - 1 MB",
                                                   "1 MB - 10 MB", ">= 10 MB"};
  return buckets;
}

std::string FlowSizeBucket(double bytes) {
  const auto& b = FlowSizeBuckets();
  if (bytes < 1e4) return b[0];
  if (bytes < 1e5) return b[1];
  if (bytes < 1e6) return b[2];
  if (bytes < 1e7) return b[3];
  return b[4];
}

Section NetSection(const std::vector<const RunDir*>& runs, size_t max_points,
                   std::vector<Json>* metrics) {
  Section section;
  section.heading = "Network simulator runs (jigsaw net)";
  const size_t max = max_points;
  Json fct_rows = Json::array(), slowdown_rows = Json::array(), queue_rows = Json::array(),
       port_rows = Json::array(), pause_rows = Json::array();
  std::vector<Series> fct_series, slowdown_series, queue_series, port_series, pause_series;
  std::vector<std::string> queue_runs;
  std::vector<std::string> no_slowdown, no_queue, no_pfc;
  bool any_slowdown = false;
  for (const RunDir* run : runs) {
    const NetData data = ReadNet(*run);
    for (const auto& [bucket, values] : data.fct_by_bucket) {
      fct_series.push_back(EmpiricalCdf(values, max));
      for (const Point& p : fct_series.back().points) {
        fct_rows.push_back(
            {{"run", run->name}, {"size", bucket}, {"fct_us", p.x}, {"fraction", p.y}});
      }
    }
    if (data.has_slowdown) {
      any_slowdown = true;
      for (const auto& [bucket, values] : data.slowdown_by_bucket) {
        slowdown_series.push_back(EmpiricalCdf(values, max));
        for (const Point& p : slowdown_series.back().points) {
          slowdown_rows.push_back(
              {{"run", run->name}, {"size", bucket}, {"slowdown", p.x}, {"fraction", p.y}});
        }
      }
    } else {
      no_slowdown.push_back(run->name);
    }
    if (data.has_queue) {
      queue_series.push_back(Downsample(data.max_queue, max));
      for (const Point& p : queue_series.back().points) {
        queue_rows.push_back({{"run", run->name}, {"time_us", p.x}, {"queue_bytes", p.y}});
      }
      queue_runs.push_back(run->name);
      for (const auto& [port, points] : data.top_ports) {
        port_series.push_back(Downsample(points, max));
        for (const Point& p : port_series.back().points) {
          port_rows.push_back(
              {{"run", run->name}, {"port", port}, {"time_us", p.x}, {"queue_bytes", p.y}});
        }
      }
    } else {
      no_queue.push_back(run->name);
    }
    if (data.has_pfc) {
      pause_series.push_back(Downsample(StepCount(data.pauses), max));
      for (const Point& p : pause_series.back().points) {
        pause_rows.push_back({{"run", run->name}, {"time_us", p.x}, {"paused", p.y}});
      }
    } else {
      no_pfc.push_back(run->name);
    }
    Json row = {{"flows", data.flows}, {"flows_finished", data.fcts.size()}};
    if (!data.fcts.empty()) {
      row["mean_fct_us"] = RoundTo(Mean(data.fcts), 3);
      row["p50_fct_us"] = RoundTo(Percentile(data.fcts, 50), 3);
      row["p99_fct_us"] = RoundTo(Percentile(data.fcts, 99), 3);
      row["max_fct_us"] = RoundTo(Max(data.fcts), 3);
    }
    if (!data.slowdowns.empty()) {
      row["mean_slowdown"] = RoundTo(Mean(data.slowdowns), 4);
      row["p99_slowdown"] = RoundTo(Percentile(data.slowdowns, 99), 4);
      row["max_slowdown"] = RoundTo(Max(data.slowdowns), 4);
    }
    if (data.has_pfc) {
      double paused = 0;
      for (const auto& [start, end] : data.pauses) paused += std::max(0.0, end - start);
      row["pfc_pauses"] = data.pauses.size();
      row["pfc_pause_total_us"] = RoundTo(paused, 3);
    }
    metrics->push_back(row);
  }
  auto note = [&](const std::vector<Series>& series) {
    std::vector<const Series*> pointers;
    for (const Series& s : series) pointers.push_back(&s);
    return DownsampleNote(pointers, max);
  };
  LineOptions by_size = ColorBy("run", true);
  by_size.facet = "size";
  by_size.facet_order = FlowSizeBuckets();
  AddChart(&section, LineSpec("FCT CDF by flow size (finished flows)" + note(fct_series),
                              std::move(fct_rows), {"fct_us", "flow completion time (us)", true},
                              {"fraction", "fraction of flows"}, by_size));
  if (any_slowdown) {
    AddChart(&section,
             LineSpec("FCT slowdown CDF by flow size (FCT / ideal FCT)" + note(slowdown_series),
                      std::move(slowdown_rows), {"slowdown", "slowdown", true},
                      {"fraction", "fraction of flows"}, by_size));
  }
  if (!no_slowdown.empty()) {
    section.notes.push_back("FCT slowdown CDF: no slowdown column in flows.csv of " +
                            JoinNames(no_slowdown) + " (older jigsaw net outputs).");
  }
  if (!queue_series.empty()) {
    AddChart(&section,
             LineSpec("Largest port queue over time" + note(queue_series), std::move(queue_rows),
                      {"time_us", "time (us)"}, {"queue_bytes", "queue (bytes)"}, ColorBy("run")));
  }
  if (!port_series.empty()) {
    LineOptions by_port = ColorBy("port");
    by_port.facet = "run";
    by_port.facet_order = queue_runs;
    AddChart(&section, LineSpec("Queue of the " + std::to_string(kTopPorts) +
                                    " ports with the largest peak, per run" + note(port_series),
                                std::move(port_rows), {"time_us", "time (us)"},
                                {"queue_bytes", "queue (bytes)"}, by_port));
  }
  if (!no_queue.empty()) {
    section.notes.push_back("Queue length: no timeseries/queue.csv in " + JoinNames(no_queue) +
                            " (jigsaw net --timeseries writes it).");
  }
  bool any_pause = false;
  for (const Json& row : pause_rows) any_pause = any_pause || row["paused"].get<double>() > 0;
  if (!pause_series.empty() && !any_pause) {
    AddNote(&section,
            "PFC pauses in force over time: no PFC pause in any run that recorded "
            "them.");
  } else if (!pause_series.empty()) {
    AddChart(&section, LineSpec("PFC pauses in force over time" + note(pause_series),
                                std::move(pause_rows), {"time_us", "time (us)"},
                                {"paused", "paused (port, priority) pairs"}, ColorBy("run", true)));
  }
  if (!no_pfc.empty()) {
    section.notes.push_back("PFC pauses: no timeseries/pfc.csv in " + JoinNames(no_pfc) +
                            " (jigsaw net --timeseries writes it).");
  }
  return section;
}

}  // namespace jigsaw::report
