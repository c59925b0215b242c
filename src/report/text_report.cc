#include "report/text_report.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/version.h"
#include "report/summary.h"

namespace flowperf::report {
namespace {

std::string rate_text(double bps, core::RateUnit unit) {
  auto s = core::scale_rate(bps, unit);
  return fmt::format("{:.2f} {}", s.value, s.unit);
}

std::string bytes_text(double b) {
  auto s = core::scale_bytes(b);
  return s.unit == "B" ? fmt::format("{:.0f} B", s.value)
                       : fmt::format("{:.2f} {}", s.value, s.unit);
}

std::string us(uint64_t ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0); }

std::string label(uint32_t index) { return fmt::format("{:>6}", index); }

}  // namespace

std::string text_header(const results::TestResult& r, std::string_view preset) {
  const auto& s = r.spec;
  const auto& info = spec::info(s.test);
  std::string out = preset.empty()
                        ? fmt::format("flowperf {}: {} — {}\n", kVersion, info.name, info.title)
                        : fmt::format("flowperf {}: {} — {} both ways with a latency probe\n",
                                      kVersion, preset, info.name);
  out += fmt::format(
      "  local {}:{} -> remote {}:{}{}\n", r.local.host, r.local.port, r.remote.host, r.remote.port,
      r.embedded_server ? " (embedded server, started in this process)"
                        : (r.server_software.empty() ? "" : " (" + r.server_software + ")"));
  std::string length =
      s.count ? fmt::format("{} {}", s.count,
                            info.workload == spec::Workload::kStream ? "bytes" : "transactions")
              : fmt::format("{:g} s", s.duration_s);
  std::string sizes =
      info.workload == spec::Workload::kStream
          ? fmt::format("send size {} B", s.effective_send_size())
      : spec::carries_data(s.test)
          ? fmt::format("request {} B, response {} B", s.request_size, s.response_size)
          : std::string("no data: connect, then the server closes");
  out += fmt::format("  {} stream{}, {}, {}", s.streams, s.streams == 1 ? "" : "s", length, sizes);
  if (s.rate_bps)
    out += ", target " + rate_text(static_cast<double>(s.rate_bps), core::RateUnit::Auto);
  if (s.rate_tps > 0)
    out += fmt::format(", open loop {:g}/s {} (seed {}, at most {} in flight a stream)", s.rate_tps,
                       spec::arrival_name(s.arrival), s.seed, s.max_outstanding);
  if (s.nodelay) out += ", TCP_NODELAY";
  if (s.bidir)
    out += fmt::format(", and {} the other way at the same time",
                       s.test == spec::TestKind::kTcpStream ? "TCP_MAERTS" : "TCP_STREAM");
  if (s.probe_rate_tps > 0)
    out += fmt::format(", a {} latency probe at {:g}/s", spec::info(s.probe_test).name,
                       s.probe_rate_tps);
  // Modes that trade realism for speed are always named.
  if (s.batch > 1 || s.gso || s.gro)
    out += fmt::format(", batch {} ({}/{})", s.batch,
                       s.gso         ? "UDP GSO send"
                       : s.batch > 1 ? "sendmmsg"
                                     : "send",
                       s.gro         ? "GRO receive"
                       : s.batch > 1 ? "recvmmsg"
                                     : "recv");
  if (s.busy_poll) out += ", busy-poll";
  if (s.rst_close) out += ", RST close";
  if (s.sendfile) out += ", sendfile";
  if (s.call_latency) out += ", call latency";
  out += "\n";
  return out;
}

