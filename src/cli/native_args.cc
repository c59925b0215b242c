#include "cli/native_args.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/suggest.h"
#include "core/units.h"
#include "measure/confidence.h"
#include "spec/test_spec.h"

namespace flowperf::cli {
namespace {

// --rate: transactions a second, a decimal number with an optional k or M
// (thousands, millions).
double parse_transaction_rate(const std::string& text, const char* option = "--rate") {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  double scale = 1;
  if (ec == std::errc() && p + 1 == end && (*p == 'k' || *p == 'K')) {
    scale = 1e3;
    ++p;
  } else if (ec == std::errc() && p + 1 == end && *p == 'M') {
    scale = 1e6;
    ++p;
  }
  if (ec != std::errc() || p != end || !(v > 0) || !std::isfinite(v))
    throw usage_error(std::string(option) + " " + text +
                      ": give transactions a second as a number above 0, e.g. 2000 or 2.5k");
  return v * scale;
}

}  // namespace

// What a repeated test aims for. --repeat N alone runs exactly N times and
// judges the runs against 95% and 5%; --confidence stops as soon as the
// interval is narrow enough, after at least 3 runs and at most N (10 when
// --repeat is not given), as netperf's -I does.
measure::ConfidenceGoal repeat_goal(const ClientArgs& a) {
  measure::ConfidenceGoal g;
  g.level_pct = 95;
  g.width_pct = 5;
  if (a.confidence.empty()) {
    g.min_iterations = g.max_iterations = static_cast<int>(a.repeat);
    return g;
  }
  const std::string& text = a.confidence;
  const auto comma = text.find(',');
  const std::string level = text.substr(0, comma);
  const std::string width = comma == std::string::npos ? "" : text.substr(comma + 1);
  auto bad = [&](const std::string& why) {
    return usage_error("--confidence " + text + ": " + why);
  };
  try {
    size_t used = 0;
    const int l = std::stoi(level, &used);
    if (used != level.size() || l < 1 || l > 99) throw std::invalid_argument("level");
    g.level_pct = l;
  } catch (const std::exception&) {
    throw bad("the level is a whole percentage from 1 to 99 (95 or 99 are usual)");
  }
  if (!width.empty()) {
    try {
      size_t used = 0;
      const double w = std::stod(width, &used);
      if (used != width.size() || !(w > 0) || w > 1000) throw std::invalid_argument("width");
      g.width_pct = w;
    } catch (const std::exception&) {
      throw bad("the width is the interval's full width in percent of the mean, above 0");
    }
  }
  g.max_iterations = a.repeat ? static_cast<int>(a.repeat) : 10;
  g.min_iterations = std::min(3, g.max_iterations);
  return g;
}

namespace {

// A byte count; `form` (the whole option's form, with an example) is said
// after the reason when the count cannot be read.
uint32_t size_arg(const std::string& opt, const std::string& text, const char* form = nullptr) {
  std::string why;
  auto v = core::parse_size(text, &why);
  if (!v)
    throw usage_error(opt + " " + text + ": " + why + (form ? "; the form is " : "") +
                      (form ? form : ""));
  if (*v > 0xffffffffull) throw usage_error(opt + " " + text + ": at most 4294967295 bytes");
  return static_cast<uint32_t>(*v);
}

// "A,B", "A" (both); an empty half takes the other's size ("A," is A,A:
// unlike netperf's -r, where it leaves the response at 1 byte).
std::pair<uint32_t, uint32_t> size_pair(const std::string& opt, const std::string& text,
                                        const char* form) {
  if (text.find_first_not_of(',') == std::string::npos)
    throw usage_error(opt + " " + text + ": no size given; the form is " + form);
  auto comma = text.find(',');
  if (comma == std::string::npos) {
    uint32_t v = size_arg(opt, text, form);
    return {v, v};
  }
  std::string a = text.substr(0, comma), b = text.substr(comma + 1);
  uint32_t first = a.empty() ? 0 : size_arg(opt, a, form);
  uint32_t second = b.empty() ? first : size_arg(opt, b, form);
  if (a.empty()) first = second;
  return {first, second};
}

// A per-end option's value: "V" sets both ends, "L,R" each, "L," only the
// client's and ",R" only the server's (netperf's pair rules). Each value
// given goes through `one`, which throws naming the option.
template <typename T, typename One>
void end_pair(const std::string& opt, const std::string& text, const char* form, T& local,
              T& remote, One&& one) {
  const auto comma = text.find(',');
  if (text.find_first_not_of(',') == std::string::npos || comma != text.rfind(','))
    throw usage_error(opt + " " + text + ": the form is " + form);
  if (comma == std::string::npos) {
    local = remote = one(text);
    return;
  }
  const std::string l = text.substr(0, comma), r = text.substr(comma + 1);
  if (!l.empty()) local = one(l);
  if (!r.empty()) remote = one(r);
}

// A whole number written in decimal, or in hex after 0x; nullopt otherwise.
std::optional<long long> whole_number(const std::string& text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(hex ? text.substr(2) : text, &used, hex ? 16 : 10);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != (hex ? text.size() - 2 : text.size()) || (hex && text[2] == '-')) return std::nullopt;
  return v;
}

// The per-end options (-K, --tos, --priority, --cpu-bind) into the spec's
// SideOptions; validate() checks the ranges.
void read_end_options(const ClientArgs& a, spec::TestSpec& s) {
  if (a.given.cc)
    end_pair("-K", a.cc, "CC or LOCAL,REMOTE (e.g. cubic, or bbr,cubic)", s.local.cc, s.remote.cc,
             [](const std::string& v) { return v; });
  auto integer = [](const std::string& opt, const char* what) {
    return [opt, what](const std::string& v) {
      auto n = whole_number(v);
      if (!n || *n < INT32_MIN || *n > INT32_MAX)
        throw usage_error(fmt::format("{} {}: not {}", opt, v, what));
      return static_cast<int>(*n);
    };
  };
  if (a.given.tos)
    end_pair("--tos", a.tos, "TOS or LOCAL,REMOTE (e.g. 0x10, or 0x10,0)", s.local.tos,
             s.remote.tos, integer("--tos", "a TOS byte (0 to 255, or 0x00 to 0xff)"));
  if (a.given.priority)
    end_pair("--priority", a.priority, "N or LOCAL,REMOTE", s.local.priority, s.remote.priority,
             integer("--priority", "a socket priority (0 or more)"));
  if (a.given.cpu_bind)
    end_pair("--cpu-bind", a.cpu_bind, "CPU or LOCAL,REMOTE (e.g. 2, or 2,3)", s.local.cpu,
             s.remote.cpu, integer("--cpu-bind", "a CPU number"));
}

// Options that mean nothing for the test they are given with are refused,
// not ignored: the user meant something by them. One line, naming both.
void check_combinations(const ClientArgs& a, const spec::TestInfo& t) {
  const bool stream = t.workload == spec::Workload::kStream;
  if (a.given.count && a.given.length)
    throw usage_error(
        "-n and -l exclude each other: -n stops the test after a count, -l after a time; give "
        "one of them");
  if (!spec::carries_data(t.kind) && (a.given.rr || a.given.send_size || a.given.recv_size))
    throw usage_error(fmt::format(
        "-{}: TCP_CC sends no data, so it has no message sizes; use -t TCP_CRR to time a "
        "request and response on each connection",
        a.given.rr          ? 'r'
        : a.given.send_size ? 'm'
                            : 'M'));
  if (!stream && a.given.send_size)
    throw usage_error(fmt::format(
        "-m {}: a send size applies to stream tests, not -t {}; give request and response "
        "sizes with -r REQ,RESP",
        a.send_size, t.name));
  if (!stream && a.given.recv_size)
    throw usage_error(fmt::format(
        "-M {}: a receive size applies to stream tests, not -t {}; give request and response "
        "sizes with -r REQ,RESP",
        a.recv_size, t.name));
  if (stream && a.given.rr)
    throw usage_error(fmt::format(
        "-r {}: request and response sizes apply to TCP_RR, TCP_CRR and UDP_RR, not -t {}; "
        "give the send size with -m",
        a.rr, t.name));
  if (a.nodelay && t.protocol == spec::Protocol::kUdp)
    throw usage_error(fmt::format("-D: TCP_NODELAY applies to TCP tests, not -t {}", t.name));
  if (a.given.udp_rr_min_timeout && t.kind != spec::TestKind::kUdpRr)
    throw usage_error(fmt::format("--udp-rr-min-timeout {}: applies to -t UDP_RR only, not -t {}",
                                  a.udp_rr_min_timeout_us, t.name));
}

// -t RRUL: flent's "realtime response under load" in one flowperf test:
// streams both ways and a latency probe beside them.
constexpr uint32_t kRrulStreams = 4;           // each way
constexpr const char* kRrulProbeRate = "100";  // a second

}  // namespace

