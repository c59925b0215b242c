// Reading a monitor's /metrics (and Prometheus' API) over HTTP/1.0, as
// Prometheus does: what the monitor end-to-end tests share.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/net.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf::testing {

using namespace std::chrono_literals;

// Sends `request` and reads the whole answer (the server closes).
inline std::string http_exchange(int port, const std::string& request) {
  const int fd = connect_loopback(static_cast<uint16_t>(port), std::chrono::seconds(5)).release();
  if (fd < 0) return "";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// HTTP/1.0: the server answers and closes (Prometheus' server too).
inline std::string get(int port, const std::string& path) {
  const std::string r = http_exchange(port, "GET " + path + " HTTP/1.0\r\nHost: x\r\n\r\n");
  const auto body = r.find("\r\n\r\n");
  return body == std::string::npos ? "" : r.substr(body + 4);
}

// The value of the sample whose name and labels are exactly `series`, or -1.
inline double value_of(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::strtod(text.c_str() + at + series.size() + 2, nullptr);
}

inline std::string labels(const std::string& target, const std::string& test,
                          const std::string& direction, const std::string& extra = "") {
  return "{target=\"" + target + "\",test=\"" + test + "\",streams=\"1\",direction=\"" + direction +
         "\"" + (extra.empty() ? "" : "," + extra) + "}";
}

// Polls /metrics until `series` reaches `at_least` (or the time is up).
inline std::string wait_for(int port, const std::string& series, double at_least,
                            std::chrono::seconds limit = 30s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::string text;
  while (std::chrono::steady_clock::now() < end) {
    text = get(port, "/metrics");
    if (value_of(text, series) >= at_least) return text;
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << series << " did not reach " << at_least << " in:\n" << text;
  return text;
}

// Debian's prometheus package: the server and promtool.
inline const std::string kPrometheus = "/usr/bin/prometheus", kPromtool = "/usr/bin/promtool";
#define REQUIRE_PROMETHEUS()                                                                  \
  do {                                                                                        \
    if (::access(kPrometheus.c_str(), X_OK) != 0 || ::access(kPromtool.c_str(), X_OK) != 0) { \
      if (std::getenv("CI")) FAIL() << "no " << kPrometheus << " or " << kPromtool;           \
      GTEST_SKIP() << "no " << kPrometheus << " (apt install prometheus)";                    \
    }                                                                                         \
  } while (0)

// A real Prometheus scraping 127.0.0.1:`target` every second (job
// "flowperf"), its data in `dir`.
class Prometheus {
 public:
  Prometheus(const std::string& dir, int target) : web_(free_port()) {
    std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\nscrape_configs:\n"
                                              "  - job_name: flowperf\n    static_configs:\n"
                                              "      - targets: ['127.0.0.1:"
                                           << target << "']\n";
    proc_ = std::make_unique<Process>(std::vector<std::string>{
        kPrometheus, "--config.file=" + dir + "/prometheus.yml",
        "--storage.tsdb.path=" + dir + "/data",
        "--web.listen-address=127.0.0.1:" + std::to_string(web_), "--log.level=warn"});
  }
  // An instant query's result (an empty array when it failed).
  nlohmann::json query(const std::string& q) const {
    const nlohmann::json j =
        nlohmann::json::parse(get(web_, "/api/v1/query?query=" + q), nullptr, false);
    return j.is_object() && j.value("status", "") == "success" ? j["data"]["result"]
                                                               : nlohmann::json::array();
  }
  // Polls `q` until it has at least n series. Prometheus scrapes every 1 s
  // once it is up; 30 s is room for its start-up on a loaded machine.
  nlohmann::json wait_for_series(const std::string& q, size_t n) const {
    nlohmann::json series = nlohmann::json::array();
    for (int i = 0; i < 300 && series.size() < n; ++i) {
      series = query(q);
      std::this_thread::sleep_for(100ms);
    }
    return series;
  }

 private:
  int web_;
  std::unique_ptr<Process> proc_;
};

}  // namespace flowperf::testing
