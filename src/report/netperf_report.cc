#include "report/netperf_report.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

namespace flowperf::report {
namespace {

using spec::TestKind;

// printf, because netperf's tables are printf output ("%-6.2f", "%7.2f")
// and matching them byte for byte is the point.
__attribute__((format(printf, 1, 2))) std::string cformat(const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  va_list again;
  va_copy(again, ap);
  int n = std::vsnprintf(nullptr, 0, f, ap);
  va_end(ap);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, f, again);
  va_end(again);
  return out;
}

bool is_rr(TestKind k) { return spec::info(k).workload == spec::Workload::kRr; }

// The banner's "(address)": netperf 2.7.1 formats the numeric address into
// a buffer of pointer size (8 bytes), so only addresses of up to 7
// characters ("0.0.0.0", "::1") appear; longer ones leave "()". We print
// what netperf prints.
std::string banner_numeric(const std::string& host, const std::string& address) {
  std::string numeric = address;
  if (numeric.empty()) {
    // A numeric host, in inet_ntop's form ("::0" is "::").
    unsigned char buf[sizeof(in6_addr)];
    char text[INET6_ADDRSTRLEN] = {};
    for (int af : {AF_INET, AF_INET6})
      if (inet_pton(af, host.c_str(), buf) == 1 && inet_ntop(af, buf, text, sizeof text))
        numeric = text;
  }
  return numeric.size() <= 7 ? numeric : std::string();
}

// A side's socket size as netperf prints it: -1 when the side is unknown.
int size_or_unknown(int v) { return v > 0 ? v : -1; }

struct Counts {
  results::FlowResult local, remote;
  bool have_remote = false;
  double elapsed = 0;
};

Counts counts(const results::TestResult& r) {
  Counts c;
  c.local = r.local_side.total();
  c.have_remote = r.have_remote;
  if (r.have_remote) c.remote = r.remote_side.total();
  c.elapsed = r.local_side.elapsed_s;
  return c;
}

// One end's CPU figures as netperf fills them for an end -c/-C asked for.
// Service demand is netperf's calc_service_demand: utilization times CPUs
// over the throughput in units per second, where the units are the *local*
// work for both ends (netperf computes the remote figure from its own
// counts too) and the time is the test's elapsed time.
OmniCpu omni_cpu(const measure::CpuUsage& u, double work, double divisor, double elapsed,
                 OmniCpu c) {
  c.util = u.util;
  c.user = u.user;
  c.system = u.system;
  c.iowait = u.iowait;
  c.irq = u.irq;
  c.swintr = u.softirq;
  c.method = u.method.empty() ? 'U' : u.method[0];
  c.count = static_cast<int>(u.num_cpus);
  c.peak_util = u.peak_util;
  c.peak_id = u.peak_cpu;
  const double thruput = elapsed > 0 ? work / divisor / elapsed : 0;
  // Without any work netperf divides by zero and prints "inf".
  c.sd = thruput > 0 ? u.util * 10000.0 / thruput * static_cast<double>(u.num_cpus)
                     : std::numeric_limits<double>::infinity();
  return c;
}

// What -v 0 prints with CPU columns: netperf's local service demand and
// method with -c, the remote ones with -C alone.
const OmniCpu& terse_cpu(const NetperfReportOptions& o, const OmniValues& v) {
  return o.local_cpu ? v.local_cpu : v.remote_cpu;
}

std::string tail_brand(const NetperfReportOptions& o) { return o.headers ? "" : o.brand; }

// ---- Classic tables ------------------------------------------------------

std::string stream_table(const results::TestResult& r, const NetperfReportOptions& o,
                         const OmniValues& v) {
  const bool maerts = r.spec.test == TestKind::kTcpMaerts;
  const bool cpu = o.local_cpu || o.remote_cpu;
  const std::string units = v.units;
  std::string out;
  if (o.verbosity == 0) {
    if (cpu)
      return cformat("%6.3f %c %s\n", terse_cpu(o, v).sd, terse_cpu(o, v).method,
                     tail_brand(o).c_str());
    return cformat("%7.2f %s\n", v.throughput, tail_brand(o).c_str());
  }
  if (o.headers) {
    if (cpu) {
      out += "Recv   Send    Send                          Utilization       Service Demand\n";
      out += maerts
                 ? "Socket Socket  Message  Elapsed              Recv     Send     Recv    Send\n"
                 : "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n";
      out += "Size   Size    Size     Time     Throughput  local    remote   local   remote\n";
      out += cformat(
          "bytes  bytes   bytes    secs.    %-8.8s/s  %% %c      %% %c      us/KB   us/KB\n\n",
          units.c_str(), v.local_cpu.method, v.remote_cpu.method);
    } else {
      out += "Recv   Send    Send                          \n";
      out += "Socket Socket  Message  Elapsed              \n";
      out += "Size   Size    Size     Time     Throughput  \n";
      out += cformat("bytes  bytes   bytes    secs.    %s/sec  \n\n", units.c_str());
    }
  }
  // netperf's MAERTS row shows its receive buffer and the server's send
  // buffer; with CPU columns it prints the STREAM pair instead.
  const int first = maerts && !cpu ? v.lsr : v.rsr;
  const int second = maerts && !cpu ? v.rss : v.lss;
  const int message = maerts ? v.remote_send_size : v.local_send_size;
  if (cpu)
    out += cformat("%6d %6d %6d    %-6.2f     %7.2f   %-6.2f   %-6.2f   %-6.3f  %-6.3f %s\n", first,
                   second, message, v.elapsed_s, v.throughput, v.local_cpu.util, v.remote_cpu.util,
                   v.local_cpu.sd, v.remote_cpu.sd, tail_brand(o).c_str());
  else
    out += cformat("%6d %6d %6d    %-6.2f   %7.2f   %s\n", first, second, message, v.elapsed_s,
                   v.throughput, tail_brand(o).c_str());

  if (o.verbosity > 1) {
    // Bytes per call on each side; netperf's MSS (not measured here: -1).
    const Counts c = counts(r);
    const uint64_t bytes = maerts ? c.local.bytes_recv : c.local.bytes_sent;
    const uint64_t calls = maerts ? c.local.recv_calls : c.local.send_calls;
    const uint64_t rbytes = maerts ? c.remote.bytes_sent : c.remote.bytes_recv;
    const uint64_t rcalls = maerts ? c.remote.send_calls : c.remote.recv_calls;
    auto per = [](uint64_t b, uint64_t n) {
      return n ? static_cast<double>(b) / static_cast<double>(n) : 0.0;
    };
    out += maerts ? "\nAlignment      Offset         Bytes    Bytes       Recvs   Bytes    Sends\n"
                  : "\nAlignment      Offset         Bytes    Bytes       Sends   Bytes    Recvs\n";
    out += "Local  Remote  Local  Remote  Xfered   Per                 Per\n";
    out += maerts ? "Recv   Send    Recv   Send             Recv (avg)          Send (avg)\n"
                  : "Send   Recv    Send   Recv             Send (avg)          Recv (avg)\n";
    out += cformat("%5d   %5d  %5d   %5d %6llu  %6.2f    %6llu   %6.2f %6llu\n", 8, 8, 0, 0,
                   static_cast<unsigned long long>(bytes), per(bytes, calls),
                   static_cast<unsigned long long>(calls), per(rbytes, rcalls),
                   static_cast<unsigned long long>(rcalls));
    out += cformat("\nMaximum\nSegment\nSize (bytes)\n%6d\n", v.transport_mss);
    // This end's call times (TestSpec::call_latency), as netperf's histogram.
    if (r.local_side.latency.count() > 0) {
      out += maerts ? "\n\nHistogram of time spent in recv() call.\n"
                    : "\n\nHistogram of time spent in send() call.\n";
      out += netperf_histogram(r.local_side.latency);
    }
  }
  return out;
}

std::string udp_stream_table(const results::TestResult& r, const NetperfReportOptions& o,
                             const OmniValues& v) {
  const Counts c = counts(r);
  const bool cpu = o.local_cpu || o.remote_cpu;
  if (o.verbosity == 0) {
    // netperf names the local method even when the figure is the remote one.
    if (cpu) return cformat("%6.2f %c\n", terse_cpu(o, v).sd, v.local_cpu.method);
    return cformat("%7.2f\n", v.local_send_tput);
  }
  std::string out;
  if (o.headers) {
    if (cpu) {
      out += "Socket  Message  Elapsed      Messages                   CPU      Service\n";
      out += "Size    Size     Time         Okay Errors   Throughput   Util     Demand\n";
      out += cformat("bytes   bytes    secs            #      #   %s/sec %% %c%c     us/KB\n\n",
                     v.units.c_str(), v.local_cpu.method, v.remote_cpu.method);
    } else {
      out += "Socket  Message  Elapsed      Messages                \n";
      out += "Size    Size     Time         Okay Errors   Throughput\n";
      out += cformat("bytes   bytes    secs            #      #   %s/sec\n\n", v.units.c_str());
    }
  }
  const auto sent = static_cast<unsigned long long>(c.local.datagrams_sent);
  const auto received = static_cast<unsigned long long>(c.remote.datagrams_recv);
  const int errors = static_cast<int>(c.local.send_errors);
  if (cpu) {
    out += cformat("%6d  %6d   %-7.2f   %7llu %6d    %7.1f     %-6.2f   %-6.3f\n", v.lss,
                   v.local_send_size, v.elapsed_s, sent, errors, v.local_send_tput,
                   v.local_cpu.util, v.local_cpu.sd);
    out += cformat("%6d           %-7.2f   %7llu           %7.1f     %-6.2f   %-6.3f\n\n", v.rsr,
                   v.elapsed_s, received, v.remote_recv_tput, v.remote_cpu.util, v.remote_cpu.sd);
  } else {
    out += cformat("%6d  %6d   %-7.2f   %7llu %6d    %7.2f\n", v.lss, v.local_send_size,
                   v.elapsed_s, sent, errors, v.local_send_tput);
    out += cformat("%6d           %-7.2f   %7llu           %7.2f\n\n", v.rsr, v.elapsed_s, received,
                   v.remote_recv_tput);
  }
  if (o.verbosity > 1 && r.local_side.latency.count() > 0) {
    out += "\nHistogram of time spent in send() call\n";
    out += netperf_histogram(r.local_side.latency);
  }
  return out;
}

std::string rr_table(const results::TestResult& r, const NetperfReportOptions& o,
                     const OmniValues& v) {
  const TestKind kind = r.spec.test;
  // TCP_CRR and TCP_CC print netperf's connection-test table (no brand).
  const bool crr = spec::info(kind).connect_per_transaction, udp = kind == TestKind::kUdpRr;
  const bool cpu = o.local_cpu || o.remote_cpu;
  const char unit = netperf_effective_unit(o.unit, kind);
  const std::string brand = tail_brand(o);
  if (o.verbosity == 0) {
    if (cpu)
      return crr ? cformat("%6.3f\n", terse_cpu(o, v).sd)
                 : cformat("%6.3f %c %s\n", terse_cpu(o, v).sd, terse_cpu(o, v).method,
                           brand.c_str());
    return crr ? cformat("%7.2f\n", v.throughput)
               : cformat("%7.2f %s\n", v.throughput, brand.c_str());
  }
  std::string out;
  if (o.headers) {
    out += "Local /Remote\n";
    if (cpu) {
      if (unit == 'x' || crr) {
        out += "Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n";
        out += "Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n";
        out += crr ? std::string(
                         "bytes  bytes  bytes   bytes  secs.   per sec  %      %      us/Tr   "
                         "us/Tr\n\n")
                   : cformat(
                         "bytes  bytes  bytes   bytes  secs.   per sec  %% %c    %% %c    us/Tr   "
                         "us/Tr\n\n",
                         v.local_cpu.method, v.remote_cpu.method);
      } else {
        out += "Socket Size   Request Resp.  Elapsed Tput     CPU    CPU    S.dem   S.dem\n";
        out += cformat("Send   Recv   Size    Size   Time    %-8.8s local  remote local   remote\n",
                       v.units.c_str());
        out += cformat(
            "bytes  bytes  bytes   bytes  secs.   per sec  %% %c    %% %c    us/KB   us/KB\n\n",
            v.local_cpu.method, v.remote_cpu.method);
      }
    } else if (unit == 'x' || crr) {
      out += "Socket Size   Request  Resp.   Elapsed  Trans.\n";
      out += "Send   Recv   Size     Size    Time     Rate         \n";
      out += "bytes  Bytes  bytes    bytes   secs.    per sec   \n\n";
    } else {
      out += "Socket Size   Request  Resp.   Elapsed  \n";
      out += "Send   Recv   Size     Size    Time     Throughput \n";
      out += cformat("bytes  Bytes  bytes    bytes   secs.    %s/sec   \n\n", v.units.c_str());
    }
  }
  if (cpu) {
    const char* row =
        crr   ? "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f   %-6.2f %-6.2f %-6.3f  %-6.3f%s\n"
        : udp ? "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f   %-6.2f %-6.2f %-6.3f  %-6.3f %s\n"
              : "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f  %-6.2f %-6.2f %-6.3f  %-6.3f %s\n";
    out += cformat(row, v.lss, v.lsr, v.request_size, v.response_size, v.elapsed_s, v.throughput,
                   v.local_cpu.util, v.remote_cpu.util, v.local_cpu.sd, v.remote_cpu.sd,
                   crr ? "" : brand.c_str());
  } else {
    out += cformat("%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   %s\n", v.lss, v.lsr, v.request_size,
                   v.response_size, v.elapsed_s, v.throughput, crr ? "" : brand.c_str());
  }
  out += cformat("%-6d %-6d\n", v.rss, v.rsr);

  if (o.verbosity > 1) {
    if (kind == TestKind::kTcpRr) {
      // Latency, rate and one-way throughput in megabits (or the -f unit).
      const char bits_unit = unit == 'x' ? 'm' : unit;
      const double rate = v.transaction_rate;
      out += "Alignment      Offset         RoundTrip  Trans    Throughput\n";
      out += cformat("Local  Remote  Local  Remote  Latency    Rate     %-8.8s/s\n",
                     netperf_unit_name(bits_unit).c_str());
      out += "Send   Recv    Send   Recv    usec/Tran  per sec  Outbound   Inbound\n";
      out += cformat("%5d  %5d   %5d  %5d   %-6.3f   %-6.3f %-6.3f    %-6.3f\n", 8, 0, 0, 0,
                     v.rt_latency, rate, netperf_rate(rate * v.request_size, 1.0, bits_unit),
                     netperf_rate(rate * v.response_size, 1.0, bits_unit));
    } else if (crr) {
      out += "\nAlignment      Offset\nLocal  Remote  Local  Remote\nSend   Recv    Send   Recv\n";
      out += cformat("%5d  %5d   %5d  %5d\n", 8, 8, 0, 0);
    }
    if (r.local_side.latency.count() > 0) {
      out += udp ? "\nHistogram of request/reponse times.\n"
                 : "\nHistogram of request/response times\n";
      out += netperf_histogram(r.local_side.latency);
    }
  }
  return out;
}

}  // namespace

