// `jigsaw report` end to end: tiny sim runs (two policies), a net run and a train-shaped run go in,
// report.html comes out and is opened in headless Chromium, which must draw every chart (the
// page's #report-status: every vegaEmbed promise resolved with a non-empty SVG, no script error).
// Leaves the report and a screenshot in JIGSAW_REPORT_ARTIFACTS. Skipped when Chromium is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

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
  // Until `jigsaw net --timeseries` exists on this branch: a net run with the slowdown column and
  // timeseries/ files of /work/notes/s3/contract.md, so those charts are drawn too.
  WriteNetRun(dir / "net_timeseries", true);
  WriteTrainRun(dir / "train");

  const std::filesystem::path artifacts = JIGSAW_REPORT_ARTIFACTS;
  std::filesystem::remove_all(artifacts);
  const CommandResult report =
      RunShell(jigsaw + " report " + (dir / "max_min_fairness").string() + " " +
               (dir / "shockwave").string() + " " + (dir / "incast").string() + " " +
               (dir / "net_timeseries").string() + " " + (dir / "train").string() + " --out " +
               artifacts.string() + " 2>&1");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string html = Slurp(artifacts / "report.html");
  size_t divs = 0;
  for (size_t at = 0; (at = html.find("<div class=\"chart\" id=\"chart-", at)) != std::string::npos;
       ++at) {
    ++divs;
  }
  EXPECT_EQ(divs, 14u);  // sim 5, net 5, train 4

  const std::string browser = "timeout 180 " + chromium +
                              " --headless --no-sandbox --disable-gpu --no-first-run "
                              "--user-data-dir=" +
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
  EXPECT_EQ(Attribute(status, "data-charts"), std::to_string(divs)) << text;
  EXPECT_EQ(Attribute(status, "data-rendered"), std::to_string(divs)) << text;
  // Each chart's own container holds an SVG with marks.
  for (size_t i = 0; i < divs; ++i) {
    const std::string id = "id=\"chart-" + std::to_string(i) + "\"";
    const size_t start = dom.output.find(id);
    ASSERT_NE(start, std::string::npos) << id;
    const size_t next = dom.output.find("id=\"chart-", start + id.size());
    const std::string chart =
        dom.output.substr(start, next == std::string::npos ? std::string::npos : next - start);
    EXPECT_NE(chart.find("<svg"), std::string::npos) << id << " has no SVG";
    EXPECT_NE(chart.find("<path"), std::string::npos) << id << " has no marks";
  }

  const std::filesystem::path screenshot = artifacts / "screenshot.png";
  const CommandResult shot = RunShell(browser +
                                      "--hide-scrollbars --window-size=1300,5000 "
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
  result = RunShell(jigsaw + " report " + (dir / "net").string() + " 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--out is required"), std::string::npos) << result.output;

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