std::string text_interval(const spec::TestSpec& s, const results::IntervalSample& iv,
                          const TextOptions& o) {
  const bool stream = spec::info(s.test).workload == spec::Workload::kStream;
  uint64_t bytes = 0, txn = 0;
  for (const auto& f : iv.flows) {
    bytes += s.test == spec::TestKind::kTcpMaerts ? f.bytes_recv : f.bytes_sent;
    txn += f.transactions;
  }
  double dt = iv.end_s - iv.start_s;
  std::string line =
      stream ? fmt::format("  [{:7.2f}-{:7.2f} s]  {:>12}  {:>16}", iv.start_s, iv.end_s,
                           bytes_text(static_cast<double>(bytes)),
                           rate_text(dt > 0 ? 8.0 * static_cast<double>(bytes) / dt : 0, o.unit))
             : fmt::format("  [{:7.2f}-{:7.2f} s]  {:>10} transactions  {:>12.1f} trans/s",
                           iv.start_s, iv.end_s, txn, dt > 0 ? static_cast<double>(txn) / dt : 0);
  // TCP: retransmissions in the interval, and the first stream's window and
  // round trip at its end (as iperf3's Retr and Cwnd columns).
  uint64_t retrans = 0;
  const net::TcpInfo* first = nullptr;
  for (const auto& f : iv.flows) {
    retrans += f.retrans;
    if (!first && f.tcp) first = &*f.tcp;
  }
  if (first)
    line += fmt::format("  retr {}  cwnd {}  rtt {} us", retrans, first->snd_cwnd, first->rtt_us);
  if (o.cpu && iv.cpu) line += fmt::format("  cpu {:.1f}%", iv.cpu->util);
  if (o.nic && iv.nic)
    line += fmt::format("  {} rx {:.0f} tx {:.0f} pkt/s", iv.nic->name,
                        iv.nic->per_s(iv.nic->delta.rx_packets),
                        iv.nic->per_s(iv.nic->delta.tx_packets));
  return line + "\n";
}

namespace {

// A stream test's latency probe: the idle and the loaded run side by side.
std::string probe_text(const spec::TestSpec& s, const results::ProbeResult& p) {
  std::string out = fmt::format(
      "\n  latency under load: {} probe, {} B each way, open loop at {:g}/s, {:g} s idle first\n",
      spec::info(s.probe_test).name, spec::kProbeMessageBytes, s.probe_rate_tps,
      s.probe_baseline_s);
  out +=
      fmt::format("  {:>7}  {:>8}  {:>9}  {:>9}  {:>7}  {:>9} {:>9} {:>9} {:>9} {:>10}\n", "Probe",
                  "Time(s)", "Sent", "Answered", "Unsent", "p50", "p90", "p99", "p99.9", "max(us)");
  std::optional<double> p50[2], p99[2];
  const std::optional<results::TestResult>* phases[2] = {&p.idle, &p.loaded};
  for (int i = 0; i < 2; ++i) {
    const char* name = i == 0 ? "idle" : "loaded";
    if (!*phases[i]) {
      out += fmt::format("  {:>7}  (did not run)\n", name);
      continue;
    }
    const results::TestResult& run = **phases[i];
    const Summary sum = summarize(run);
    const uint64_t sent = sum.open_loop ? sum.open_loop->sent : sum.total.transactions;
    const uint64_t unsent = sum.open_loop ? sum.open_loop->unsent : 0;
    std::string lat = "  (no answers)";
    if (const auto* h = sum.total.latency; h && h->count() > 0) {
      lat = fmt::format("{:>9} {:>9} {:>9} {:>9} {:>10}", us(h->percentile(50)),
                        us(h->percentile(90)), us(h->percentile(99)), us(h->percentile(99.9)),
                        us(h->max()));
      p50[i] = static_cast<double>(h->percentile(50)) / 1000.0;
      p99[i] = static_cast<double>(h->percentile(99)) / 1000.0;
    }
    out += fmt::format("  {:>7}  {:8.2f}  {:>9}  {:>9}  {:>7}  {}\n", name, sum.total.elapsed_s,
                       sent, sum.total.transactions, unsent, lat);
    if (sum.total.timeouts) out += fmt::format("  {:>7}  {} timed out\n", "", sum.total.timeouts);
    if (!run.error.empty()) out += fmt::format("  {:>7}  error: {}\n", "", run.error);
  }
  // The median and the tail, each idle -> loaded: a load that leaves the
  // median alone can still multiply the p99.
  auto rise = [](const char* what, double idle, double loaded) {
    return fmt::format("{} {:.1f} -> {:.1f} us ({:+.1f} us, {:.1f}x)", what, idle, loaded,
                       loaded - idle, idle > 0 ? loaded / idle : 0.0);
  };
  if (p50[0] && p50[1])
    out += "  under load: " + rise("p50", *p50[0], *p50[1]) + "; " + rise("p99", *p99[0], *p99[1]) +
           "\n";
  return out;
}

}  // namespace

