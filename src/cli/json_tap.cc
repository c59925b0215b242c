#include "cli/json_tap.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/json_report.h"

namespace flowperf::cli {

JsonTap::JsonTap() {
  if (const char* p = std::getenv("FLOWPERF_JSON")) path_ = p;
}

void JsonTap::add(const results::TestResult& r, const measure::ConfidenceLoop* loop) {
  if (!wanted()) return;
  std::ostringstream line;
  report::write_result_json_line(line, r, loop);
  lines_.push_back(line.str());
}

bool JsonTap::write() {
  if (!wanted() || lines_.empty()) return true;
  std::ofstream f(path_, std::ios::trunc);
  if (f) {
    if (lines_.size() == 1) {
      // As `flowperf --json` prints it (report::pretty_json of the document).
      f << report::pretty_json(nlohmann::json::parse(lines_.front())) << '\n';
    } else {
      for (const std::string& l : lines_) f << "{\"event\":\"end\",\"data\":" << l << "}\n";
    }
    f.flush();
  }
  if (!f) {
    const int e = errno;
    std::fprintf(stderr,
                 "flowperf: FLOWPERF_JSON=%s: cannot write the JSON document there (%s); give "
                 "a file in a directory that exists and that you may write to\n",
                 path_.c_str(), e ? std::strerror(e) : "write failed");
    return false;
  }
  return true;
}

}  // namespace flowperf::cli
