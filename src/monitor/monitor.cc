#include "monitor/monitor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "core/error.h"
#include "report/summary.h"
#include "session/controller.h"
#include "session/iperf3_client.h"
#include "session/netperf_client.h"
#include "session/qperf_client.h"

namespace flowperf::monitor {
namespace {

using Clock = std::chrono::steady_clock;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string series_name(const Target& t, const Test& test) {
  return t.name + " " + test.label_test + " streams=" + std::to_string(test.spec.streams);
}

SeriesKey key_of(const Target& t, const Test& test) {
  return {.target = t.name,
          .test = test.label_test,
          .direction = test.direction,
          .streams = test.spec.streams};
}

// One test against the target, through the client of its protocol (the
// same clients the personalities run). Throws what the client throws when
// the test cannot start.
results::TestResult run_one(const Target& t, const Test& test, const std::atomic<bool>* stop) {
  const spec::TestSpec& s = test.spec;
  const auto whole_seconds = [](double d) { return static_cast<int>(std::max(1.0, std::ceil(d))); };
  switch (t.protocol) {
    case Protocol::kFlowperf:
      break;
    case Protocol::kNetperf: {
      session::NetperfClientOptions o;
      o.host = t.host;
      o.port = t.port;
      o.interrupt = stop;
      return session::run_netperf_test(s, o);
    }
    case Protocol::kIperf3: {
      session::Iperf3ClientOptions o;
      o.host = t.host;
      o.port = t.port;
      o.connect_timeout_s = t.connect_timeout_s;
      o.interrupt = stop;
      o.interval_s = s.interval_s;
      proto::iperf3::Params& p = o.params;
      p.udp = s.test == spec::TestKind::kUdpStream;
      p.reverse = s.test == spec::TestKind::kTcpMaerts;
      p.time = whole_seconds(s.duration_s);
      p.parallel = static_cast<int>(s.streams);
      p.bandwidth = s.rate_bps / std::max<uint32_t>(s.streams, 1);  // iperf3's is per stream
      p.len = s.send_size;
      session::Iperf3ClientRun run = session::run_iperf3_client(o);
      if (run.interrupted) run.result.interrupted = true;
      return std::move(run.result);
    }
    case Protocol::kQperf: {
      namespace qw = proto::qperf;
      session::QperfClientOptions o;
      o.host = t.host;
      o.port = t.port;
      o.wait_s = t.connect_timeout_s;
      o.interrupt = stop;
      const bool bw = s.test == spec::TestKind::kTcpStream;
      qw::Request& q = o.request;
      q.req_index = static_cast<uint16_t>(bw                                 ? qw::Index::kTcpBw
                                          : s.test == spec::TestKind::kTcpRr ? qw::Index::kTcpLat
                                                                             : qw::Index::kUdpLat);
      // qperf's own defaults: 64 KiB for a bandwidth test, 1 byte for latency.
      const uint32_t size = bw ? (s.send_size ? s.send_size : 64 * 1024) : s.request_size;
      q.msg_size = o.msg_size = size;
      q.time = static_cast<uint32_t>(whole_seconds(s.duration_s));
      o.time_s = q.time;
      q.timeout = static_cast<uint32_t>(o.timeout_s);
      return session::run_qperf_test(o).result;
    }
  }
  session::ClientOptions o;
  o.host = t.host;
  o.port = t.port;
  o.connect_timeout_s = t.connect_timeout_s;
  o.interrupt = stop;
  return session::run_test(s, o);
}

}  // namespace

std::string describe_result(const Target& t, const Test& test, const results::TestResult& r) {
  const report::Summary sum = report::summarize(r);
  char b[160];
  if (sum.stream_family)
    std::snprintf(b, sizeof b, "%.2f Mbit/s", sum.total.throughput_bps / 1e6);
  else
    std::snprintf(
        b, sizeof b, "%.0f trans/s, p50 %.1f us, p99 %.1f us", sum.total.transactions_per_s,
        sum.total.latency ? static_cast<double>(sum.total.latency->percentile(50)) / 1e3 : 0.0,
        sum.total.latency ? static_cast<double>(sum.total.latency->percentile(99)) / 1e3 : 0.0);
  std::string line = series_name(t, test) + ": " + b;
  if (!r.error.empty()) line += "; failed (" + failure_reason(r.error, true) + "): " + r.error;
  return line;
}

Monitor::Monitor(Config config, Metrics& metrics, Log log)
    : config_(std::move(config)), metrics_(metrics), log_(std::move(log)) {}

Monitor::~Monitor() { stop(); }

void Monitor::start() {
  std::random_device rd;
  for (const auto& t : config_.targets) {
    const uint64_t seed = (uint64_t{rd()} << 32) ^ rd() ^ std::hash<std::string>{}(t.name);
    threads_.emplace_back([this, &t, seed] { run_target(t, seed); });
  }
}

void Monitor::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& th : threads_)
    if (th.joinable()) th.join();
  threads_.clear();
}

void Monitor::run_target(const Target& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0, t.jitter_s);
  auto secs = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  // Rounds are due every `every` from the start; each starts up to `jitter`
  // after its time, so a fleet's monitors spread out.
  Clock::time_point base = Clock::now();
  for (;;) {
    const Clock::time_point start = base + secs(jitter(rng));
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_until(lock, start, [this] { return stopping_.load(); })) return;
    }
    for (const auto& test : t.tests) {
      if (stopping_) return;
      const auto t0 = Clock::now();
      try {
        const results::TestResult r = run_one(t, test, &stopping_);
        const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        if (stopping_ && r.interrupted) return;  // cut short by a reload or shutdown
        metrics_.record(key_of(t, test), r, wall, unix_now());
        log_(describe_result(t, test, r));
      } catch (const std::exception& e) {
        if (stopping_) return;
        const std::string reason = failure_reason(e.what(), false);
        metrics_.record_failure(key_of(t, test), reason,
                                std::chrono::duration<double>(Clock::now() - t0).count());
        log_(series_name(t, test) + ": failed (" + reason + "): " + e.what());
      }
    }
    base += secs(t.every_s);
    // A round that overran its slot: the next starts now, not in a burst
    // of rounds to catch up.
    if (base < Clock::now()) base = Clock::now();
  }
}

}  // namespace flowperf::monitor