namespace {

// netperf's histogram cells: row r (0 = UNIT_USEC ... 7 = TEN_SEC) column c
// holds whole microseconds in [c·10^r, (c+1)·10^r); cell 10·r + c, and one
// more cell for 100 s and beyond. Cells ascend with the time they hold.
constexpr int kHistRows = 8;
constexpr int kBeyondCell = kHistRows * 10;

int histogram_cell(uint64_t ns) {
  uint64_t us = ns / 1000, decade = 1;
  int row = 0;
  while (row < kHistRows && us >= decade * 10) {
    decade *= 10;
    ++row;
  }
  return row == kHistRows ? kBeyondCell : row * 10 + static_cast<int>(us / decade);
}

// The last nanosecond a cell holds.
uint64_t histogram_cell_end(int cell) {
  uint64_t decade_ns = 1000;
  for (int r = 0; r < cell / 10; ++r) decade_ns *= 10;
  return static_cast<uint64_t>(cell % 10 + 1) * decade_ns - 1;
}

}  // namespace

std::string netperf_histogram(const measure::Histogram& h) {
  static const char* kRows[kHistRows] = {"UNIT_USEC     ", "TEN_USEC      ", "HUNDRED_USEC  ",
                                         "UNIT_MSEC     ", "TEN_MSEC      ", "HUNDRED_MSEC  ",
                                         "UNIT_SEC      ", "TEN_SEC       "};
  // A bucket can straddle a cell's edge. Its count is shared among the
  // cells it overlaps in proportion to the overlap, its range first
  // narrowed to the exact min and max (so a lone value lands exactly), then
  // the running total is rounded so the cells add up to HIST_TOTAL.
  double share[kBeyondCell + 1] = {};
  for (const auto& b : h.nonzero_buckets()) {
    const uint64_t lo = std::max(measure::Histogram::bucket_low(b.index), h.min());
    const uint64_t hi = std::max(lo, std::min(measure::Histogram::bucket_high(b.index), h.max()));
    const double span = static_cast<double>(hi - lo) + 1;
    for (uint64_t from = lo;;) {
      const int cell = histogram_cell(from);
      const uint64_t to = cell == kBeyondCell ? hi : std::min(hi, histogram_cell_end(cell));
      share[cell] += static_cast<double>(b.count) * (static_cast<double>(to - from) + 1) / span;
      if (to == hi) break;
      from = to + 1;
    }
  }
  uint64_t cells[kBeyondCell + 1] = {};
  double running = 0;
  uint64_t given = 0;
  for (int c = 0; c <= kBeyondCell; ++c) {
    running += share[c];
    const auto upto = static_cast<uint64_t>(std::llround(running));
    cells[c] = upto > given ? upto - given : 0;
    given += cells[c];
  }
  std::string out;
  for (int row = 0; row < kHistRows; ++row) {
    out += kRows[row];
    for (int i = 0; i < 10; ++i)
      out += cformat(": %4llu", static_cast<unsigned long long>(cells[row * 10 + i]));
    out += '\n';
  }
  out += cformat(">100_SECS: %llu\n", static_cast<unsigned long long>(cells[kBeyondCell]));
  out += cformat("HIST_TOTAL:      %llu\n", static_cast<unsigned long long>(h.count()));
  return out;
}