std::string text_result(const results::TestResult& r, const TextOptions& o) {
  Summary sum = summarize(r);
  const auto& s = r.spec;
  std::string out;
  const bool many = sum.streams.size() > 1 && o.per_stream;
  auto rows = [&](auto&& row) {
    if (many)
      for (const auto& st : sum.streams) out += row(label(st.index), st);
    out += row(std::string("   SUM"), sum.total);
  };

  if (sum.stream_family && !sum.udp) {
    out += fmt::format("\n{:>6}  {:>8}  {:>12}  {:>12}  {:>16}\n", "Stream", "Time(s)", "Sent",
                       "Received", "Throughput");
    rows([&](const std::string& l, const StreamSummary& st) {
      return fmt::format("{}  {:8.2f}  {:>12}  {:>12}  {:>16}\n", l, st.elapsed_s,
                         bytes_text(static_cast<double>(st.bytes_sent)),
                         bytes_text(static_cast<double>(st.bytes_received)),
                         rate_text(st.throughput_bps, o.unit));
    });
    out += fmt::format("  bytes: sender {}, receiver {}{}\n", sum.total.bytes_sent,
                       sum.total.bytes_received,
                       sum.receiver_counted ? "" : " (receiver's count missing: sender's shown)");
  } else if (sum.stream_family) {
    out += fmt::format("\n{:>6}  {:>8}  {:>12}  {:>12}  {:>10}  {:>7}  {:>10}  {:>15}  {:>15}\n",
                       "Stream", "Time(s)", "Sent(dgram)", "Recvd(dgram)", "Lost", "Loss%",
                       "Jitter(ms)", "Offered", "Delivered");
    rows([&](const std::string& l, const StreamSummary& st) {
      return fmt::format("{}  {:8.2f}  {:>12}  {:>12}  {:>10}  {:7.3f}  {:10.4f}  {:>15}  {:>15}\n",
                         l, st.elapsed_s, st.datagrams_sent, st.datagrams_received,
                         st.datagrams_lost, st.loss_percent, st.jitter_ms,
                         rate_text(st.send_bps, o.unit), rate_text(st.throughput_bps, o.unit));
    });
    out += fmt::format(
        "  datagrams: sent {} ({} B each), received {}, out of order {}, "
        "duplicates {}, send errors {}\n",
        sum.total.datagrams_sent, s.effective_send_size(), sum.total.datagrams_received,
        sum.total.out_of_order, sum.total.duplicates, sum.total.send_errors);
    // The receiver's own intervals (-i): what arrived, what went missing.
    for (const auto& iv : r.remote_side.intervals) {
      uint64_t recv = 0, ooo = 0;
      int64_t lost = 0;
      double jitter = 0;
      for (const auto& f : iv.flows) {
        recv += f.datagrams_recv;
        lost += f.lost;
        ooo += f.out_of_order;
        jitter = std::max(jitter, f.jitter_ns);
      }
      const double expected = static_cast<double>(recv) + static_cast<double>(lost);
      out += fmt::format(
          "  receiver [{:7.2f}-{:7.2f} s]  {:>10} dgram  lost {:>8} ({:6.3f}%)  out of order {}  "
          "jitter {:.4f} ms\n",
          iv.start_s, iv.end_s, recv, lost, expected > 0 ? 100.0 * lost / expected : 0.0, ooo,
          jitter / 1e6);
    }
  } else {
    out +=
        fmt::format("\n{:>6}  {:>8}  {:>12}  {:>12}   {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n",
                    "Stream", "Time(s)", "Transactions", "Trans/s", "min", "mean", "p50", "p90",
                    "p99", "p99.9", "max(us)");
    rows([&](const std::string& l, const StreamSummary& st) {
      std::string lat = "   (latency not kept per stream)";
      if (st.latency && st.latency->count() > 0) {
        const auto& h = *st.latency;
        lat = fmt::format("   {:>8} {:>8.1f} {:>8} {:>8} {:>8} {:>8} {:>9}", us(h.min()),
                          h.mean() / 1000.0, us(h.percentile(50)), us(h.percentile(90)),
                          us(h.percentile(99)), us(h.percentile(99.9)), us(h.max()));
      }
      return fmt::format("{}  {:8.2f}  {:>12}  {:>12.1f}{}\n", l, st.elapsed_s, st.transactions,
                         st.transactions_per_s, lat);
    });
    out += fmt::format(
        "  transactions: client {}, server {}", sum.total.transactions,
        r.have_remote ? std::to_string(sum.total.remote_transactions) : std::string("(unknown)"));
    if (s.test == spec::TestKind::kUdpRr)
      out += fmt::format("; timed out {}, late answers {} (in the latency figures), unanswered {}",
                         sum.total.timeouts, sum.total.late,
                         sum.total.timeouts - std::min(sum.total.late, sum.total.timeouts));
    out += "\n";
    if (const auto& ol = sum.open_loop) {
      // Latency above counts from each request's intended time.
      out += fmt::format(
          "  open loop: {} requests sent ({:.1f}/s of {:g}/s asked), {} late by over 1 ms, "
          "longest delay {:.0f} us, {} never sent\n",
          ol->sent, ol->sent_per_s, ol->rate_per_s, ol->late, ol->max_lag_us, ol->unsent);
      if (ol->held)
        out += fmt::format(
            "  open loop: {} requests found their stream's cap of requests in flight reached "
            "(--max-outstanding {}{}) and went out as answers came; their latency still counts "
            "from their intended time\n",
            ol->held, s.max_outstanding,
            s.test == spec::TestKind::kUdpRr ? ", or half the range of the sequence number "
                                               "the messages' size leaves"
                                             : "");
    }
  }
  if (sum.local_retrans || sum.remote_retrans) {
    auto n = [](const std::optional<uint64_t>& v) {
      return v ? std::to_string(*v) : std::string("(unknown)");
    };
    out += fmt::format("  tcp: retransmitted segments client {}, server {}", n(sum.local_retrans),
                       n(sum.remote_retrans));
    const auto& flows = r.local_side.flows;
    if (!flows.empty() && flows.front().tcp) {
      const auto& t = *flows.front().tcp;
      out += fmt::format("; stream 0: rtt {} us (var {}), cwnd {}, mss {}, {}", t.rtt_us,
                         t.rttvar_us, t.snd_cwnd, t.snd_mss, t.congestion_control);
    }
    out += "\n";
  }
  if (o.cpu) {
    auto side = [](const char* name, const std::optional<measure::CpuUsage>& c,
                   const std::optional<double>& sd, const char* units) {
      if (!c) return fmt::format("  cpu {}: not measured\n", name);
      return fmt::format(
          "  cpu {}: {:.1f}% of {} CPUs (user {:.1f}, system {:.1f}, irq {:.1f}, softirq {:.1f}, "
          "iowait {:.1f}); busiest cpu{} {:.1f}%; this process {:.2f} s user, {:.2f} s system; "
          "service demand {:.3f} {}\n",
          name, c->util, c->num_cpus, c->user, c->system, c->irq, c->softirq, c->iowait,
          c->peak_cpu, c->peak_util, c->process_user_s, c->process_system_s, sd.value_or(0), units);
    };
    out += side("local", r.local_side.cpu, sum.local_sd, sum.sd_units);
    out += side("remote", r.have_remote ? r.remote_side.cpu : std::nullopt, sum.remote_sd,
                sum.sd_units);
  }
  if (o.nic) {
    auto side = [](const char* name, const std::optional<measure::NicUsage>& n) {
      if (!n) return fmt::format("  nic {}: not measured\n", name);
      const auto& d = n->delta;
      return fmt::format(
          "  nic {} ({}): rx {:.1f} pkt/s {:.1f} kB/s, tx {:.1f} pkt/s {:.1f} kB/s, dropped rx {} "
          "tx {}, errors rx {} tx {}\n",
          name, n->name, n->per_s(d.rx_packets), n->per_s(d.rx_bytes) / 1000.0,
          n->per_s(d.tx_packets), n->per_s(d.tx_bytes) / 1000.0, d.rx_dropped, d.tx_dropped,
          d.rx_errors, d.tx_errors);
    };
    out += side("local", r.local_side.nic);
    out += side("remote", r.have_remote ? r.remote_side.nic : std::nullopt);
  }
  if (r.reverse) {
    const results::TestResult& back = *r.reverse;
    out += fmt::format("\n  the other direction, {} at the same time:",
                       spec::info(back.spec.test).name);
    out += text_result(back, o);
    const double up = sum.total.throughput_bps, down = summarize(back).total.throughput_bps;
    out += fmt::format("  both ways: {} + {} = {}\n", rate_text(up, o.unit),
                       rate_text(down, o.unit), rate_text(up + down, o.unit));
  }
  if (r.probe) out += probe_text(s, *r.probe);
  if (r.interrupted) out += "  interrupted: the results cover the time until Ctrl-C\n";
  if (!r.error.empty()) out += "  error: " + r.error + "\n";
  return out;
}

