// Helpers shared by the report tests: temp folders (named with the pid), files, commands.
#ifndef JIGSAW_TESTS_REPORT_REPORT_TEST_UTIL_H_
#define JIGSAW_TESTS_REPORT_REPORT_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util/shell.h"

namespace jigsaw::report {

using test_util::CommandResult;
using test_util::RunShell;
using test_util::Slurp;

inline std::filesystem::path TempDir(const std::string& name) {
  return test_util::FreshTempDir("jigsaw_report_", name);
}

inline void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A small sim run folder as `jigsaw sim --out` writes it (delta rounds.csv).
inline void WriteSimRun(const std::filesystem::path& dir, double scale) {
  WriteText(dir / "summary.json",
            "{\"policy\": \"p\", \"gpus\": 4, \"jobs\": 3, \"makespan_s\": " +
                std::to_string(300 * scale) +
                ", \"avg_jct_s\": 150.0, \"worst_ftf_rho\": 1.5, \"cluster_efficiency\": 0.6}\n");
  WriteText(dir / "jobs.csv",
            "job_id,job_type,scale_factor,mode,arrival_s,start_s,finish_s,jct_s,isolated_s,rho,"
            "gpu_s,rounds_run,final_batch_size,ended_at_deadline\n"
            "0,\"ResNet-18 (batch size 32)\",1,static,0,0,100,100,100,0.5,100,1,32,0\n"
            "1,\"A, quoted \"\"type\"\"\",2,static,0,0,300,300,100,1.5,600,3,32,0\n"
            "2,\"LM\",1,static,10,10,60,50,50,0.5,50,1,32,0\n");
  WriteText(dir / "rounds.csv",
            "round,start_s,end_s,active_jobs,gpus_used,started_jobs,stopped_jobs\n"
            "0,0,100,2,3,0 1,\n"
            "1,100,200,2,2,,0\n"
            "2,200,300,1,2,,\n");
}

inline void WriteNetRun(const std::filesystem::path& dir, bool timeseries) {
  WriteText(dir / "summary.json", "{\"topology\": \"rack\", \"flows\": 3}\n");
  std::string flows = "flow,src,dst,bytes,start_us,end_us,fct_us";
  flows += timeseries ? ",ideal_fct_us,slowdown\n" : "\n";
  const char* rows[] = {"0,0,1,5000,0,10,10", "1,0,2,500000,0,100,100", "2,1,2,20000000,0,,",
                        "3,1,0,6000,0,20,20"};
  const char* extra[] = {",5,2", ",50,2", ",,", ",10,2"};
  for (int i = 0; i < 4; ++i) flows += std::string(rows[i]) + (timeseries ? extra[i] : "") + "\n";
  WriteText(dir / "flows.csv", flows);
  if (!timeseries) return;
  WriteText(dir / "timeseries/queue.csv",
            "time_us,node,port,queue_bytes\n1,4,0,1000\n1,4,1,3000\n2,4,0,500\n");
  WriteText(dir / "timeseries/pfc.csv",
            "node,port,priority,start_us,end_us\n4,0,3,1,5\n4,1,3,2,3\n");
}

inline void WriteTrainRun(const std::filesystem::path& dir) {
  WriteText(dir / "summary.json", "{\"model\": \"m\"}\n");
  std::string rows =
      "rank,epoch,iteration,phase,depth,contributors,lr,forward_s,backward_s,comm_s,iter_s,"
      "bytes_sent,bytes_received,wire_sent,wire_received,loss,activation_mb,exchange_mb,state_mb,"
      "peak_rss_mb\n";
  for (int it = 0; it < 4; ++it) {
    for (int rank = 0; rank < 2; ++rank) {
      rows += std::to_string(rank) + ",0," + std::to_string(it) + ",full,2,2-2,0.1,0.01,0.0" +
              std::to_string(2 + rank) +
              ",0.001,0.05,1000,1000,1100,"
              "1100," +
              std::to_string(2.0 - 0.25 * it + 0.1 * rank) + ",1,1,1,100\n";
    }
  }
  WriteText(dir / "iterations.csv", rows);
  WriteText(dir / "evals.csv", "iteration,epoch,samples,test_accuracy\n2,0,100,0.3\n4,0,100,0.5\n");
}

// A d2r run of two failure scenarios and two schemes (scenarios.csv as `jigsaw d2r` writes it).
inline void WriteD2rRun(const std::filesystem::path& dir, double scale) {
  WriteText(dir / "summary.json", "{\"topology\": \"t.graphml\", \"scenarios\": 2}\n");
  std::string csv =
      "scenario,scheme,flows_affected,flows_recoverable,recovery_us,reaction_us,"
      "recovery_median_us,lost,lost_unavoidable,lost_stranded,lost_stranded_before_news,"
      "dropped_no_continuation,held,peak_held,buffer_overflow,violating_flows,noncompliant_"
      "packets,not_restored,stretch_sum,stretch_flows,work,recovery_bounded_us,"
      "lost_way_out_before_notice\n";
  for (int s = 0; s < 2; ++s) {
    for (const char* scheme : {"d2r", "controller"}) {
      const double recovery = (scheme[0] == 'd' ? 100 : 5000) * scale * (1 + s);
      csv += "\"link:a-b" + std::to_string(s) + "\"," + scheme + ",3,3," +
             std::to_string(recovery) + ",50,40," + std::to_string(10 + s) +
             ",2,0,0,0,5,3,0,0,0,0,3,3,7," + std::to_string(recovery / 2) + ",0\n";
    }
  }
  WriteText(dir / "scenarios.csv", csv);
}

// A faas-sim run with two platforms (results with latency quantiles) and one that measured
// nothing.
inline void WriteFaasSimRun(const std::filesystem::path& dir) {
  WriteText(dir / "results.csv", "platform,policy,requests\narchipelago,rlsf,100\n");
  WriteText(dir / "summary.json", R"({"format": "jigsaw-faas-sim-v1", "results": [
    {"platform": "archipelago", "policy": "rlsf", "measured": 90, "deadline_met_pct": 99.5,
     "p50_ms": 20, "p99_ms": 80, "p999_ms": 90, "max_ms": 95,
     "latency_quantiles_ms": [[0.01, 5], [0.5, 20], [0.99, 80], [1.0, 95]]},
    {"platform": "openwhisk", "policy": "fifo", "measured": 90, "deadline_met_pct": 90.0,
     "p50_ms": 30, "p99_ms": 400, "p999_ms": 500, "max_ms": 600},
    {"platform": "sparrow", "policy": "fifo", "measured": 0, "deadline_met_pct": 0}]}
)");
}