std::string netperf_unit_name(char unit) {
  switch (unit) {
    case 'B':
      return "Bytes";
    case 'K':
      return "KBytes";
    case 'M':
      return "MBytes";
    case 'G':
      return "GBytes";
    case 'b':
      return "10^0bits";
    case 'k':
      return "10^3bits";
    case 'm':
      return "10^6bits";
    case 'g':
      return "10^9bits";
    case 'x':
      return "Trans";
    default:
      return "KBytes";
  }
}

char netperf_effective_unit(char unit, TestKind kind) {
  if (unit == 0) return is_rr(kind) ? 'x' : 'm';
  // netperf quietly turns 'x' into 'm' for tests without transactions.
  if (unit == 'x' && !is_rr(kind)) return 'm';
  return unit;
}

double netperf_rate(double units, double seconds, char unit) {
  if (!(seconds > 0)) return 0;
  double per_s = units / seconds;
  switch (unit) {
    case 'K':
      return per_s / 1024.0;
    case 'M':
      return per_s / (1024.0 * 1024.0);
    case 'G':
      return per_s / (1024.0 * 1024.0 * 1024.0);
    case 'b':
      return per_s * 8.0;  // netperf 2.7 forgets the 8 here; bits are bits
    case 'k':
      return per_s * 8.0 / 1e3;
    case 'm':
      return per_s * 8.0 / 1e6;
    case 'g':
      return per_s * 8.0 / 1e9;
    case 'x':
    case 'B':
      return per_s;
    default:
      return per_s / 1024.0;
  }
}