std::string text_run_heading(int run, int max_runs) {
  return fmt::format("\nrun {} (of at most {}):\n", run, max_runs);
}

std::string text_confidence(const measure::ConfidenceLoop& loop, const TextOptions& o) {
  const auto& g = loop.goal();
  std::string out = fmt::format(
      "\nconfidence: {}% intervals over {} run{} (at most {}); goal ±{:.2f}% of the mean: {}\n",
      g.level_pct, loop.iterations(), loop.iterations() == 1 ? "" : "s", g.max_iterations,
      g.width_pct / 2, loop.achieved() ? "achieved" : "NOT achieved");
  for (size_t i = 0; i < loop.metrics().size(); ++i) {
    const std::string& name = loop.metrics()[i].name;
    const measure::Interval iv = loop.interval(i);
    const char* label = name == "bits_per_second"           ? "throughput"
                        : name == "transactions_per_second" ? "transaction rate"
                        : name == "latency_p50_us"          ? "latency p50"
                        : name == "latency_p99_us"          ? "latency p99"
                                                            : name.c_str();
    // Each figure in its own unit: rates scaled as -f asks, latency in us.
    auto value = [&](double x) {
      if (name == "bits_per_second") return rate_text(x, o.unit);
      if (name == "transactions_per_second") return fmt::format("{:.1f} trans/s", x);
      return fmt::format("{:.1f} us", x);
    };
    if (!std::isfinite(iv.half_width)) {
      out += fmt::format("  {:<17} {:>18}  (one run: no interval)\n", label, value(iv.mean));
      continue;
    }
    out += fmt::format("  {:<17} {:>18}  ± {:>18}  ±{:.2f}%  {}\n", label, value(iv.mean),
                       value(iv.half_width), iv.width_pct / 2,
                       loop.achieved(i) ? "achieved" : "NOT achieved");
  }
  return out;
}

}  // namespace flowperf::report