bool is_rrul(const std::string& test) {
  std::string upper = test;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return upper == "RRUL";
}

spec::TestSpec build_spec(const ClientArgs& a) {
  spec::TestSpec s;
  const bool rrul = is_rrul(a.test);
  auto kind = rrul ? std::optional(spec::TestKind::kTcpStream) : spec::parse_test_name(a.test);
  if (!kind) {
    std::string names;
    std::vector<std::string> known = {"RRUL"};
    for (const auto& t : spec::all_tests()) {
      names += std::string(names.empty() ? "" : ", ") + t.name;
      known.emplace_back(t.name);
    }
    const std::string near = core::nearest(a.test, known);
    throw usage_error("-t " + a.test + ": unknown test; " +
                      (near.empty() ? "" : "did you mean " + near + "? ") + "choose one of " +
                      names + ", or RRUL (TCP_STREAM --bidir -P 4 --probe 100)");
  }
  s.test = *kind;
  s.duration_s = a.duration;
  s.streams = rrul && !a.given.streams ? kRrulStreams : a.streams;
  s.bidir = a.bidir || rrul;
  s.threads = a.threads;
  s.interval_s = a.interval;
  s.nodelay = a.nodelay;
  s.udp_rr_min_timeout_us = a.udp_rr_min_timeout_us;
  if (a.given.cc && a.cc.empty())
    throw usage_error("-K '': no congestion control named; give one (e.g. cubic, bbr) or omit -K");
  read_end_options(a, s);
  s.keepalive = a.keepalive;
  s.cork = a.cork;
  s.burst = a.burst;
  if (!a.open_rate.empty()) {
    s.rate_tps = parse_transaction_rate(a.open_rate);
    // Requests in flight together: with Nagle's algorithm a small request
    // (or answer) waits for the one before it to be acknowledged, which a
    // delayed ACK puts off by up to 40 ms, so the test would measure that.
    s.nodelay = true;
  }
  const auto arrival = spec::parse_arrival(a.arrival);
  if (!arrival)
    throw usage_error("--arrival " + a.arrival + ": the arrivals are 'fixed' or 'poisson'");
  s.arrival = *arrival;
  s.seed = a.seed;
  s.max_outstanding = a.max_outstanding;
  if (!a.probe_rate.empty())
    s.probe_rate_tps = parse_transaction_rate(a.probe_rate, "--probe");
  else if (rrul)
    s.probe_rate_tps = parse_transaction_rate(kRrulProbeRate);
  s.probe_baseline_s = a.baseline;
  const auto probe_test = spec::parse_test_name(a.probe_test);
  if (!probe_test)
    throw usage_error("--probe-test " + a.probe_test + ": the probe is TCP_RR or UDP_RR");
  s.probe_test = *probe_test;
  s.gso = a.gso;
  s.gro = a.gro;
  s.busy_poll = a.busy_poll;
  s.rst_close = a.rst_close;
  s.sendfile = a.sendfile;
  s.call_latency = a.call_latency;
  if (a.v4 && a.v6) throw usage_error("-4 and -6 exclude each other: choose one");
  s.ip_family = a.v4 ? IpFamily::kV4 : a.v6 ? IpFamily::kV6 : IpFamily::kAny;
  if (a.given.count) {
    std::string why;
    auto v = core::parse_size(a.count, &why);
    if (!v || *v == 0)
      throw usage_error("-n " + a.count + ": " + (v ? "must be more than 0" : why));
    s.count = *v;
  }
  if (a.given.send_size) s.send_size = size_arg("-m", a.send_size);
  if (a.given.recv_size) s.recv_size = size_arg("-M", a.recv_size);
  if (a.given.local_buf)
    std::tie(s.local_sndbuf, s.local_rcvbuf) =
        size_pair("-s", a.local_buf, "SIZE or SEND,RECV, e.g. -s 256K");
  if (a.given.remote_buf)
    std::tie(s.remote_sndbuf, s.remote_rcvbuf) =
        size_pair("-S", a.remote_buf, "SIZE or SEND,RECV, e.g. -S 256K");
  std::tie(s.request_size, s.response_size) =
      size_pair("-r", a.rr, "SIZE or REQ,RESP, e.g. -r 32,1024");
  if (a.given.rate) {
    std::string why;
    auto v = core::parse_rate_bps(a.rate, &why);
    if (!v) throw usage_error("-b " + a.rate + ": " + why);
    s.rate_bps = *v;
  }
  if (s.send_size == 0 && a.given.send_size)
    throw usage_error("-m " + a.send_size + ": the send size must be at least 1 byte");
  if (s.recv_size == 0 && a.given.recv_size)
    throw usage_error("-M " + a.recv_size + ": the receive size must be at least 1 byte");
  check_combinations(a, spec::info(s.test));
  // UDP_STREAM batches by default (named in the output and JSON as
  // "batch N"); every other test moves one message per system call.
  s.batch = a.batch ? *a.batch
            : s.test == spec::TestKind::kUdpStream
                ? (s.gso ? std::min(spec::kDefaultUdpStreamBatch, spec::max_gso_batch(s))
                         : spec::kDefaultUdpStreamBatch)
                : 1;
  auto problems = spec::validate(s);
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "\n") + p;
    throw usage_error(all);
  }
  return s;
}

