#include "report/report.h"

#include <set>

#include "core/error.h"
#include "core/limits.h"
#include "core/output.h"
#include "core/result_set.h"
#include "report/run_colors.h"
#include "report/vendored_js.h"

namespace jigsaw::report {
namespace {

// Metric names of the runs of `kind` (all runs when null), in first-seen order.
std::vector<std::string> MetricColumns(const Report& report, const RunKind* kind = nullptr) {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  for (size_t i = 0; i < report.runs.size(); ++i) {
    if (kind && report.runs[i].kind != *kind) continue;
    for (const auto& [key, value] : report.metrics[i].items()) {
      if (seen.insert(key).second) columns.push_back(key);
    }
  }
  return columns;
}

std::string CellText(const Json& row, const std::string& column) {
  if (!row.contains(column) || row[column].is_null()) return "";  // null: not reached
  const Json& value = row[column];
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON text safe inside <script type="application/json">: '<' only occurs in strings there.
std::string ScriptSafeJson(const Json& json) {
  const std::string text = json.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

constexpr char kStyle[] = R"css(
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.table { overflow: auto; max-width: 100%; max-height: 30em; margin-bottom: 1em;
  border: 1px solid #ccc; }
table { border-collapse: separate; border-spacing: 0; font-size: 0.85em; }
th, td { border-right: 1px solid #ddd; border-bottom: 1px solid #ddd; padding: 0.2em 0.5em;
  text-align: right; white-space: nowrap; background: #fff; }
th { position: sticky; top: 0; background: #f3f3f3; z-index: 1; }
th:first-child, td:first-child { text-align: left; position: sticky; left: 0; z-index: 2;
  max-width: 28em; overflow: hidden; text-overflow: ellipsis; }
th:first-child { z-index: 3; }
.hint { color: #777; font-size: 0.8em; margin: 0.2em 0; }
.chart { margin: 1em 0 2em 0; }
.note { color: #865; font-style: italic; }
#report-status { color: #555; font-size: 0.85em; }
)css";

// Installed before the bundle so its own errors are counted too.
constexpr char kErrorCatcher[] = R"js(
window.jigsawReportErrors = [];
window.addEventListener('error', function (e) {
  window.jigsawReportErrors.push('script error: ' + e.message);
});
window.addEventListener('unhandledrejection', function (e) {
  window.jigsawReportErrors.push('unhandled rejection: ' + e.reason);
});
)js";

constexpr char kRenderer[] = R"js(
(function () {
  var status = document.getElementById('report-status');
  var errors = window.jigsawReportErrors;
  function finish(charts, rendered) {
    status.dataset.charts = String(charts);
    status.dataset.rendered = String(rendered);
    status.dataset.errors = String(errors.length);
    status.dataset.state = 'done';
    status.textContent = rendered + ' of ' + charts + ' charts rendered' +
        (errors.length ? '; errors: ' + errors.join(' | ') : '');
    console.log('jigsaw-report: ' + status.textContent);
  }
  var specs;
  try {
    specs = JSON.parse(document.getElementById('report-specs').textContent);
  } catch (e) {
    errors.push('specs: ' + e);
    finish(0, 0);
    return;
  }
  if (typeof vegaEmbed !== 'function') {
    errors.push('vegaEmbed is not defined (the inlined bundle did not load)');
    finish(specs.length, 0);
    return;
  }
  var jobs = specs.map(function (spec, i) {
    var target = '#chart-' + i;
    return vegaEmbed(target, spec, {renderer: 'svg', actions: false}).then(function (result) {
      var svg = document.querySelector(target + ' svg');
      if (!svg || svg.querySelectorAll('path, rect, line, text').length === 0) {
        throw new Error('drew nothing');
      }
      return result;
    }).catch(function (e) {
      errors.push('chart-' + i + ' (' + (spec.title || '') + '): ' + e);
      throw e;
    });
  });
  Promise.allSettled(jobs).then(function (results) {
    finish(specs.length, results.filter(function (r) { return r.status === 'fulfilled'; }).length);
  });
})();
)js";

using SectionBuilder = Section (*)(const std::vector<const RunDir*>&, size_t, std::vector<Json>*);

// The section of each kind; faas-sim and faas-load runs share one (simulated beside real).
SectionBuilder BuilderOf(RunKind kind) {
  switch (kind) {
    case RunKind::kSim:
      return SimSection;
    case RunKind::kNet:
      return NetSection;
    case RunKind::kTrain:
      return TrainSection;
    case RunKind::kD2r:
      return D2rSection;
    case RunKind::kFaasSim:
    case RunKind::kFaasLoad:
      return FaasSection;
    case RunKind::kFl:
      return FlSection;
    case RunKind::kServeBench:
      return ServeBenchSection;
    case RunKind::kSweep:
      break;
  }
  return nullptr;
}

}  // namespace

Report BuildReport(const std::vector<std::string>& run_args, size_t max_points) {
  Report report;
  report.runs = ExpandRunDirs(run_args);
  report.metrics.resize(report.runs.size());
  std::vector<std::string> names;
  for (const RunDir& run : report.runs) names.push_back(run.name);
  const RunColors colors(names);
  for (RunKind kind : RunKinds()) {
    if (kind == RunKind::kFaasLoad) continue;  // built with faas-sim
    std::vector<const RunDir*> runs;
    std::vector<size_t> indices;
    for (size_t i = 0; i < report.runs.size(); ++i) {
      if (BuilderOf(report.runs[i].kind) != BuilderOf(kind)) continue;
      runs.push_back(&report.runs[i]);
      indices.push_back(i);
    }
    if (runs.empty()) continue;
    std::vector<Json> metrics;
    report.sections.push_back(BuilderOf(kind)(runs, max_points, &metrics));
    for (Chart& chart : report.sections.back().charts) colors.Apply(&chart.spec);
    for (size_t k = 0; k < indices.size(); ++k) report.metrics[indices[k]] = metrics[k];
  }
  return report;
}

std::string ComparisonCsv(const Report& report) {
  const std::vector<std::string> columns = MetricColumns(report);
  std::string out = "run,kind,path";
  for (const std::string& c : columns) out.append(",").append(CsvField(c));
  out += "\n";
  for (size_t i = 0; i < report.runs.size(); ++i) {
    const RunDir& run = report.runs[i];
    out += CsvField(run.name) + "," + RunKindName(run.kind) + "," + CsvField(run.path);
    for (const std::string& c : columns) {
      out.append(",").append(CsvField(CellText(report.metrics[i], c)));
    }
    out += "\n";
  }
  return out;
}

namespace {

bool AnyRunOf(const Report& report, RunKind kind) {
  for (const RunDir& run : report.runs) {
    if (run.kind == kind) return true;
  }
  return false;
}

}  // namespace

std::string ComparisonMarkdown(const Report& report) {
  auto cell = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out;
  for (RunKind kind : RunKinds()) {
    const std::vector<std::string> columns = MetricColumns(report, &kind);
    if (!AnyRunOf(report, kind)) continue;
    out.append(out.empty() ? "" : "\n").append("## ").append(RunKindName(kind)).append(" runs\n\n");
    out += "| run |";
    std::string rule = "|---|";
    for (const std::string& c : columns) {
      out.append(" ").append(cell(c)).append(" |");
      rule += "---:|";
    }
    out.append("\n").append(rule).append("\n");
    for (size_t i = 0; i < report.runs.size(); ++i) {
      if (report.runs[i].kind != kind) continue;
      out.append("| ").append(cell(report.runs[i].name)).append(" |");
      for (const std::string& c : columns) {
        out.append(" ").append(cell(CellText(report.metrics[i], c))).append(" |");
      }
      out += "\n";
    }
  }
  return out;
}

std::string ReportHtml(const Report& report) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>jigsaw report</title>\n<style>";
  html += kStyle;
  html += "</style>\n<script>";
  html += kErrorCatcher;
  html += "</script>\n<script>\n";
  html += kVegaJs;
  html += "\n</script>\n<script>\n";
  html += kVegaLiteJs;
  html += "\n</script>\n<script>\n";
  html += kVegaEmbedJs;
  html += "\n</script>\n</head>\n<body>\n<h1>jigsaw report</h1>\n";
  html += "<p>" + std::to_string(report.runs.size()) + " runs.</p>\n<h2>Comparison</h2>\n";
  for (RunKind kind : RunKinds()) {
    const std::vector<std::string> columns = MetricColumns(report, &kind);
    std::string rows;
    for (size_t i = 0; i < report.runs.size(); ++i) {
      const RunDir& run = report.runs[i];
      if (run.kind != kind) continue;
      rows += "<tr><td title=\"" + HtmlEscape(run.path) + "\">" + HtmlEscape(run.name) + "</td>";
      for (const std::string& c : columns) {
        rows += "<td>" + HtmlEscape(CellText(report.metrics[i], c)) + "</td>";
      }
      rows += "</tr>\n";
    }
    if (rows.empty()) continue;
    // Wide or long tables scroll inside their box; the header row and the run column stay.
    if (columns.size() > 8) {
      html += "<p class=\"hint\">" + std::to_string(columns.size()) +
              " columns: the table scrolls sideways; the run names stay in view.</p>\n";
    }
    html += "<div class=\"table\"><table>\n<thead><tr><th>" + std::string(RunKindName(kind)) +
            " run</th>";
    for (const std::string& c : columns) html += "<th>" + HtmlEscape(c) + "</th>";
    html += "</tr></thead>\n<tbody>\n" + rows + "</tbody></table></div>\n";
  }
  Json specs = Json::array();
  for (const Section& section : report.sections) {
    html += "<h2>" + HtmlEscape(section.heading) + "</h2>\n";
    for (const std::string& note : section.notes) {
      html += "<p class=\"note\">" + HtmlEscape(note) + "</p>\n";
    }
    for (const Chart& chart : section.charts) {
      html += "<div class=\"chart\" id=\"chart-" + std::to_string(specs.size()) +
              "\" data-title=\"" + HtmlEscape(chart.title) + "\"></div>\n";
      specs.push_back(chart.spec);
    }
  }
  html += "<p id=\"report-status\" data-state=\"pending\">rendering...</p>\n";
  html += "<h2>Licences of the inlined charting bundle</h2>\n<details><summary>";
  html += HtmlEscape(kVegaVersions) + "</summary>\n<pre>" + HtmlEscape(kVegaLicences) +
          "</pre></details>\n";
  html += "<script type=\"application/json\" id=\"report-specs\">" + ScriptSafeJson(specs) +
          "</script>\n<script>";
  html += kRenderer;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

size_t WriteReport(const std::vector<std::string>& run_args, const std::string& out,
                   size_t max_points) {
  const Report report = BuildReport(run_args, max_points);
  size_t charts = 0;
  for (const Section& section : report.sections) charts += section.charts.size();
  ResultSet files(out);
  files.Add("report.html", ReportHtml(report));
  files.Add("comparison.csv", ComparisonCsv(report));
  files.Add("comparison.md", ComparisonMarkdown(report));
  files.Commit();
  return charts;
}

}  // namespace jigsaw::report
