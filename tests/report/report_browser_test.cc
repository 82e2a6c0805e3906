// `jigsaw report` end to end: tiny sim runs (two policies), a net run, and run folders of train,
// d2r, faas-sim, faas-load, fl and serve-bench go in, report.html comes out and is opened in
// headless Chromium, which must draw every chart (the page's #report-status: every vegaEmbed
// promise resolved with a non-empty SVG, no script error); the rendered charts' count and labels
// (each chart's title, every run's name) are compared with the page's. Leaves the report and a
// screenshot in JIGSAW_REPORT_ARTIFACTS. Skipped when Chromium is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <vector>

#include "report_test_util.h"

namespace jigsaw::report {
namespace {

std::string FindChromium() {
  if (const char* env = std::getenv("JIGSAW_CHROMIUM"); env && *env) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    CommandResult found = RunShell(std::string("command -v ") + name + " 2>/dev/null");
    if (found.exit_code == 0 && !found.output.empty()) {
      return found.output.substr(0, found.output.find('\n'));
    }
  }
  return "";
}

std::string Attribute(const std::string& tag, const std::string& name) {
  std::smatch match;
  if (std::regex_search(tag, match, std::regex(" " + name + "=\"([^\"]*)\""))) return match[1];
  return "";
}

// The rendered text of chart `i` (its container up to the next chart's) in a DOM dump.
std::string ChartDom(const std::string& dom, size_t i) {
  const std::string id = "id=\"chart-" + std::to_string(i) + "\"";
  const size_t start = dom.find(id);
  if (start == std::string::npos) return "";
  const size_t next = dom.find("id=\"chart-", start + id.size());
  return dom.substr(start, next == std::string::npos ? std::string::npos : next - start);
}

std::string HtmlText(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  }
  return out;
}

TEST(ReportBrowser, EveryChartRendersInHeadlessChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "headless Chromium not found (Debian package chromium; scripts/setup.sh "
                    "installs it, or set JIGSAW_CHROMIUM): report.html was not checked in a "
                    "browser";
  }
  const auto dir = TempDir("browser");
  const std::string jigsaw = JIGSAW_BINARY;
  for (const char* policy : {"max_min_fairness", "shockwave"}) {
    const CommandResult sim =
        RunShell(jigsaw + " sim --jobs 30 --gpus 8 --seed 5 --quiet --policy " + policy +
                 " --out " + (dir / policy).string() + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
  }
  const CommandResult net =
      RunShell(jigsaw +
               " net --topology fattree:k=4,rate=100Gbps,delay=1us --cc dcqcn "
               "--traffic incast:6:500KB --quiet --out " +
               (dir / "incast").string() + " 2>&1");
  ASSERT_EQ(net.exit_code, 0) << net.output;
  WriteNetRun(dir / "net_timeseries", true);
  WriteTrainRun(dir / "train");
  WriteD2rRun(dir / "d2r", 1);
  WriteFaasSimRun(dir / "faas_sim");
  WriteFaasLoadRun(dir / "faas_load");
  WriteFlRun(dir / "fl");
  WriteServeBenchRun(dir / "serve_bench", 1);
  const std::vector<std::string> names = {
      "max_min_fairness", "shockwave", "incast", "net_timeseries", "train", "d2r",
      "faas_sim",         "faas_load", "fl",     "serve_bench"};
  std::string args;
  for (const std::string& name : names) args += " " + (dir / name).string();

  const std::filesystem::path artifacts = JIGSAW_REPORT_ARTIFACTS;
  std::filesystem::remove_all(artifacts);
  const CommandResult report =
      RunShell(jigsaw + " report" + args + " --out " + artifacts.string() + " 2>&1");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string html = Slurp(artifacts / "report.html");
  // The charts the page declares, with their titles.
  std::vector<std::string> titles;
  const std::regex chart_div("<div class=\"chart\" id=\"chart-[0-9]+\" data-title=\"([^\"]*)\">");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), chart_div);
       it != std::sregex_iterator(); ++it) {
    titles.push_back((*it)[1]);
  }
  // sim 5, net 5, train 4, d2r 4, faas 2, fl 4, serve-bench 3.
  EXPECT_EQ(titles.size(), 27u) << report.output;

  const std::string browser = "timeout 180 " + chromium +
                              " --headless --no-sandbox --disable-gpu --disable-quic "
                              "--no-first-run --disable-background-networking "
                              "--disable-component-update --disable-sync --user-data-dir=" +
                              (dir / "profile").string() + " --virtual-time-budget=60000 ";
  const std::string url = "file://" + (artifacts / "report.html").string();
  const CommandResult dom = RunShell(browser + "--dump-dom " + url + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0) << "chromium --dump-dom failed";
  std::smatch match;
  ASSERT_TRUE(std::regex_search(dom.output, match, std::regex("<p id=\"report-status\"[^>]*>")))
      << dom.output.substr(0, 2000);
  const std::string status = match[0];
  const size_t text_end = dom.output.find("</p>", match.position(0));
  const std::string text = dom.output.substr(match.position(0), text_end - match.position(0));
  EXPECT_EQ(Attribute(status, "data-state"), "done") << text;
  EXPECT_EQ(Attribute(status, "data-errors"), "0") << text;
  EXPECT_EQ(Attribute(status, "data-charts"), std::to_string(titles.size())) << text;
  EXPECT_EQ(Attribute(status, "data-rendered"), std::to_string(titles.size())) << text;
  // Each chart drew an SVG with marks, its own title, and the name of every run it shows (in
  // its legend or on its axis).
  std::set<std::string> runs_seen;
  for (size_t i = 0; i < titles.size(); ++i) {
    const std::string chart = ChartDom(dom.output, i);
    ASSERT_FALSE(chart.empty()) << "chart-" << i;
    EXPECT_NE(chart.find("<svg"), std::string::npos) << titles[i] << " has no SVG";
    EXPECT_NE(chart.find("<path"), std::string::npos) << titles[i] << " has no marks";
    EXPECT_NE(chart.find(">" + titles[i] + "<"), std::string::npos)
        << "chart-" << i << " does not show its title " << titles[i];
    for (const std::string& name : names) {
      if (chart.find(">" + HtmlText(name) + "<") != std::string::npos) runs_seen.insert(name);
    }
  }
  EXPECT_EQ(runs_seen, std::set<std::string>(names.begin(), names.end()));

  const std::filesystem::path screenshot = artifacts / "screenshot.png";
  const CommandResult shot = RunShell(browser +
                                      "--hide-scrollbars --window-size=1300,16000 "
                                      "--screenshot=" +
                                      screenshot.string() + " " + url + " 2>&1");
  EXPECT_EQ(shot.exit_code, 0) << shot.output;
  const std::string png = Slurp(screenshot);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  std::printf("report and screenshot: %s\n", artifacts.string().c_str());
  std::filesystem::remove_all(dir);
}

