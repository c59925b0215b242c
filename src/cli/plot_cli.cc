#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "cli/native_cli.h"
#include "core/error.h"
#include "core/wall_clock.h"
#include "plot/report.h"
#include "report/json_report.h"

namespace flowperf::cli {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  return name;
}

// What plot takes, said after each reason it refuses a file.
constexpr const char* kWhatToGive =
    "give flowperf --json or --json-stream output, or iperf3 -J output";

// The first line of text, cut to a length an error can quote.
std::string first_line(const std::string& text) {
  const size_t from = text.find_first_not_of(" \t\r\n");
  if (from == std::string::npos) return "";
  std::string line = text.substr(from, text.find('\n', from) - from);
  if (line.size() > 40) line = line.substr(0, 40) + "...";
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return line;
}

// A file of JSON: one document, or JSON lines (--json-stream) whose last
// "end" event holds the result. Errors name what is wrong with the file in
// words (not the JSON library's), and what to give.
nlohmann::json read_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(std::string("cannot read it: ") + std::strerror(errno));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string content = buf.str();
  const size_t start = content.find_first_not_of(" \t\r\n");
  if (start == std::string::npos)
    throw usage_error(std::string("the file is empty; ") + kWhatToGive);
  if (content[start] != '{')
    throw usage_error("not a result file: it does not start with '{' (it starts \"" +
                      first_line(content) + "\": text output?); " + kWhatToGive);
  try {
    return nlohmann::json::parse(content);
  } catch (const nlohmann::json::exception&) {
  }
  // JSON lines: the last "end" event's data.
  std::istringstream lines(content);
  std::string line;
  nlohmann::json end;
  size_t n = 0;
  while (std::getline(lines, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded())
      throw usage_error("line " + std::to_string(n) + " is not JSON (\"" + first_line(line) +
                        "\"): the file is neither one JSON document nor JSON lines, or was cut "
                        "short; " +
                        kWhatToGive);
    if (j.is_object() && j.value("event", "") == "end") end = j["data"];
  }
  if (end.is_null())
    throw usage_error("JSON lines but no \"end\" event: was the --json-stream run cut short?");
  return end;
}

// The run's date when its document has none: the file's or the run's.
void add_date(plot::Run& run, const std::string& what, std::time_t t) {
  for (const auto& [k, v] : run.facts)
    if (k == "date") return;
  run.facts.insert(run.facts.begin() + (run.facts.empty() ? 0 : 1),
                   {"date", core::utc_text(t, plot::kDateFormat) + what});
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << content;
  out.flush();
  if (!out) throw Error(ExitCode::kRuntime, "cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

int run_plot(const PlotArgs& a) {
  if (a.inputs.empty())
    throw usage_error("plot: give one or more result files (flowperf --json or iperf3 -J)");
  if (a.output.empty())
    throw usage_error("plot: give -o FILE: an .html report, or an .svg file for one chart");
  std::vector<plot::Run> runs;
  for (const auto& path : a.inputs) {
    try {
      runs.push_back(plot::read_run(read_document(path), base_name(path)));
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0) add_date(runs.back(), " (file written)", st.st_mtime);
    } catch (const Error& e) {
      throw Error(e.code(), "plot: " + path + ": " + e.what());
    }
  }
  if (a.output.ends_with(".svg")) {
    const auto charts = plot::charts_for(runs);
    if (charts.empty())
      throw Error(ExitCode::kRuntime,
                  "plot: nothing to draw: the results have no intervals (run with -i) and no "
                  "latency histogram");
    const plot::Chart* chosen = &charts.front();
    if (!a.chart.empty()) {
      chosen = nullptr;
      std::string names;
      for (const auto& c : charts) {
        if (c.id == a.chart) chosen = &c;
        names += (names.empty() ? "" : ", ") + c.id;
      }
      if (!chosen)
        throw usage_error("plot: --chart " + a.chart + ": these results have no such chart; " +
                          "they have: " + names);
    }
    write_file(a.output, plot::render_svg(*chosen, true));
    return 0;
  }
  if (!a.chart.empty())
    throw usage_error(
        "plot: --chart picks the one chart of an .svg output; an HTML report has "
        "them all");
  std::string title = a.title;
  if (title.empty())
    title = "flowperf report: " + runs.front().label + (runs.size() > 1 ? ", ..." : "");
  write_file(a.output, plot::html_report(runs, title));
  return 0;
}

void write_html_report(const results::TestResult& r, const std::string& path) {
  std::ostringstream json;
  report::write_result_json(json, r);
  const std::string test = spec::info(r.spec.test).name;
  std::vector<plot::Run> runs = plot::read_runs(nlohmann::json::parse(json.str()), test);
  for (auto& run : runs) add_date(run, " (report written)", std::time(nullptr));
  write_file(path, plot::html_report(runs, "flowperf " + test + " report"));
}

}  // namespace flowperf::cli