// A faas-load run against the real platform (openwhisk mode).
inline void WriteFaasLoadRun(const std::filesystem::path& dir) {
  WriteText(dir / "summary.json",
            "{\"format\": \"jigsaw-faas-load-v1\", \"measured\": 3, \"deadline_met_pct\": "
            "66.7, \"platform\": {\"platform\": \"openwhisk\"}}\n");
  WriteText(dir / "requests.csv",
            "index,dag,status,latency_ms,deadline_ms,met,tasks,cold_starts,retries,error\n"
            "0,a,200,12.5,100,1,1,0,0,\n1,a,200,250,100,0,1,1,0,\n2,a,,0,100,0,0,0,0,dropped\n"
            "3,a,200,40,100,1,1,0,0,\n");
}

// An fl run of four rounds, evaluated every second round, with two cohorts at the end.
inline void WriteFlRun(const std::filesystem::path& dir) {
  WriteText(dir / "summary.json",
            "{\"algorithm\": \"auxo+fedavg\", \"final_mean_accuracy\": 0.6, "
            "\"rounds_to_target\": null}\n");
  WriteText(dir / "rounds.csv",
            "round,cohorts,participants,dropped,train_loss,simulated_s,wall_s,mean_accuracy,"
            "worst10_accuracy,accuracy_stddev,rejected,lost_clients\n"
            "1,1,10,0,2.0,1,1,,,,0,\n2,1,10,0,1.5,2,2,0.4,0.2,0.1,0,\n"
            "3,2,10,0,1.2,3,3,,,,0,\n4,2,10,0,1.0,4,4,0.6,0.3,0.1,0,\n");
  WriteText(dir / "clients.csv",
            "client,group,cohort,accuracy\nw0,0,0,0.5\nw1,0,0,0.6\nw2,1,1,0.7\n");
}

// A serve-bench run (its summary.json); `agreement` null as without --reference.
inline void WriteServeBenchRun(const std::filesystem::path& dir, double scale) {
  WriteText(
      dir / "summary.json",
      "{\"cache\": \"knn\", \"sent\": 100, \"ok\": 100, \"mean_ms\": " + std::to_string(2 * scale) +
          ", \"p50_ms\": 1.5, \"p99_ms\": " + std::to_string(9 * scale) +
          ", \"max_ms\": 12, \"accuracy\": 0.9, \"agreement\": null, "
          "\"mean_blocks\": 2.5, \"blocks\": 4, \"answered_after_blocks\": [40, 10, 0, "
          "50]}\n");
}

}  // namespace jigsaw::report

#endif  // JIGSAW_TESTS_REPORT_REPORT_TEST_UTIL_H_
