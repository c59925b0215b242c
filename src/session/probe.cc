// Tests a client runs as several to one server, each an ordinary test to
// it (the flowperf control protocol over again), so any flowperf server
// carries them:
//
// * latency under load (TestSpec::probe_rate_tps): a stream test with a
//   request/response probe beside it, in two steps:
//     1. idle:   the probe alone, open loop at the probe rate, for the
//                baseline;
//     2. loaded: the stream test, and from the moment it has started the
//                probe again on a connection of its own, until the streams
//                end.
//   The probe crosses the same path as the streams: the same server and
//   data addresses, the same queues.
// * both directions at once (TestSpec::bidir): beside a TCP_STREAM, a
//   TCP_MAERTS with the same streams and options (or the other way round),
//   started with it and stopped when it ends.
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

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

// The stream test as the server sees it: the probe and the other direction
// are the client's business.
spec::TestSpec plain_test(spec::TestSpec s) {
  const spec::TestSpec plain;
  s.probe_rate_tps = plain.probe_rate_tps;
  s.probe_baseline_s = plain.probe_baseline_s;
  s.probe_test = plain.probe_test;
  s.bidir = plain.bidir;
  return s;
}

// The other direction of a bidirectional stream test.
spec::TestSpec reverse_test(const spec::TestSpec& s) {
  spec::TestSpec r = plain_test(s);
  r.test = s.test == spec::TestKind::kTcpStream ? spec::TestKind::kTcpMaerts
                                                : spec::TestKind::kTcpStream;
  return r;
}

// The options of a test run beside the streams: the same server and the
// same Ctrl-C, and nothing printed of its own.
ClientOptions quiet(ClientOptions o) {
  o.on_started = nullptr;
  o.on_interval = nullptr;
  o.stop = nullptr;
  return o;
}

// A test run beside another, on a thread of its own, until it is stopped.
class Beside {
 public:
  Beside(spec::TestSpec spec, ClientOptions o) : spec_(std::move(spec)), o_(std::move(o)) {
    o_.stop = &stop_;
  }
  ~Beside() { finish(); }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;

  void start() {
    thread_ = std::thread([this] {
      try {
        result_ = run_test(spec_, o_);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  // Ends the test (if it still runs) and waits for its result.
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

// Runs the streams with whatever goes beside them: `probe` (a loaded
// probe) and the other direction (s.bidir). Both start once the streams
// run and stop when they end.
TestResult run_loaded(const spec::TestSpec& s, const ClientOptions& o,
                      results::ProbeResult* probe) {
  std::optional<Beside> loaded, reverse;
  // A count-ended stream test has no known length: what runs beside it
  // runs until it is stopped.
  const double seconds = s.count > 0 ? 3600 : s.duration_s;
  if (probe) loaded.emplace(probe_spec(s, seconds), quiet(o));
  if (s.bidir) {
    spec::TestSpec back = reverse_test(s);
    back.duration_s = seconds;
    back.count = 0;
    reverse.emplace(std::move(back), quiet(o));
  }
  ClientOptions so = o;
  so.on_started = [&](const TestResult& started) {
    if (reverse) reverse->start();
    if (loaded) loaded->start();
    if (!o.on_started) return;
    TestResult shown = started;  // the test as asked, not as the server was sent it
    shown.spec = s;
    o.on_started(shown);
  };
  TestResult r = run_test(plain_test(s), so);
  r.spec = s;
  // Ended by the stop (as they were meant to be); a user's interrupt is the
  // stream test's.
  auto take = [&](Beside& b, const char* what) -> std::optional<TestResult> {
    b.finish();
    if (!b.result()) {
      if (!b.error().empty() && r.error.empty()) r.error = std::string(what) + ": " + b.error();
      return std::nullopt;
    }
    TestResult& t = *b.result();
    t.interrupted = false;
    if (!t.error.empty() && r.error.empty()) r.error = std::string(what) + ": " + t.error;
    return std::move(t);
  };
  if (reverse) {
    if (auto back = take(*reverse, "the other direction")) {
      // It ran as long as the streams did, not the hour it was given.
      back->spec.duration_s = s.count > 0 ? back->local_side.elapsed_s : s.duration_s;
      r.reverse = std::make_shared<const TestResult>(std::move(*back));
    }
  }
  if (loaded) probe->loaded = take(*loaded, "latency probe (loaded)");
  return r;
}

}  // namespace

TestResult run_test_and_probe(const spec::TestSpec& s, const ClientOptions& o) {
  if (s.probe_rate_tps <= 0) return s.bidir ? run_loaded(s, o, nullptr) : run_test(s, o);
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

  // 2. Loaded: the streams, and the probe once they run.
  TestResult r = run_loaded(s, o, probe.get());
  r.probe = std::move(probe);
  return r;
}

}  // namespace flowperf::session