OmniValues netperf_values(const results::TestResult& r, const NetperfReportOptions& o) {
  const auto& info = spec::info(r.spec.test);
  const TestKind kind = r.spec.test;
  const bool udp = info.protocol == spec::Protocol::kUdp;
  const bool rr = is_rr(kind);
  const bool maerts = kind == TestKind::kTcpMaerts;
  const char unit = netperf_effective_unit(o.unit, kind);
  const Counts c = counts(r);

  OmniValues v;
  v.socket_type = udp ? "Datagram" : "Stream";
  v.protocol = udp ? "UDP" : "TCP";
  v.direction = o.direction.empty()
                    ? (rr       ? (info.connect_per_transaction ? "Connect|Send|Recv" : "Send|Recv")
                       : maerts ? "Receive"
                                : "Send")
                    : o.direction;
  v.elapsed_s = c.elapsed;
  v.units = netperf_unit_name(unit);

  // Socket buffers: as asked (-s/-S), as set up. flowperf reads them once,
  // at set-up, so "Final" is known only where the size was fixed by request
  // (netperf's own rule); otherwise it stays unmeasured.
  v.lss_req = o.lss_req;
  v.lsr_req = o.lsr_req;
  v.rss_req = o.rss_req;
  v.rsr_req = o.rsr_req;
  v.lss = size_or_unknown(r.local_side.sndbuf);
  v.lsr = size_or_unknown(r.local_side.rcvbuf);
  v.rss = size_or_unknown(r.remote_side.sndbuf);
  v.rsr = size_or_unknown(r.remote_side.rcvbuf);
  // "Final": read from the data socket when the test ended (autotuning grows
  // TCP's), as netperf does; where no reading came back, the initial size.
  auto final_size = [](int end, int initial) { return end > 0 ? end : initial; };
  v.lss_end = final_size(r.local_side.sndbuf_end, v.lss);
  v.lsr_end = final_size(r.local_side.rcvbuf_end, v.lsr);
  v.rss_end = final_size(r.remote_side.sndbuf_end, v.rss);
  v.rsr_end = final_size(r.remote_side.rcvbuf_end, v.rsr);

  const int send = static_cast<int>(r.spec.effective_send_size());
  const int recv = static_cast<int>(r.spec.effective_recv_size());
  // flowperf sends from one buffer and receives into one; netperf's 0 for
  // a direction an end does not use. A netserver says what its rings are.
  const bool local_sends = rr || !maerts, local_recvs = rr || maerts;
  v.local_send_width = local_sends ? 1 : 0;
  v.local_recv_width = local_recvs ? 1 : 0;
  const auto remote_width = [&](int reported, bool used) {
    return reported > 0 ? reported : used ? 1 : 0;
  };
  v.remote_send_width = remote_width(r.remote_side.send_width, rr || maerts);
  v.remote_recv_width = remote_width(r.remote_side.recv_width, rr || !maerts);
  if (rr) {
    v.local_send_size = v.local_recv_size = 0;
    v.request_size = static_cast<int>(r.spec.request_size);
    v.response_size = static_cast<int>(r.spec.response_size);
    v.remote_recv_size = v.request_size;
    v.remote_send_size = v.response_size;
  } else if (maerts) {
    v.local_send_size = 0;
    v.local_recv_size = recv;
    v.remote_send_size = send;
  } else {
    v.local_send_size = send;
    v.local_recv_size = 0;
    v.remote_recv_size = recv;
  }

  // Throughput as netperf computes it: transactions for 'x'; otherwise the
  // bytes the receiving side moved (here for MAERTS, at the server else).
  const double local_xferd = static_cast<double>(c.local.bytes_sent + c.local.bytes_recv);
  const double remote_xferd = static_cast<double>(c.remote.bytes_sent + c.remote.bytes_recv);
  if (unit == 'x')
    v.throughput = netperf_rate(static_cast<double>(c.local.transactions), c.elapsed, 'x');
  else if (maerts || !c.have_remote)
    v.throughput = netperf_rate(local_xferd, c.elapsed, unit);
  else
    v.throughput = netperf_rate(remote_xferd, c.elapsed, unit);

  const char side_unit = unit == 'x' ? 'm' : unit;
  v.local_send_tput = netperf_rate(static_cast<double>(c.local.bytes_sent), c.elapsed, side_unit);
  v.local_recv_tput = netperf_rate(static_cast<double>(c.local.bytes_recv), c.elapsed, side_unit);
  v.remote_send_tput = netperf_rate(static_cast<double>(c.remote.bytes_sent), c.elapsed, side_unit);
  v.remote_recv_tput = netperf_rate(static_cast<double>(c.remote.bytes_recv), c.elapsed, side_unit);

  v.sd_units = unit == 'x' ? "usec/Tran" : "usec/KB";
  // CPU only for the ends -c/-C asked for, as netperf fills them; an end
  // that was asked for but not measured (a netserver that did not measure)
  // keeps netperf's "not measured" values.
  const double sd_work = unit == 'x' ? static_cast<double>(c.local.transactions) : local_xferd;
  const double sd_divisor = unit == 'x' ? 1.0 : 1024.0;
  if (o.local_cpu && r.local_side.cpu)
    v.local_cpu = omni_cpu(*r.local_side.cpu, sd_work, sd_divisor, c.elapsed, OmniCpu{});
  if (o.remote_cpu && r.have_remote && r.remote_side.cpu)
    v.remote_cpu =
        omni_cpu(*r.remote_side.cpu, sd_work, sd_divisor, c.elapsed, OmniCpu::remote_unmeasured());
  if (rr && c.local.transactions > 0 && c.elapsed > 0) {
    v.transaction_rate = static_cast<double>(c.local.transactions) / c.elapsed;
    const int burst = info.connect_per_transaction ? 0 : std::max(o.first_burst, 0);
    v.rt_latency = 1e6 / v.transaction_rate * (1 + burst);
  }
  v.burst_size = o.first_burst;

  v.source_addr = o.source_host;
  v.source_port = std::to_string(o.source_port);
  v.dest_addr = o.dest_host;
  v.dest_port = std::to_string(o.dest_port);
  v.source_family = o.source_family;
  v.dest_family = o.dest_family;

  v.local_send_calls = c.local.send_calls;
  v.local_recv_calls = c.local.recv_calls;
  v.local_bytes_sent = c.local.bytes_sent;
  v.local_bytes_recvd = c.local.bytes_recv;
  v.remote_send_calls = c.remote.send_calls;
  v.remote_recv_calls = c.remote.recv_calls;
  v.remote_bytes_sent = c.remote.bytes_sent;
  v.remote_bytes_recvd = c.remote.bytes_recv;
  v.local_nodelay = v.remote_nodelay = r.spec.nodelay ? 1 : 0;
  if (!o.brand.empty()) v.brand = o.brand;
  v.uuid = o.uuid;
  v.command_line = o.command_line;
  // The data connection's TCP state at the end: netperf 2.7 fills these for
  // TCP tests with one long connection, and leaves them empty (-1, "") for
  // UDP and for TCP_CRR/TCP_CC; the MSS it reads for every TCP test.
  auto first_tcp = [](const results::SideResult& side) -> const net::TcpInfo* {
    return !side.flows.empty() && side.flows[0].tcp ? &*side.flows[0].tcp : nullptr;
  };
  if (!udp) {
    if (const net::TcpInfo* t = first_tcp(r.local_side); t && t->snd_mss > 0)
      v.transport_mss = static_cast<int>(t->snd_mss);
    else if (!r.local_side.flows.empty() && r.local_side.flows[0].connection_mss > 0)
      v.transport_mss = static_cast<int>(r.local_side.flows[0].connection_mss);  // TCP_CRR, TCP_CC
  }
  if (!udp && !info.connect_per_transaction) {
    auto retrans = [](const results::SideResult& side) {
      int64_t n = -1;
      for (const auto& f : side.flows)
        if (f.tcp) n = std::max<int64_t>(n, 0) + f.tcp->total_retrans;
      return static_cast<int>(std::min<int64_t>(n, INT32_MAX));
    };
    v.local_retrans = retrans(r.local_side);
    if (r.have_remote) v.remote_retrans = retrans(r.remote_side);
    if (const net::TcpInfo* t = first_tcp(r.local_side))
      v.local_cong_control = t->congestion_control;
    if (const net::TcpInfo* t = first_tcp(r.remote_side); t && r.have_remote)
      v.remote_cong_control = t->congestion_control;
  }
  v.local_socket_prio = r.spec.local.priority;
  v.remote_socket_prio = r.spec.remote.priority;
  v.local_socket_tos = r.spec.local.tos;
  v.remote_socket_tos = r.spec.remote.tos;

  // Per-transaction latency (RR), or per send or receive call (a stream
  // test's, TestSpec::call_latency): whole microseconds for the integer
  // selectors, as netperf keeps its histogram.
  const measure::Histogram& h = r.local_side.latency;
  if (h.count() > 0) {
    auto us = [](uint64_t ns) {
      return static_cast<int>(std::min<uint64_t>(ns / 1000, INT32_MAX));
    };
    v.min_latency = us(h.min());
    v.max_latency = us(h.max());
    v.p50_latency = us(h.percentile(50));
    v.p90_latency = us(h.percentile(90));
    v.p99_latency = us(h.percentile(99));
    v.mean_latency = h.mean() / 1000.0;
    v.stddev_latency = h.stddev() / 1000.0;
  }
  return v;
}

