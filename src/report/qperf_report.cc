#include "report/qperf_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/units.h"
#include "measure/cpu_meter.h"
#include "report/summary.h"

namespace flowperf::report {
namespace {

// qperf's verbosity classes: a row shows always, or when its class is
// switched on (level 1 or 2) and its value is positive.
enum class Level { kAlways, kStat, kTime, kUsed, kMoreStat, kMoreTime, kMoreUsed };

// Collects rows, applying the verbosity gate and unit scaling of each kind
// of value.
class Rows {
 public:
  explicit Rows(const QperfDisplay& d) : d_(d) {}

  std::vector<QperfRow> take() { return std::move(rows_); }

  // Seconds, shown in ns, us, ms or sec.
  void time(Level l, const std::string& name, double seconds) {
    static const char* const kUnits[] = {"ns", "us", "ms", "sec"};
    scaled(l, name, seconds * 1e9, kUnits, 4);
  }
  // Events per second: /sec, K/sec, M/sec ...
  void rate(Level l, const std::string& name, double per_s) {
    static const char* const kUnits[] = {"/sec", "K/sec", "M/sec", "G/sec", "T/sec"};
    scaled(l, name, per_s, kUnits, 5);
  }
  // Bytes per second, in decimal multiples (1 KB/sec = 1000 bytes/sec), or
  // bits per second with -ub.
  void band(Level l, const std::string& name, double bytes_per_s) {
    static const char* const kBytes[] = {"bytes/sec", "KB/sec", "MB/sec", "GB/sec", "TB/sec"};
    static const char* const kBits[] = {"bits/sec", "Kb/sec", "Mb/sec", "Gb/sec", "Tb/sec"};
    if (d_.bits_per_sec)
      scaled(l, name, bytes_per_s * 8, kBits, 5);
    else
      scaled(l, name, bytes_per_s, kBytes, 5);
  }
  // A plain count; from a million up it reads "1.5 million". Below that the
  // unit is empty, and qperf still prints the space before it.
  void count(Level l, const std::string& name, double n) {
    static const char* const kUnits[] = {"", "thousand", "million", "billion", "trillion"};
    if (!shown(l, n)) return;
    int i = 0;
    if (!d_.unify_units && n >= 1e6) {
      while (n >= 1000 && i < 4) {
        n /= 1000;
        ++i;
      }
    }
    number(name, n, kUnits[i]);
  }
  // Bytes: whole KiB/MiB/GiB/TiB multiples exactly, with the byte count
  // after; anything else in decimal KB, MB ...
  void size(Level l, const std::string& name, double bytes) {
    static const char* const kUnits[] = {"bytes", "KB", "MB", "GB", "TB"};
    if (!shown(l, bytes)) return;
    if (!d_.unify_units && binary_multiple(name, bytes)) return;
    scaled(Level::kAlways, name, bytes, kUnits, 5);
  }
  // A share of the CPUs in percent of one CPU ("200 % cpus": two busy
  // CPUs); never scaled.
  void cpus(Level l, const std::string& name, double percent) {
    if (!shown(l, percent)) return;
    number(name, percent, "% cpus");
  }
  // CPU seconds per GB (10^9 bytes) moved, shown in ns/GB, us/GB, ms/GB or
  // sec/GB.
  void cost(Level l, const std::string& name, double sec_per_gb) {
    static const char* const kUnits[] = {"ns/GB", "us/GB", "ms/GB", "sec/GB"};
    scaled(l, name, sec_per_gb * 1e9, kUnits, 4);
  }
  void text(Level l, const std::string& name, const std::string& value) {
    if (!shown(l, value.empty() ? 0 : 1)) return;
    rows_.push_back({name, value, std::nullopt, ""});
  }

 private:
  bool shown(Level l, double v) const {
    if (l == Level::kAlways) return true;
    if (!(v > 0)) return false;
    const QperfVerbosity& b = d_.verbose;
    switch (l) {
      case Level::kStat:
        return b.stat >= 1;
      case Level::kTime:
        return b.time >= 1;
      case Level::kUsed:
        return b.used >= 1;
      case Level::kMoreStat:
        return b.stat >= 2;
      case Level::kMoreTime:
        return b.time >= 2;
      case Level::kMoreUsed:
        return b.used >= 2;
      case Level::kAlways:
        break;
    }
    return true;
  }

  void scaled(Level l, const std::string& name, double v, const char* const* units, int n) {
    if (!shown(l, v)) return;
    int i = 0;
    if (!d_.unify_units) {
      while (v >= 1000 && i < n - 1) {
        v /= 1000;
        ++i;
      }
    }
    number(name, v, units[i]);
  }

  void number(const std::string& name, double v, const char* unit) {
    rows_.push_back({name, qperf_number(v, d_.precision, !d_.unify_units), std::string(unit), ""});
  }

