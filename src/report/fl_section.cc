// Charts of `jigsaw fl` runs: rounds.csv (test accuracy of the evaluated rounds, mean and worst
// 10 % of clients; cohorts; training loss) and clients.csv (clients per cohort at the end).
#include <cmath>
#include <map>

#include "report/charts.h"
#include "report/csv_table.h"
#include "report/sections.h"
#include "report/series.h"

namespace jigsaw::report {
namespace {

struct FlData {
  std::vector<Point> mean_accuracy, worst_accuracy, cohorts, loss;
  std::map<double, double> clients_per_cohort;
};

FlData ReadFl(const RunDir& run) {
  FlData data;
  const CsvTable rounds = CsvTable::Read(run.path + "/rounds.csv");
  const size_t round = rounds.Column("round"), cohorts = rounds.Column("cohorts"),
               loss = rounds.Column("train_loss"), mean = rounds.Column("mean_accuracy"),
               worst = rounds.Column("worst10_accuracy");
  for (size_t r = 0; r < rounds.rows(); ++r) {
    const double x = rounds.Number(r, round);
    data.cohorts.push_back({x, rounds.Number(r, cohorts)});
    data.loss.push_back({x, rounds.Number(r, loss)});
    // Rounds without an evaluation leave the accuracy columns empty.
    if (!std::isnan(rounds.Number(r, mean)))
      data.mean_accuracy.push_back({x, rounds.Number(r, mean)});
    if (!std::isnan(rounds.Number(r, worst))) {
      data.worst_accuracy.push_back({x, rounds.Number(r, worst)});
    }
  }
  const CsvTable clients = CsvTable::Read(run.path + "/clients.csv");
  const size_t cohort = clients.Column("cohort");
  for (size_t r = 0; r < clients.rows(); ++r) data.clients_per_cohort[clients.Number(r, cohort)]++;
  return data;
}

}  // namespace

Section FlSection(const std::vector<const RunDir*>& runs, size_t max_points,
                  std::vector<Json>* metrics) {
  Section section;
  section.heading = "Federated learning runs (jigsaw fl)";
  Json accuracy_rows = Json::array(), cohort_rows = Json::array(), loss_rows = Json::array(),
       client_rows = Json::array();
  std::vector<Series> kept;
  for (const RunDir* run : runs) {
    const FlData data = ReadFl(*run);
    for (const auto& [name, points] :
         {std::pair{"mean", &data.mean_accuracy}, {"worst 10% of clients", &data.worst_accuracy}}) {
      kept.push_back(Downsample(*points, max_points));
      for (const Point& p : kept.back().points) {
        accuracy_rows.push_back(
            {{"run", run->name}, {"round", p.x}, {"accuracy", p.y}, {"clients", name}});
      }
    }
    kept.push_back(Downsample(data.cohorts, max_points));
    for (const Point& p : kept.back().points) {
      cohort_rows.push_back({{"run", run->name}, {"round", p.x}, {"cohorts", p.y}});
    }
    kept.push_back(Downsample(data.loss, max_points));
    for (const Point& p : kept.back().points) {
      loss_rows.push_back({{"run", run->name}, {"round", p.x}, {"loss", p.y}});
    }
    for (const auto& [cohort, count] : data.clients_per_cohort) {
      client_rows.push_back({{"run", run->name}, {"cohort", cohort}, {"clients", count}});
    }
    Json row = {{"rounds", data.loss.size()}, {"cohorts", data.clients_per_cohort.size()}};
    for (const char* key : {"algorithm", "final_mean_accuracy", "final_worst10_accuracy",
                            "rounds_to_target", "ari", "purity"}) {
      if (run->summary.contains(key)) row[key] = run->summary[key];
    }
    metrics->push_back(row);
  }
  std::vector<const Series*> pointers;
  for (const Series& s : kept) pointers.push_back(&s);
  const std::string note = DownsampleNote(pointers, max_points);
  LineOptions by_run = ColorBy("run");
  by_run.dash = "clients";
  AddChart(&section,
           LineSpec("Test accuracy over rounds (evaluated rounds)" + note, std::move(accuracy_rows),
                    {"round", "round"}, {"accuracy", "test accuracy"}, by_run));
  AddChart(&section, LineSpec("Cohorts over rounds" + note, std::move(cohort_rows),
                              {"round", "round"}, {"cohorts", "cohorts"}, ColorBy("run", true)));
  AddChart(&section,
           LineSpec("Training loss over rounds" + note, std::move(loss_rows), {"round", "round"},
                    {"loss", "mean local training loss"}, ColorBy("run")));
  AddChart(&section,
           GroupedBarsSpec("Clients per cohort at the end (clients.csv)", std::move(client_rows),
                           {"cohort", "cohort"}, {"clients", "clients"}, "run"));
  return section;
}

}  // namespace jigsaw::report