std::string netperf_banner(const NetperfReportOptions& o) {
  if (!o.headers) return {};
  std::string line =
      cformat("%s from %s (%s) port %u %s to %s (%s) port %u %s", o.title.c_str(),
              o.source_host.c_str(), banner_numeric(o.source_host, o.source_address).c_str(),
              o.source_port, o.source_v6 ? "AF_INET6" : "AF_INET", o.dest_host.c_str(),
              banner_numeric(o.dest_host, o.dest_address).c_str(), o.dest_port,
              o.dest_v6 ? "AF_INET6" : "AF_INET");
  // netperf's notes, in its order; ": histogram" and ": demo" describe how
  // a netperf binary was built, not the test, so they are left out. The
  // confidence note ends in a space (and a second one for its empty tail).
  if (o.iteration_max > 1)
    line += cformat(" : +/-%.3f%% @ %2d%% conf. %s", o.confidence_width_pct / 2, o.confidence_level,
                    o.result_confidence_only ? " on result only" : "");
  if (o.nodelay) line += " : nodelay";
  if (o.title.find("REQUEST/RESPONSE") != std::string::npos)
    line += cformat(" : first burst %d", o.first_burst);
  if (o.cpu_bind) line += " : cpu bind";
  return line + '\n';
}

namespace {

// The figures netperf averages over the runs, in the order of
// netperf_confidence_sample.
enum Averaged : size_t { kThroughput, kLocalCpu, kRemoteCpu, kElapsed, kLocalSd, kRemoteSd };

// What OMNI output adds at -v 2: the latency histogram, named as netperf
// names what it timed (transactions, or a stream test's send or recv calls).
std::string omni_histogram(const results::TestResult& r, const NetperfReportOptions& o) {
  if (o.verbosity < 2 || r.local_side.latency.count() == 0) return {};
  const char* what = r.spec.test == TestKind::kTcpCc ? "connect/close"
                     : spec::info(r.spec.test).connect_per_transaction
                         ? "connect/request/response/close"
                     : is_rr(r.spec.test)                  ? "request/response"
                     : r.spec.test == TestKind::kTcpMaerts ? "recv"
                                                           : "send";
  return std::string("\nHistogram of ") + what + " times\n" +
         netperf_histogram(r.local_side.latency);
}

std::string render(const results::TestResult& r, const NetperfReportOptions& o,
                   const OmniValues& v) {
  if (o.omni) {
    OmniSelection sel = o.selection;
    if (sel.empty()) {
      const bool rr = is_rr(r.spec.test);
      sel = default_omni_selection(rr ? OmniShape::kRequestResponse
                                   : r.spec.test == TestKind::kTcpMaerts ? OmniShape::kReceive
                                                                         : OmniShape::kSend,
                                   o.local_cpu || o.remote_cpu);
    }
    return render_omni(*o.omni, sel, v, o.headers) + omni_histogram(r, o);
  }
  switch (r.spec.test) {
    case TestKind::kTcpStream:
    case TestKind::kTcpMaerts:
      return stream_table(r, o, v);
    case TestKind::kUdpStream:
      return udp_stream_table(r, o, v);
    case TestKind::kTcpRr:
    case TestKind::kTcpCrr:
    case TestKind::kUdpRr:
    case TestKind::kTcpCc:
      return rr_table(r, o, v);
  }
  return {};
}

// The last run, carrying the latency of every run (netperf never clears
// its histogram between runs).
results::TestResult last_with_all_latency(const std::vector<results::TestResult>& runs) {
  results::TestResult last = runs.back();
  for (size_t i = 0; i + 1 < runs.size(); ++i)
    last.local_side.latency.merge(runs[i].local_side.latency);
  return last;
}

OmniValues values_of_runs(const results::TestResult& last, const measure::ConfidenceLoop& loop,
                          const NetperfReportOptions& o) {
  OmniValues v = netperf_values(last, o);
  if (o.iteration_max <= 1 || loop.iterations() == 0) return v;
  v.throughput = loop.interval(kThroughput).mean;
  v.elapsed_s = loop.interval(kElapsed).mean;
  v.local_cpu.util = loop.interval(kLocalCpu).mean;
  v.remote_cpu.util = loop.interval(kRemoteCpu).mean;
  v.local_cpu.sd = loop.interval(kLocalSd).mean;
  v.remote_cpu.sd = loop.interval(kRemoteSd).mean;
  v.confidence_level = o.confidence_level;
  v.confidence_interval = o.confidence_width_pct;
  v.confidence_iteration = loop.iterations();
  v.throughput_confid = loop.interval(kThroughput).width_pct;
  v.local_cpu_confid = loop.interval(kLocalCpu).width_pct;
  v.remote_cpu_confid = loop.interval(kRemoteCpu).width_pct;
  return v;
}

// netperf's words when the runs ran out before the interval was narrow
// enough; the widths are full widths in percent of the mean.
std::string confidence_warning(const OmniValues& v) {
  return cformat(
      "!!! WARNING\n"
      "!!! Desired confidence was not achieved within the specified iterations.\n"
      "!!! This implies that there was variability in the test environment that\n"
      "!!! must be investigated before going further.\n"
      "!!! Confidence intervals: Throughput      : %4.3f%%\n"
      "!!!                       Local CPU util  : %4.3f%%\n"
      "!!!                       Remote CPU util : %4.3f%%\n\n",
      v.throughput_confid, v.local_cpu_confid, v.remote_cpu_confid);
}

}  // namespace

