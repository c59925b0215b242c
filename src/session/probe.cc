// Latency under load: a stream test with a request/response probe beside it
// (TestSpec::probe_rate_tps). Steps:
//
//   1. idle:   the probe alone, open loop at the probe rate, for the baseline;
//   2. loaded: the stream test, and from the moment it has started the probe
//              again on a connection of its own, until the streams end.
//
// Each is an ordinary test to the server (the flowperf control protocol
// twice over), so any flowperf server measures latency under load, and the
// probe crosses the same path as the streams: the same server address, the
// same queues.
#include <atomic>
#include <exception>
#include <memory>
#include <thread>

#include "core/error.h"
#include "session/controller.h"

namespace flowperf::session {
namespace {

// The probe test for a stream test: small requests, one at a time per
// schedule slot, Nagle off (a 1-byte request must not wait for an ACK).
spec::TestSpec probe_spec(const spec::TestSpec& s, double seconds) {
  spec::TestSpec p;
  p.test = s.probe_test;
  p.ip_family = s.ip_family;
  p.request_size = spec::kProbeMessageBytes;
  p.response_size = spec::kProbeMessageBytes;
  p.nodelay = true;
  p.streams = 1;
  p.threads = 1;
  p.rate_tps = s.probe_rate_tps;
  p.duration_s = seconds;
  p.local.data_host = s.local.data_host;  // the same path as the streams
  p.remote.data_host = s.remote.data_host;
  p.local.tos = s.local.tos;
  p.remote.tos = s.remote.tos;
  return p;
}

// The stream test as the server sees it: the probe is the client's business.
spec::TestSpec without_probe(spec::TestSpec s) {
  const spec::TestSpec plain;
  s.probe_rate_tps = plain.probe_rate_tps;
  s.probe_baseline_s = plain.probe_baseline_s;
  s.probe_test = plain.probe_test;
  return s;
}

// Probe tests print nothing and take no interval samples of their own.
ClientOptions quiet(const ClientOptions& o) {
  ClientOptions q;
  q.host = o.host;
  q.port = o.port;
  q.family = o.family;
  q.connect_timeout_s = o.connect_timeout_s;
  q.interrupt = o.interrupt;
  return q;
}

// The probe's run beside the streams, on a thread of its own.
class LoadedProbe {
 public:
  LoadedProbe(spec::TestSpec spec, ClientOptions o) : spec_(std::move(spec)), o_(std::move(o)) {
    o_.stop = &stop_;
  }
  ~LoadedProbe() { finish(); }
  LoadedProbe(const LoadedProbe&) = delete;
  LoadedProbe& operator=(const LoadedProbe&) = delete;

  void start() {
    thread_ = std::thread([this] {
      try {
        result_ = run_test(spec_, o_);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  // Ends the probe (if it still runs) and waits for its result.
  void finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::optional<TestResult>& result() { return result_; }
  const std::string& error() const { return error_; }

 private:
  spec::TestSpec spec_;
  ClientOptions o_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::optional<TestResult> result_;
  std::string error_;
};

}  // namespace

TestResult run_test_and_probe(const spec::TestSpec& s, const ClientOptions& o) {
  if (s.probe_rate_tps <= 0) return run_test(s, o);
  auto probe = std::make_shared<results::ProbeResult>();

  // 1. Idle: the probe alone. A failure here (no server) is the test's.
  probe->idle = run_test(probe_spec(s, s.probe_baseline_s), quiet(o));
  if (probe->idle->interrupted || !probe->idle->error.empty()) {
    TestResult r;
    r.spec = s;
    r.local = probe->idle->local;
    r.remote = probe->idle->remote;
    r.interrupted = probe->idle->interrupted;
    if (!probe->idle->error.empty()) r.error = "latency probe (idle): " + probe->idle->error;
    r.probe = std::move(probe);
    return r;
  }

  // 2. Loaded: the streams, and the probe once they run. A count-ended
  //    stream test has no known length: the probe runs until it is stopped.
  const double seconds = s.count > 0 ? 3600 : s.duration_s;
  LoadedProbe loaded(probe_spec(s, seconds), quiet(o));
  ClientOptions so = o;
  so.on_started = [&](const TestResult& started) {
    loaded.start();
    if (o.on_started) o.on_started(started);
  };
  TestResult r = run_test(without_probe(s), so);
  loaded.finish();
  r.spec = s;
  if (loaded.result()) {
    TestResult& p = *loaded.result();
    // Ended by the stop above (it was meant to); a user's interrupt is the stream test's.
    p.interrupted = false;
    if (!p.error.empty() && r.error.empty()) r.error = "latency probe (loaded): " + p.error;
    probe->loaded = std::move(p);
  } else if (!loaded.error().empty() && r.error.empty()) {
    r.error = "latency probe (loaded): " + loaded.error();
  }
  r.probe = std::move(probe);
  return r;
}

}  // namespace flowperf::session