  bool binary_multiple(const std::string& name, double bytes) {
    static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024 || bytes > 9.0e18) return false;
    const auto whole = static_cast<unsigned long long>(bytes);
    if (static_cast<double>(whole) != bytes || whole % 1024) return false;
    unsigned long long v = whole / 1024;
    int i = 0;
    while (v >= 1024 && i < 3) {
      if (v % 1024) return false;
      v /= 1024;
      ++i;
    }
    rows_.push_back({name, qperf_number(static_cast<double>(v), 40), std::string(kUnits[i]),
                     qperf_number(static_cast<double>(whole), 40)});
    return true;
  }

  const QperfDisplay& d_;
  std::vector<QperfRow> rows_;
};

std::string insert_commas(const std::string& s) {
  size_t begin = s[0] == '-' ? 1 : 0;
  size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  std::string out = s.substr(0, begin);
  for (size_t i = begin; i < end; ++i) {
    out += s[i];
    size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + s.substr(end);
}

double whole_messages(uint64_t bytes, uint32_t size) {
  return size ? std::floor(static_cast<double>(bytes) / size) : 0;
}

void used_rows(Rows& out, const std::vector<QperfParam>& used, const QperfDisplay& d) {
  for (const auto& p : used) {
    if (d.verbose.used < 2 && !p.set) continue;
    const bool same = p.kind == QperfParam::Kind::kText ? p.loc_text == p.rem_text : p.loc == p.rem;
    auto one = [&](const std::string& name, double v, const std::string& text) {
      switch (p.kind) {
        case QperfParam::Kind::kCount:
          out.count(Level::kUsed, name, v);
          break;
        case QperfParam::Kind::kSize:
          out.size(Level::kUsed, name, v);
          break;
        case QperfParam::Kind::kTime:
          out.time(Level::kUsed, name, v);
          break;
        case QperfParam::Kind::kText:
          out.text(Level::kUsed, name, text);
          break;
      }
    };
    if (same) {
      one(p.name, p.loc, p.loc_text);
    } else {
      one("loc_" + p.name, p.loc, p.loc_text);
      one("rem_" + p.name, p.rem, p.rem_text);
    }
  }
}

// One end's CPU use as qperf shows it, in percent of one CPU (200 is two
// busy CPUs), from qperf's split of the /proc/stat ticks: user (with nice),
// intr (irq and softirq), kernel (system and steal) and iowait. `used` is
// their sum (qperf counts iowait as used), `time_s` the CPU seconds that
// makes over the measured interval. All zero when the end was not measured,
// which hides the rows as qperf hides zero values.
struct EndCpu {
  double used = 0, user = 0, intr = 0, kernel = 0, iowait = 0;
  double time_s = 0;
};

EndCpu end_cpu(const std::optional<measure::CpuUsage>& u) {
  EndCpu c;
  if (!u) return c;
  // CpuUsage is in percent of all CPUs; its busy time less the named kinds
  // is steal, which qperf counts as kernel time.
  const double n = u->num_cpus;
  const double steal = std::max(0.0, u->util - u->user - u->system - u->irq - u->softirq);
  c.user = u->user * n;
  c.intr = (u->irq + u->softirq) * n;
  c.kernel = (u->system + steal) * n;
  c.iowait = u->iowait * n;
  c.used = c.user + c.intr + c.kernel + c.iowait;
  c.time_s = c.used / 100 * u->elapsed_s;
  return c;
}

// One end's counts and CPU use, for the cost, -vt, -vvt and -vvs rows.
struct EndCounts {
  double real_time = 0;
  uint64_t send_errors = 0, send_bytes = 0, recv_bytes = 0;
  double send_msgs = 0, recv_msgs = 0;
  EndCpu cpu;
};

EndCounts end_counts(const results::SideResult& side, uint32_t send_size, uint32_t recv_size) {
  results::FlowResult t = side.total();
  EndCounts c;
  c.cpu = end_cpu(side.cpu);
  c.real_time = side.elapsed_s;
  c.send_errors = t.send_errors;
  c.send_bytes = t.bytes_sent;
  c.recv_bytes = t.bytes_recv;
  c.send_msgs = whole_messages(t.bytes_sent, send_size);
  c.recv_msgs = whole_messages(t.bytes_recv, recv_size);
  return c;
}

// Both ends' counts. A missing server result leaves the remote counts (and
// CPU) at zero, which hides their rows.
struct Ends {
  EndCounts loc, rem;
};

Ends ends(const results::TestResult& r) {
  const bool stream = spec::info(r.spec.test).workload == spec::Workload::kStream;
  // Message sizes each end sends and receives: one size for a stream, the
  // request and response sizes for request/response.
  const uint32_t msg = r.spec.effective_send_size();
  const uint32_t loc_send = stream ? msg : r.spec.request_size;
  const uint32_t loc_recv = stream ? msg : r.spec.response_size;
  Ends e;
  e.loc = end_counts(r.local_side, loc_send, loc_recv);
  if (r.have_remote) e.rem = end_counts(r.remote_side, loc_recv, loc_send);
  return e;
}

// qperf's send_cost and recv_cost: the CPU seconds per GB of the end that
// only sends (only receives), where the other end does not send (receive)
// too. Latency tests, where both ends do both, have neither.
void cost_rows(Rows& out, const Ends& e) {
  const EndCounts &loc = e.loc, &rem = e.rem;
  auto per_gb = [](double cpu_s, uint64_t bytes) {
    return cpu_s * 1e9 / static_cast<double>(bytes);
  };
  double send = 0, recv = 0;
  if (loc.send_bytes && !loc.recv_bytes && !rem.send_bytes)
    send = per_gb(loc.cpu.time_s, loc.send_bytes);
  else if (rem.send_bytes && !rem.recv_bytes && !loc.send_bytes)
    send = per_gb(rem.cpu.time_s, rem.send_bytes);
  if (rem.recv_bytes && !rem.send_bytes && !loc.recv_bytes)
    recv = per_gb(rem.cpu.time_s, rem.recv_bytes);
  else if (loc.recv_bytes && !loc.send_bytes && !rem.recv_bytes)
    recv = per_gb(loc.cpu.time_s, loc.recv_bytes);
  out.cost(Level::kTime, "send_cost", send);
  out.cost(Level::kTime, "recv_cost", recv);
}

// One end's CPU rows: cpus_used with -vt, its split with -vvt.
void cpu_rows(Rows& out, const std::string& p, const EndCpu& c) {
  out.cpus(Level::kTime, p + "cpus_used", c.used);
  out.cpus(Level::kMoreTime, p + "cpus_user", c.user);
  out.cpus(Level::kMoreTime, p + "cpus_intr", c.intr);
  out.cpus(Level::kMoreTime, p + "cpus_kernel", c.kernel);
  out.cpus(Level::kMoreTime, p + "cpus_iowait", c.iowait);
}

// The rows qperf shows after the parameters and costs: each end's CPU use,
// times and counts.
void rest_rows(Rows& out, const results::TestResult& r, const Ends& e, const QperfDisplay& d) {
  const auto& info = spec::info(r.spec.test);
  const bool stream = info.workload == spec::Workload::kStream;
  const EndCounts &loc = e.loc, &rem = e.rem;

  if (stream && !d.unify_nodes) {
    // Sender and receiver rather than local and remote.
    const bool client_sends = info.client_sends;
    const EndCounts& s = client_sends ? loc : rem;
    const EndCounts& v = client_sends ? rem : loc;
    cpu_rows(out, "send_", s.cpu);
    out.time(Level::kMoreTime, "send_real_time", s.real_time);
    out.time(Level::kMoreTime, "send_cpu_time", s.cpu.time_s);
    out.count(Level::kMoreStat, "send_errors", static_cast<double>(s.send_errors));
    out.size(Level::kMoreStat, "send_bytes", static_cast<double>(s.send_bytes));
    out.count(Level::kMoreStat, "send_msgs", s.send_msgs);
    cpu_rows(out, "recv_", v.cpu);
    out.time(Level::kMoreTime, "recv_real_time", v.real_time);
    out.time(Level::kMoreTime, "recv_cpu_time", v.cpu.time_s);
    out.size(Level::kMoreStat, "recv_bytes", static_cast<double>(v.recv_bytes));
    out.count(Level::kMoreStat, "recv_msgs", v.recv_msgs);
    return;
  }
  for (const auto& [prefix, c] : {std::pair<const char*, const EndCounts&>{"loc_", loc},
                                  std::pair<const char*, const EndCounts&>{"rem_", rem}}) {
    const std::string p = prefix;
    cpu_rows(out, p, c.cpu);
    out.time(Level::kMoreTime, p + "real_time", c.real_time);
    out.time(Level::kMoreTime, p + "cpu_time", c.cpu.time_s);
    out.count(Level::kMoreStat, p + "send_errors", static_cast<double>(c.send_errors));
    out.size(Level::kMoreStat, p + "send_bytes", static_cast<double>(c.send_bytes));
    out.size(Level::kMoreStat, p + "recv_bytes", static_cast<double>(c.recv_bytes));
    out.count(Level::kMoreStat, p + "send_msgs", c.send_msgs);
    out.count(Level::kMoreStat, p + "recv_msgs", c.recv_msgs);
  }
}

}  // namespace

std::string qperf_number(double v, int precision, bool commas) {
  std::string s = core::format_sig(v, precision);
  return commas && std::isfinite(v) ? insert_commas(s) : s;
}

std::string qperf_rows_text(const std::vector<QperfRow>& rows) {
  size_t name_w = 0, data_w = 0;
  for (const auto& r : rows) {
    name_w = std::max(name_w, r.name.size());
    if (r.unit) data_w = std::max(data_w, r.data.size());
  }
  std::string out;
  for (const auto& r : rows) {
    out += "    " + r.name + std::string(name_w - r.name.size(), ' ') + "  =  ";
    if (r.unit)
      out += std::string(data_w - r.data.size(), ' ') + r.data + " " + *r.unit;
    else
      out += r.data;
    if (!r.alt.empty()) out += " (" + r.alt + ")";
    out += "\n";
  }
  return out;
}

std::vector<QperfRow> qperf_test_rows(const results::TestResult& r,
                                      const std::vector<QperfParam>& used, const QperfDisplay& d) {
  const Summary s = summarize(r);
  const StreamSummary& t = s.total;
  Rows out(d);
  const double elapsed = t.elapsed_s;
  auto per_s = [&](double n) { return elapsed > 0 ? n / elapsed : 0; };
  if (s.stream_family) {
    const uint32_t msg = r.spec.effective_send_size();
    if (s.udp) {
      out.band(Level::kAlways, "send_bw", t.send_bps / 8);
      out.band(Level::kAlways, "recv_bw", t.throughput_bps / 8);
      out.rate(Level::kStat, "msg_rate", per_s(static_cast<double>(t.datagrams_received)));
    } else {
      out.band(Level::kAlways, "bw", t.throughput_bps / 8);
      out.rate(Level::kStat, "msg_rate", per_s(whole_messages(t.bytes_received, msg)));
    }
  } else {
    // One way latency: half the mean round trip.
    double latency_s = 0;
    if (t.latency && t.latency->count() > 0)
      latency_s = t.latency->mean() / 2 / 1e9;
    else if (t.transactions > 0)
      latency_s = elapsed / (2.0 * static_cast<double>(t.transactions));
    out.time(Level::kAlways, "latency", latency_s);
    // Messages received by both ends per second.
    const uint64_t remote = r.have_remote ? t.remote_transactions : t.transactions;
    out.rate(Level::kStat, "msg_rate", per_s(static_cast<double>(t.transactions + remote)));
  }
  used_rows(out, used, d);
  const Ends e = ends(r);
  cost_rows(out, e);
  rest_rows(out, r, e, d);
  return out.take();
}

std::vector<QperfRow> qperf_conf_rows(const QperfHost& loc, const QperfHost& rem) {
  std::vector<QperfRow> rows;
  for (const auto& [prefix, h] : {std::pair<const char*, const QperfHost&>{"loc_", loc},
                                  std::pair<const char*, const QperfHost&>{"rem_", rem}}) {
    const std::string p = prefix;
    rows.push_back({p + "node", h.node, std::nullopt, ""});
    rows.push_back({p + "cpu", h.cpu, std::nullopt, ""});
    rows.push_back({p + "os", h.os, std::nullopt, ""});
    rows.push_back({p + "qperf", h.version, std::nullopt, ""});
  }
  return rows;
}

std::string qperf_cpu_text(unsigned cores, std::string_view model, double mhz) {
  auto starts = [&](size_t i, std::string_view word) {
    if (model.size() - i < word.size()) return false;
    for (size_t k = 0; k < word.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(model[i + k])) != word[k]) return false;
    return true;
  };
  // Marks and filler words out, runs of spaces squeezed to one.
  std::string name;
  size_t i = 0;
  while (i < model.size()) {
    if (starts(i, "(r)")) {
      i += 3;
    } else if (starts(i, "(tm)")) {
      i += 4;
    } else if (starts(i, "cpu ")) {
      i += 4;
    } else if (starts(i, "processor ")) {
      i += 10;
    } else if (model[i] == ' ' && i + 1 < model.size() && model[i + 1] == ' ') {
      i += 1;
    } else if (model[i] == '\n') {
      i += 1;
    } else {
      name += model[i++];
    }
  }
  std::string speed;
  const bool has_hz = name.size() >= 3 && name.compare(name.size() - 2, 2, "Hz") == 0;
  const long whole_mhz = static_cast<long>(mhz);
  if (!has_hz && whole_mhz > 0) {
    char buf[32];
    if (whole_mhz < 1000)
      std::snprintf(buf, sizeof buf, " %ldMHz", whole_mhz);
    else
      std::snprintf(buf, sizeof buf, " %.1fGHz", static_cast<double>(whole_mhz) / 1000.0);
    speed = buf;
  }
  std::string count = cores == 1 ? "" : std::to_string(cores) + " Cores: ";
  return count + name + speed;
}

}  // namespace flowperf::report