std::string netperf_result(const results::TestResult& r, const NetperfReportOptions& o) {
  return render(r, o, netperf_values(r, o));
}

measure::ConfidenceLoop netperf_confidence_loop(const NetperfReportOptions& o) {
  measure::ConfidenceGoal goal;
  goal.level_pct = o.confidence_level > 0 ? o.confidence_level : 99;
  goal.width_pct = o.confidence_width_pct > 0 ? o.confidence_width_pct : 5;
  goal.max_iterations = std::max(o.iteration_max, 1);
  goal.min_iterations = std::clamp(o.iteration_min, 1, goal.max_iterations);
  const bool cpu_decides = !o.result_confidence_only;
  return measure::ConfidenceLoop(goal, {{"throughput", true},
                                        {"local CPU utilization", cpu_decides},
                                        {"remote CPU utilization", cpu_decides},
                                        {"elapsed time", false},
                                        {"local service demand", false},
                                        {"remote service demand", false}});
}

std::vector<double> netperf_confidence_sample(const results::TestResult& r,
                                              const NetperfReportOptions& o) {
  const OmniValues v = netperf_values(r, o);
  std::vector<double> sample(6);
  sample[kThroughput] = v.throughput;
  sample[kLocalCpu] = v.local_cpu.util;
  sample[kRemoteCpu] = v.remote_cpu.util;
  sample[kElapsed] = v.elapsed_s;
  sample[kLocalSd] = v.local_cpu.sd;
  sample[kRemoteSd] = v.remote_cpu.sd;
  return sample;
}

