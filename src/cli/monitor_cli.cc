// `flowperf monitor CONFIG [--listen HOST:PORT]`: runs the configuration's
// schedule and serves its metrics until SIGINT or SIGTERM; SIGHUP reloads
// the file (a bad one keeps the running schedule and says why).
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>

#include "cli/native_cli.h"
#include "core/error.h"
#include "core/wall_clock.h"
#include "monitor/config.h"
#include "monitor/http.h"
#include "monitor/metrics.h"
#include "monitor/monitor.h"

namespace flowperf::cli {

int run_monitor(const std::string& config_path, const std::string& listen_arg) {
  monitor::Config config = monitor::load_config(config_path);
  const std::string listen = listen_arg.empty() ? config.listen : listen_arg;
  const auto [host, port] = monitor::split_host_port(listen, "--listen");

  // The signals wait for this thread's sigwaitinfo(); every thread started
  // from here on inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  std::mutex log_mu;
  auto log = [&log_mu](const std::string& line) {
    const std::string stamp = core::utc_text(std::time(nullptr), "%Y-%m-%dT%H:%M:%SZ");
    std::lock_guard lock(log_mu);
    std::fprintf(stderr, "%s flowperf monitor: %s\n", stamp.c_str(), line.c_str());
    std::fflush(stderr);
  };

  monitor::Metrics metrics;
  monitor::HttpServer http(host, port, [&metrics] { return metrics.render(); });
  http.start();
  std::printf("flowperf monitor: listening on %s (http://%s/metrics), %zu target%s from %s\n",
              http.address().c_str(), http.address().c_str(), config.targets.size(),
              config.targets.size() == 1 ? "" : "s", config_path.c_str());
  std::fflush(stdout);

  auto running = std::make_unique<monitor::Monitor>(std::move(config), metrics, log);
  running->start();
  for (;;) {
    const int sig = sigwaitinfo(&set, nullptr);
    if (sig == SIGINT || sig == SIGTERM) break;
    if (sig != SIGHUP) continue;
    try {
      monitor::Config fresh = monitor::load_config(config_path);
      if (fresh.listen != running->config().listen && listen_arg.empty())
        log("listen: " + fresh.listen + " takes effect at the next start; still serving on " +
            http.address());
      running->stop();
      const size_t n = fresh.targets.size();
      running = std::make_unique<monitor::Monitor>(std::move(fresh), metrics, log);
      running->start();
      metrics.record_reload(true);
      log("reloaded " + config_path + ": " + std::to_string(n) + " target" + (n == 1 ? "" : "s"));
    } catch (const std::exception& e) {
      metrics.record_reload(false);
      log(std::string("reload failed, the running configuration stays: ") + e.what());
    }
  }
  log("stopping");
  running->stop();
  return 0;
}

}  // namespace flowperf::cli
