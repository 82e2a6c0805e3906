// Charts of `jigsaw train` runs: iterations.csv (loss, per-worker backward time and bytes) and
// evals.csv (test accuracy); columns in docs/runtime.md.
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

struct Sum {
  double total = 0;
  int count = 0;
  void Add(double v) {
    total += v;
    ++count;
  }
  double Mean() const { return count ? total / count : 0; }
};

struct TrainData {
  std::vector<Point> loss;  // mean over ranks per iteration
  std::vector<Point> accuracy;
  bool has_evals = false;
  std::map<int, Sum> backward, iter, wire_sent, bytes_sent;  // per rank
};

TrainData ReadTrain(const RunDir& run) {
  TrainData data;
  const CsvTable rows = CsvTable::Read(run.path + "/iterations.csv");
  const size_t rank = rows.Column("rank"), iteration = rows.Column("iteration"),
               loss = rows.Column("loss"), backward = rows.Column("backward_s"),
               iter_s = rows.Column("iter_s"), wire = rows.Column("wire_sent"),
               sent = rows.Column("bytes_sent");
  std::map<double, Sum> loss_by_iteration;
  for (size_t r = 0; r < rows.rows(); ++r) {
    const int k = static_cast<int>(rows.Number(r, rank));
    loss_by_iteration[rows.Number(r, iteration)].Add(rows.Number(r, loss));
    data.backward[k].Add(rows.Number(r, backward));
    data.iter[k].Add(rows.Number(r, iter_s));
    data.wire_sent[k].Add(rows.Number(r, wire));
    data.bytes_sent[k].Add(rows.Number(r, sent));
  }
  for (const auto& [i, sum] : loss_by_iteration) data.loss.push_back({i, sum.Mean()});
  const std::string evals_path = run.path + "/evals.csv";
  std::error_code error;
  if ((data.has_evals = std::filesystem::is_regular_file(evals_path, error))) {
    const CsvTable evals = CsvTable::Read(evals_path);
    const size_t at = evals.Column("iteration");
    const size_t accuracy = evals.Column(evals.Has("accuracy") ? "accuracy" : "test_accuracy");
    for (size_t r = 0; r < evals.rows(); ++r) {
      data.accuracy.push_back({evals.Number(r, at), evals.Number(r, accuracy)});
    }
    std::sort(data.accuracy.begin(), data.accuracy.end(),
              [](const Point& a, const Point& b) { return a.x < b.x; });
  }
  return data;
}

}  // namespace

Section TrainSection(const std::vector<const RunDir*>& runs, size_t max_points,
                     std::vector<Json>* metrics) {
  Section section;
  section.heading = "Training runs (jigsaw train)";
  const size_t max = max_points;
  Json loss_rows = Json::array(), accuracy_rows = Json::array(), backward_rows = Json::array(),
       bytes_rows = Json::array();
  std::vector<Series> loss_series, accuracy_series;
  std::vector<std::string> no_evals;
  for (const RunDir* run : runs) {
    const TrainData data = ReadTrain(*run);
    loss_series.push_back(Downsample(data.loss, max));
    for (const Point& p : loss_series.back().points) {
      loss_rows.push_back({{"run", run->name}, {"iteration", p.x}, {"loss", p.y}});
    }
    if (data.has_evals) {
      accuracy_series.push_back(Downsample(data.accuracy, max));
      for (const Point& p : accuracy_series.back().points) {
        accuracy_rows.push_back({{"run", run->name}, {"iteration", p.x}, {"accuracy", p.y}});
      }
    } else {
      no_evals.push_back(run->name);
    }
    std::vector<double> backward_means, wire_means;
    for (const auto& [rank, sum] : data.backward) {
      backward_rows.push_back({{"run", run->name}, {"rank", rank}, {"backward_s", sum.Mean()}});
      backward_means.push_back(sum.Mean());
    }
    for (const auto& [rank, sum] : data.wire_sent) {
      bytes_rows.push_back({{"run", run->name},
                            {"rank", rank},
                            {"bytes", sum.Mean()},
                            {"figure", "measured (wire_sent)"},
                            {"series", run->name + " measured"}});
      bytes_rows.push_back({{"run", run->name},
                            {"rank", rank},
                            {"bytes", data.bytes_sent.at(rank).Mean()},
                            {"figure", "estimate (bytes_sent)"},
                            {"series", run->name + " estimate"}});
      wire_means.push_back(sum.Mean());
    }
    Json row = {{"workers", data.backward.size()}, {"iterations", data.loss.size()}};
    if (!data.loss.empty()) row["final_loss"] = RoundTo(data.loss.back().y, 5);
    if (!data.accuracy.empty()) row["final_accuracy"] = RoundTo(data.accuracy.back().y, 4);
    if (!backward_means.empty()) {
      row["mean_backward_s"] = RoundTo(Mean(backward_means), 6);
      row["slowest_worker_backward_s"] = RoundTo(Max(backward_means), 6);
      row["mean_wire_sent_per_iter"] = RoundTo(Mean(wire_means), 0);
    }
    metrics->push_back(row);
  }
  auto note = [&](const std::vector<Series>& series) {
    std::vector<const Series*> pointers;
    for (const Series& s : series) pointers.push_back(&s);
    return DownsampleNote(pointers, max);
  };
  AddChart(&section,
           LineSpec("Training loss (mean over workers)" + note(loss_series), std::move(loss_rows),
                    {"iteration", "iteration"}, {"loss", "loss"}, ColorBy("run")));
  if (!accuracy_series.empty()) {
    AddChart(&section,
             LineSpec("Test accuracy" + note(accuracy_series), std::move(accuracy_rows),
                      {"iteration", "iteration"}, {"accuracy", "accuracy"}, ColorBy("run")));
  }
  if (!no_evals.empty()) {
    std::string names;
    for (const std::string& n : no_evals) names += (names.empty() ? "" : ", ") + n;
    section.notes.push_back("Test accuracy: no evals.csv in " + names + ".");
  }
  AddChart(&section,
           GroupedBarsSpec("Mean backward time per worker", std::move(backward_rows),
                           {"rank", "worker rank"}, {"backward_s", "backward (s)"}, "run"));
  // Coloured by run like every chart; the measured bar solid, the estimate beside it pale.
  Json bytes = GroupedBarsSpec("Bytes sent per iteration per worker: measured and estimated",
                               std::move(bytes_rows), {"rank", "worker rank"},
                               {"bytes", "bytes per iteration"}, "run");
  bytes["encoding"]["xOffset"]["field"] = "series";
  bytes["encoding"]["opacity"] = {{"field", "figure"},
                                  {"type", "nominal"},
                                  {"scale", {{"range", {1.0, 0.4}}}},
                                  {"legend", {{"title", "figure"}, {"orient", "bottom"}}}};
  AddChart(&section, std::move(bytes));
  return section;
}

}  // namespace jigsaw::report
