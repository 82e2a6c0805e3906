#include "faas/load_client.h"

#include <httplib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/stats.h"
#include "faas/workload.h"

namespace jigsaw::faas {
namespace {

using Clock = std::chrono::steady_clock;

struct Outcome {
  DagId dag = 0;
  int status = 0;  // 0: no answer (connection error), -1: dropped by the client
  double latency_ms = 0;
  int tasks = 0, cold_starts = 0, retries = 0;
  std::string error;
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

Json Latencies(std::vector<double> values) {
  if (values.empty()) return {{"count", 0}};
  return {{"count", values.size()},        {"p50", Percentile(values, 50)},
          {"p99", Percentile(values, 99)}, {"p999", Percentile(values, 99.9)},
          {"mean", Mean(values)},          {"max", Max(values)}};
}

}  // namespace

std::vector<ScheduledArrival> ScheduleArrivals(const Catalog& catalog, const LoadOptions& options) {
  std::vector<double> weights;
  double weight_sum = 0;
  for (const Dag& d : catalog.dags) {
    weights.push_back(d.rate_per_s);
    weight_sum += d.rate_per_s;
  }
  std::vector<ScheduledArrival> schedule;
  schedule.reserve(static_cast<size_t>(std::max<int64_t>(0, options.requests)));
  if (options.burst_sigma <= 0) {
    Rng rng(options.seed);
    double at_s = 0;
    for (int64_t i = 0; i < options.requests; ++i) {
      at_s += rng.Exponential(1.0 / options.rate_per_s);
      const DagId dag = static_cast<DagId>(rng.WeightedIndex(weights));
      schedule.push_back({static_cast<Time>(at_s * net::kSecond), dag});
    }
    return schedule;
  }
  // One ArrivalProcess per DAG at its share of the rate, merged in time order.
  Catalog shares = catalog;
  for (Dag& d : shares.dags) d.rate_per_s = options.rate_per_s * d.rate_per_s / weight_sum;
  ArrivalProcess arrivals(shares, options.seed, options.burst_period, options.burst_sigma);
  std::vector<Time> next(shares.dags.size());
  for (DagId d = 0; d < shares.dags.size(); ++d) next[d] = arrivals.Next(d, 0);
  for (int64_t i = 0; i < options.requests; ++i) {
    DagId dag = 0;
    for (DagId d = 1; d < next.size(); ++d) {
      if (next[d] < next[dag]) dag = d;
    }
    schedule.push_back({next[dag], dag});
    next[dag] = arrivals.Next(dag, next[dag]);
  }
  return schedule;
}

namespace {

struct Arrival {
  int64_t index;
  DagId dag;
  Clock::time_point at;
};

// What the senders and the pacing thread produced: one outcome per request.
struct Sent {
  std::vector<Outcome> outcomes;
  int64_t dropped = 0;
  double wall_s = 0, cpu_s = 0;
};

// One request over `client`: its status, latency from its scheduled arrival, and the counters of
// the platform's answer.
Outcome Invoke(httplib::Client& client, const Catalog& catalog, const LoadOptions& options,
               const Arrival& a) {
  const std::string body =
      "request-" + std::to_string(options.seed) + "-" + std::to_string(a.index);
  auto res = client.Post("/invoke/" + catalog.dags[a.dag].name, body, "application/octet-stream");
  Outcome o;
  o.dag = a.dag;
  o.latency_ms = std::chrono::duration<double, std::milli>(Clock::now() - a.at).count();
  if (!res) {
    o.error = httplib::to_string(res.error());
    return o;
  }
  o.status = res->status;
  try {
    const Json j = Json::parse(res->body);
    o.tasks = j.value("tasks", 0);
    o.cold_starts = j.value("cold_starts", 0);
    o.retries = j.value("retries", 0);
    if (j.contains("error")) o.error = j["error"].get<std::string>();
  } catch (const std::exception&) {
    o.error = "unreadable answer";
  }
  return o;
}

// The bounded queue between the pacing thread and the `connections` senders.
struct SendQueue {
  std::mutex mu;
  std::condition_variable ready, room;
  std::deque<Arrival> queue;
  bool closed = false;
  int64_t answered = 0;
};

void SenderLoop(const Catalog& catalog, const LoadOptions& options, SendQueue* q,
                std::vector<Outcome>* outcomes) {
  httplib::Client client(options.host, options.port);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(options.timeout_s, 0);
  for (;;) {
    Arrival a;
    {
      std::unique_lock<std::mutex> lock(q->mu);
      q->ready.wait(lock, [&] { return q->closed || !q->queue.empty(); });
      if (q->queue.empty()) return;
      a = q->queue.front();
      q->queue.pop_front();
    }
    q->room.notify_one();
    const Outcome o = Invoke(client, catalog, options, a);
    std::lock_guard<std::mutex> lock(q->mu);
    (*outcomes)[a.index] = o;
    ++q->answered;
  }
}

// Paces the schedule into the queue (an arrival that finds it full is dropped by the client)
// and waits for every sender to finish.
Sent SendAll(const Catalog& catalog, const LoadOptions& options, Progress& progress) {
  Sent sent;
  sent.outcomes.resize(options.requests);
  SendQueue q;
  const size_t capacity = 4 * static_cast<size_t>(options.connections);
  std::vector<std::thread> senders;
  for (int i = 0; i < options.connections; ++i) {
    senders.emplace_back(SenderLoop, std::cref(catalog), std::cref(options), &q, &sent.outcomes);
  }
  const double cpu_before = CpuSeconds();
  const Clock::time_point start = Clock::now();
  const std::vector<ScheduledArrival> schedule = ScheduleArrivals(catalog, options);
  for (int64_t i = 0; i < options.requests; ++i) {
    const DagId dag = schedule[i].dag;
    const Clock::time_point at =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                    static_cast<double>(schedule[i].at) / net::kSecond));
    std::this_thread::sleep_until(at);
    {
      std::lock_guard<std::mutex> lock(q.mu);
      if (q.queue.size() >= capacity) {
        sent.outcomes[i].dag = dag;
        sent.outcomes[i].status = -1;
        sent.outcomes[i].error = "dropped by the client: all connections busy";
        ++sent.dropped;
        ++q.answered;
      } else {
        q.queue.push_back({i, dag, at});
      }
    }
    q.ready.notify_one();
    if (progress.Due()) {
      std::lock_guard<std::mutex> lock(q.mu);
      progress.Report(static_cast<double>(i + 1), static_cast<double>(options.requests),
                      "sent " + std::to_string(i + 1) + ", answered " + std::to_string(q.answered));
    }
  }
  {
    std::lock_guard<std::mutex> lock(q.mu);
    q.closed = true;
  }
  q.ready.notify_all();
  for (std::thread& t : senders) t.join();
  sent.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  sent.cpu_s = CpuSeconds() - cpu_before;
  return sent;
}

// The measured requests' totals, per status and per DAG.
struct Tally {
  std::vector<double> latencies;
  std::map<std::string, int64_t> statuses;
  int64_t met = 0, ok = 0, tasks = 0, cold = 0, retries = 0, measured = 0;
  std::vector<std::vector<double>> dag_latency;
  std::vector<int64_t> dag_met, dag_count;
};

// Tallies the measured requests and writes their CSV rows.
Tally TallyOutcomes(const Catalog& catalog, const LoadOptions& options,
                    const std::vector<Outcome>& outcomes, std::string* csv_rows) {
  Tally t;
  t.dag_latency.resize(catalog.dags.size());
  t.dag_met.assign(catalog.dags.size(), 0);
  t.dag_count.assign(catalog.dags.size(), 0);
  std::ostringstream csv;
  csv << "index,dag,status,latency_ms,deadline_ms,met,tasks,cold_starts,retries,error\n";
  for (int64_t i = options.warmup; i < options.requests; ++i) {
    const Outcome& o = outcomes[i];
    ++t.measured;
    ++t.statuses[std::to_string(o.status)];
    const double deadline_ms =
        static_cast<double>(catalog.dags[o.dag].deadline) / net::kMillisecond;
    const bool is_met = o.status == 200 && o.latency_ms <= deadline_ms;
    t.met += is_met;
    ++t.dag_count[o.dag];
    t.dag_met[o.dag] += is_met;
    if (o.status == 200) {
      ++t.ok;
      t.latencies.push_back(o.latency_ms);
      t.dag_latency[o.dag].push_back(o.latency_ms);
    }
    t.tasks += o.tasks;
    t.cold += o.cold_starts;
    t.retries += o.retries;
    std::string error = o.error;
    for (char& c : error) {
      if (c == ',' || c == '\n') c = ';';
    }
    csv << i << "," << catalog.dags[o.dag].name << "," << o.status << "," << o.latency_ms << ","
        << deadline_ms << "," << is_met << "," << o.tasks << "," << o.cold_starts << ","
        << o.retries << "," << error << "\n";
  }
  *csv_rows = csv.str();
  return t;
}

Json SummaryJson(const Catalog& catalog, const LoadOptions& options, const Sent& sent,
                 const Tally& t) {
  Json summary;
  summary["format"] = "jigsaw-faas-load-v1";
  summary["target"] = options.host + ":" + std::to_string(options.port);
  summary["rate_per_s"] = options.rate_per_s;
  summary["requests"] = options.requests;
  summary["warmup"] = options.warmup;
  summary["measured"] = t.measured;
  summary["seed"] = options.seed;
  summary["burst_sigma"] = options.burst_sigma;
  summary["burst_period_s"] = static_cast<double>(options.burst_period) / net::kSecond;
  summary["ok"] = t.ok;
  Json by_status = Json::object();
  for (const auto& [status, count] : t.statuses) by_status[status] = count;
  summary["by_status"] = by_status;  // -1: dropped by the client, 0: no answer
  summary["dropped_by_client"] = sent.dropped;
  summary["deadline_met_pct"] = t.measured ? 100.0 * t.met / t.measured : 0.0;
  summary["latency_ms"] = Latencies(t.latencies);
  summary["tasks"] = t.tasks;
  summary["cold_starts"] = t.cold;
  summary["cold_start_pct"] = t.tasks ? 100.0 * t.cold / t.tasks : 0.0;
  summary["retries"] = t.retries;
  Json dags = Json::object();
  for (DagId d = 0; d < catalog.dags.size(); ++d) {
    dags[catalog.dags[d].name] = {
        {"requests", t.dag_count[d]},
        {"deadline_ms", static_cast<double>(catalog.dags[d].deadline) / net::kMillisecond},
        {"deadline_met_pct", t.dag_count[d] ? 100.0 * t.dag_met[d] / t.dag_count[d] : 0.0},
        {"latency_ms", Latencies(t.dag_latency[d])}};
  }
  summary["dags"] = dags;
  summary["client_wall_s"] = sent.wall_s;
  summary["client_cpu_s"] = sent.cpu_s;
  return summary;
}

// The platform's own view (GET /stats: sandbox memory, counters, measured durations and setup
// times) and the sandboxes' resident memory summed over the SGSs.
void AddPlatformStats(const LoadOptions& options, Json* summary) {
  httplib::Client client(options.host, options.port);
  client.set_read_timeout(10, 0);
  auto res = client.Get("/stats");
  Json platform;
  if (res && res->status == 200) {
    try {
      platform = Json::parse(res->body);
    } catch (const std::exception&) {
    }
  }
  double rss_mean = 0, rss_peak = 0;
  if (platform.is_object() && platform.contains("sgs")) {
    for (const Json& sgs : platform["sgs"]) {
      if (!sgs.contains("rss_bytes")) continue;
      rss_mean += sgs["rss_bytes"]["mean"].get<double>();
      rss_peak += sgs["rss_bytes"]["peak"].get<double>();
    }
  }
  (*summary)["sandbox_rss_mib"] = {{"mean_sum_over_sgs", rss_mean / (1 << 20)},
                                   {"peak_sum_over_sgs", rss_peak / (1 << 20)}};
  (*summary)["platform"] = platform;
}

}  // namespace

Json RunLoad(const Catalog& catalog, const LoadOptions& options, std::string* csv_rows) {
  if (!(options.burst_sigma >= 0 && options.burst_sigma <= 5) || options.burst_period <= 0) {
    throw UsageError("faas-load: need --burst-sigma in [0, 5] and --burst-period > 0");
  }
  if (options.rate_per_s <= 0 || options.requests < 1 || options.connections < 1 ||
      options.warmup < 0 || options.warmup >= options.requests) {
    throw UsageError(
        "faas-load: need --rate > 0, --requests >= 1, --connections >= 1 and "
        "0 <= --warmup < --requests");
  }
  Progress progress("faas-load", !options.quiet);
  const Sent sent = SendAll(catalog, options, progress);
  const Tally tally = TallyOutcomes(catalog, options, sent.outcomes, csv_rows);
  Json summary = SummaryJson(catalog, options, sent, tally);
  AddPlatformStats(options, &summary);
  progress.Final(std::to_string(tally.measured) + " measured requests, " +
                 std::to_string(tally.ok) + " ok, deadline met " +
                 FormatFixed(summary["deadline_met_pct"].get<double>(), 2) + "%");
  return summary;
}

}  // namespace jigsaw::faas