ClientOptionHandles add_client_options(CLI::App& app, ClientArgs& c) {
  ClientOptionHandles h{};
  h.host = app.add_option(
      "-H,--host", c.host,
      "server to test against (default: an embedded server on 127.0.0.1, or ::1 with -6)");
  app.add_option("-p,--port", c.port, "server control port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_option(
         "-t,--test", c.test,
         "TCP_STREAM, TCP_MAERTS, UDP_STREAM, TCP_RR, TCP_CRR, UDP_RR or TCP_CC (any case); "
         "RRUL: streams both ways with a latency probe")
      ->capture_default_str();
  h.length =
      app.add_option("-l,--length", c.duration, "test length in seconds")->capture_default_str();
  h.count = app.add_option("-n,--count", c.count,
                           "stop after this many bytes (stream) or transactions (RR) in all");
  h.send_size = app.add_option(
      "-m,--send-size", c.send_size,
      "bytes per send (stream tests; default 128K TCP, 1472 UDP, 1452 UDP over IPv6)");
  h.recv_size = app.add_option("-M,--recv-size", c.recv_size, "bytes per receive (stream tests)");
  h.local_buf =
      app.add_option("-s,--local-buffer", c.local_buf, "local socket buffers: SIZE or SEND,RECV");
  h.remote_buf = app.add_option("-S,--remote-buffer", c.remote_buf,
                                "remote socket buffers: SIZE or SEND,RECV");
  h.rr = app.add_option("-r,--request-response", c.rr,
                        "RR sizes: REQ,RESP, or SIZE for both; a half left empty takes the other's "
                        "size (32, is 32,32, where netperf's -r 32, leaves the response at 1)")
             ->capture_default_str();
  h.rate =
      app.add_option("-b,--bitrate", c.rate, "UDP_STREAM target rate in bits/s (K, M, G suffixes)");
  h.streams =
      app.add_option("-P,--parallel", c.streams, "number of streams")->capture_default_str();
  app.add_option("--threads", c.threads, "worker threads per side (default: min(streams, cores))");
  app.add_option("-i,--interval", c.interval, "report every this many seconds while running");
  app.add_option("--tls-ca", c.tls_ca,
                 "speak to the server over TLS (flowperf server --tls-cert), trusting the CA "
                 "certificates in this PEM file; the certificate must name the -H host");
  app.add_option("--key", c.key,
                 "authenticate to the server (flowperf server --keys) with the `NAME SECRET` line "
                 "in this file, which only its owner may read");
  app.add_option("-f,--format", c.unit, "rate unit: k/m/g bits, K/M/G bytes, a for auto")
      ->capture_default_str();
  app.add_flag("-D,--nodelay", c.nodelay, "set TCP_NODELAY on data connections");
  app.add_flag("--nic", c.nic,
               "show the data path interface's packet and byte rates on both ends (as sar -n DEV)");
  h.cc = app.add_option(
      "-K,--cc", c.cc,
      "TCP congestion control: CC on both ends, or LOCAL,REMOTE (e.g. bbr,cubic; \"bbr,\" the "
      "client only)");
  h.tos = app.add_option(
      "--tos", c.tos,
      "IP TOS / IPv6 traffic class of the data sockets, decimal or 0x hex: on both ends, or "
      "LOCAL,REMOTE as -K");
  h.priority = app.add_option(
      "--priority", c.priority,
      "SO_PRIORITY of the data sockets: N on both ends, or LOCAL,REMOTE as -K (above 6 needs "
      "CAP_NET_ADMIN)");
  h.cpu_bind = app.add_option(
      "--cpu-bind", c.cpu_bind,
      "run the data path on this CPU: N on both ends, or LOCAL,REMOTE as -K (the server pins "
      "its workers for the test)");
  app.add_flag("--keepalive", c.keepalive, "SO_KEEPALIVE on both ends' TCP data sockets");
  app.add_flag("--cork", c.cork, "TCP_CORK on both ends' TCP data sockets");
  app.add_option("--burst", c.burst,
                 "TCP_RR, UDP_RR: keep this many requests in flight beyond the first (netperf's "
                 "test -b)");
  app.add_option("--rate", c.open_rate,
                 "TCP_RR, UDP_RR: open loop, this many requests a second in all (k, M suffixes), "
                 "sent on schedule whether or not answers came; latency counts from each "
                 "request's intended time");
  app.add_option("--arrival", c.arrival,
                 "with --rate: 'fixed' gaps (default) or 'poisson' (exponential gaps from --seed)");
  app.add_option("--seed", c.seed, "with --arrival poisson: the random sequence's seed")
      ->capture_default_str();
  app.add_option("--max-outstanding", c.max_outstanding,
                 "with --rate: requests in flight per stream at most; later ones wait for an "
                 "answer and still count from their intended time")
      ->capture_default_str();
  app.add_option("--probe", c.probe_rate,
                 "stream tests: latency under load; a 1-byte request/response probe, open loop "
                 "at this many a second on a connection of its own, measured alone first "
                 "(--baseline) and then beside the streams");
  app.add_option("--baseline", c.baseline, "with --probe: seconds of idle probe before the streams")
      ->capture_default_str();
  app.add_option("--probe-test", c.probe_test, "with --probe: TCP_RR (default) or UDP_RR");
  app.add_flag("--bidir", c.bidir,
               "TCP_STREAM and TCP_MAERTS: the other direction at the same time, as many streams "
               "again (-t RRUL: --bidir -P 4 --probe 100)");
  app.add_flag("--json", c.json, "print one JSON document (see docs/json.md)");
  app.add_flag("--json-stream", c.json_stream,
               "print one JSON object a line as the test goes: a start event, one per -i "
               "interval, and an end event holding the --json document (docs/json.md)");
  app.add_flag("--csv", c.csv,
               "print CSV: a header, a row per stream and a sum row per -i interval and at the "
               "end (docs/csv.md)");
  app.add_option("--html", c.html,
                 "also write an HTML report of the result to FILE: charts of each -i interval "
                 "(both ends) and the latency distribution, inline SVG (docs/plot.md)");
  app.add_flag("--cpu", c.cpu,
               "show CPU utilization and service demand of both ends (JSON always has them)");
  app.add_flag("-4", c.v4, "IPv4 only");
  app.add_flag("-6", c.v6, "IPv6 only");
  app.add_option("--repeat", c.repeat,
                 "run the test this many times and report 95% confidence intervals of "
                 "throughput (RR: transaction rate, p50 and p99 latency); with --confidence, "
                 "at most this many times")
      ->check(CLI::Range(1u, 1000u));
  app.add_option("--confidence", c.confidence,
                 "LEVEL[,WIDTH]: repeat until each figure's LEVEL% confidence interval is at "
                 "most WIDTH% of the mean wide (default width 5, i.e. ±2.5%), after 3 runs and "
                 "at most --repeat (10) runs");
  app.add_option("--batch", c.batch,
                 "UDP_STREAM: datagrams per sendmmsg/recvmmsg call (default 32; 1 = one per call)");
  app.add_flag("--gso", c.gso, "UDP_STREAM: send each batch as one UDP GSO buffer");
  app.add_flag("--gro", c.gro,
               "UDP_STREAM: receive GRO-coalesced buffers (on loopback with --gso they are "
               "never split into packets)");
  app.add_flag("--busy-poll", c.busy_poll,
               "spin on non-blocking sockets instead of sleeping (both ends; one busy CPU per "
               "worker thread)");
  app.add_flag("--rst-close", c.rst_close,
               "TCP_CRR: the client closes each connection with an RST as soon as the answer is "
               "in (no FIN exchange, no TIME_WAIT), as neper's tcp_crr does");
  app.add_flag("--sendfile", c.sendfile,
               "TCP_STREAM, TCP_MAERTS: the sender sends with sendfile() from an in-memory file, "
               "without copying from a user buffer (netperf's TCP_SENDFILE, iperf3 -Z)");
  app.add_flag("--call-latency", c.call_latency,
               "TCP_STREAM, TCP_MAERTS, UDP_STREAM: time each send and receive call, waits for "
               "the socket included, into each side's latency histogram (--json)");
  h.udp_rr_min_timeout =
      app.add_option("--udp-rr-min-timeout", c.udp_rr_min_timeout_us,
                     "UDP_RR: smallest per-request timeout in microseconds (the timeout "
                     "follows the round trip and its tail above it; an answer "
                     "after it counts as late, timed from its request)")
          ->capture_default_str();

  return h;
}

void note_given(ClientArgs& c, const ClientOptionHandles& h) {
  auto given = [](const CLI::Option* o) { return o->count() > 0; };
  c.given = {.host = given(h.host),
             .length = given(h.length),
             .count = given(h.count),
             .send_size = given(h.send_size),
             .recv_size = given(h.recv_size),
             .local_buf = given(h.local_buf),
             .remote_buf = given(h.remote_buf),
             .rr = given(h.rr),
             .rate = given(h.rate),
             .cc = given(h.cc),
             .udp_rr_min_timeout = given(h.udp_rr_min_timeout),
             .tos = given(h.tos),
             .priority = given(h.priority),
             .cpu_bind = given(h.cpu_bind),
             .streams = given(h.streams)};
}

spec::TestSpec native_client_spec(int argc, const char* const* argv) {
  CLI::App app;
  ClientArgs c;
  ClientOptionHandles handles = add_client_options(app, c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw usage_error(e.what());
  }
  note_given(c, handles);
  return build_spec(c);
}

}  // namespace flowperf::cli