OmniValues netperf_values(const std::vector<results::TestResult>& runs,
                          const measure::ConfidenceLoop& loop, const NetperfReportOptions& o) {
  return values_of_runs(last_with_all_latency(runs), loop, o);
}

std::string netperf_result(const std::vector<results::TestResult>& runs,
                           const measure::ConfidenceLoop& loop, const NetperfReportOptions& o) {
  if (runs.empty()) return {};
  const results::TestResult last = last_with_all_latency(runs);
  const OmniValues v = values_of_runs(last, loop, o);
  std::string out;
  // Only the classic tables warn; OMNI output carries the widths instead.
  if (!o.omni && o.iteration_max > 1 && !loop.achieved()) out += confidence_warning(v);
  return out + render(last, o, v);
}

double netperf_interim_work(const spec::TestSpec& spec, const results::IntervalSample& s,
                            const NetperfReportOptions& o) {
  const char unit = netperf_effective_unit(o.unit, spec.test);
  double work = 0;
  for (const auto& f : s.flows) {
    if (unit == 'x')
      work += static_cast<double>(f.transactions);
    else if (is_rr(spec.test))
      work += static_cast<double>(f.bytes_sent + f.bytes_recv);
    else if (spec.test == TestKind::kTcpMaerts)
      work += static_cast<double>(f.bytes_recv);
    else
      work += static_cast<double>(f.bytes_sent);
  }
  return work;
}

