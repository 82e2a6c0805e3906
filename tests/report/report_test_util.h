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
  const char* rows[] = {"0,0,1,5000,0,10,10", "1,0,2,500000,0,100,100", "2,1,2,20000000,0,,"};
  const char* extra[] = {",5,2", ",50,2", ",,"};
  for (int i = 0; i < 3; ++i) flows += std::string(rows[i]) + (timeseries ? extra[i] : "") + "\n";
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
      rows += std::to_string(rank) + ",0," + std::to_string(it) + ",0,2,2-2,0.1,0.01,0.0" +
              std::to_string(2 + rank) +
              ",0.001,0.05,1000,1000,1100,"
              "1100," +
              std::to_string(2.0 - 0.25 * it + 0.1 * rank) + ",1,1,1,100\n";
    }
  }
  WriteText(dir / "iterations.csv", rows);
  WriteText(dir / "evals.csv", "iteration,epoch,samples,test_accuracy\n2,0,100,0.3\n4,0,100,0.5\n");
}

}  // namespace jigsaw::report

#endif  // JIGSAW_TESTS_REPORT_REPORT_TEST_UTIL_H_