TEST(ReportCli, BadInputsExit2AndMaxPointsIsChecked) {
  const auto dir = TempDir("cli");
  const std::string jigsaw = JIGSAW_BINARY;
  CommandResult result = RunShell(jigsaw + " report " + (dir / "missing").string() + " --out " +
                                  (dir / "out").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find((dir / "missing").string() + ": expected a run folder"),
            std::string::npos)
      << result.output;
  WriteNetRun(dir / "net", false);
  WriteText(dir / "net/flows.csv", "flow,src,dst,bytes,start_us,end_us,fct_us\n0,0,1,10,0,1,x\n");
  result = RunShell(jigsaw + " report " + (dir / "net").string() + " --out " +
                    (dir / "out").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find((dir / "net/flows.csv").string() + ":2: column 7 (fct_us)"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "report.html"));
  // Without --out the report goes to out/report, as every subcommand's results go to out/<name>.
  result = RunShell(jigsaw + " report --help 2>&1");
  EXPECT_NE(result.output.find("--out TEXT=out/report"), std::string::npos) << result.output;

  WriteNetRun(dir / "net", true);
  result = RunShell(jigsaw + " report " + (dir / "net").string() + " --max-points 5 --out " +
                    (dir / "out").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--max-points must be in [10, 1000000]"), std::string::npos)
      << result.output;
  // 10 points per line: the 2-point CDFs stay whole, nothing says "downsampled".
  result = RunShell(jigsaw + " report " + (dir / "net").string() +
                    " --max-points 10 --quiet --out " + (dir / "out").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "");
  const std::string html = Slurp(dir / "out" / "report.html");
  EXPECT_NE(html.find("FCT CDF by flow size"), std::string::npos);
  EXPECT_EQ(html.find("downsampled"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jigsaw::report