std::string netperf_tcp_info_dump(const net::TcpInfo& t) {
  return cformat(
      "tcpi_rto %u tcpi_ato %u tcpi_pmtu %u tcpi_rcv_ssthresh %u\n"
      "tcpi_rtt %u tcpi_rttvar %u tcpi_snd_ssthresh %u tpci_snd_cwnd %u\n"
      "tcpi_reordering %u tcpi_total_retrans %u\n",
      t.rto_us, t.ato_us, t.pmtu, t.rcv_ssthresh, t.rtt_us, t.rttvar_us, t.snd_ssthresh, t.snd_cwnd,
      t.reordering, t.total_retrans);
}

std::string netperf_interim(const spec::TestSpec& spec, const DemoInterval& d,
                            const NetperfReportOptions& o, int index,
                            std::chrono::system_clock::time_point ending) {
  const char unit = netperf_effective_unit(o.unit, spec.test);
  const double seconds = d.seconds;
  const double rate = netperf_rate(d.work, seconds, unit);
  const std::string units = netperf_unit_name(unit);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(ending.time_since_epoch()).count();
  const long sec = static_cast<long>(ms / 1000), milli = static_cast<long>(ms % 1000);
  if (o.omni == OmniStyle::kKeyval)
    return cformat(
        "NETPERF_INTERIM_RESULT[%d]=%.2f\nNETPERF_UNITS[%d]=%s/s\nNETPERF_INTERVAL[%d]=%.3f\n"
        "NETPERF_ENDING[%d]=%ld.%.3ld\n",
        index, rate, index, units.c_str(), index, seconds, index, sec, milli);
  if (o.omni == OmniStyle::kCsv)
    return cformat("%7.2f,%s/s,%.3f,%ld.%.3ld\n", rate, units.c_str(), seconds, sec, milli);
  return cformat("Interim result: %7.2f %s/s over %.3f seconds ending at %ld.%.3ld\n", rate,
                 units.c_str(), seconds, sec, milli);
}

}  // namespace flowperf::report
