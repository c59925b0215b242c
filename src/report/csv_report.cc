#include "report/csv_report.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "report/summary.h"

namespace flowperf::report {
namespace {

// One row, its fields in kCsvColumns' order; an empty field is a figure
// the test does not have.
class Row {
 public:
  Row& text(std::string_view v) {
    add(quoted(v));
    return *this;
  }
  Row& count(uint64_t v) {
    add(std::to_string(v));
    return *this;
  }
  Row& fixed(double v, int places) {
    if (!std::isfinite(v)) return blank();
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", places, v);
    add(b);
    return *this;
  }
  Row& blank() {
    add("");
    return *this;
  }
  Row& blanks(int n) {
    for (int i = 0; i < n; ++i) blank();
    return *this;
  }
  std::string line() {
    line_ += '\n';
    return std::move(line_);
  }

 private:
  void add(std::string_view v) {
    if (fields_++) line_ += ',';
    line_ += v;
  }
  // RFC 4180: a field holding a comma, a quote or a line break is quoted,
  // its quotes doubled.
  static std::string quoted(std::string_view v) {
    if (v.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(v);
    std::string q = "\"";
    for (char c : v) {
      if (c == '"') q += '"';
      q += c;
    }
    return q + '"';
  }
  std::string line_;
  size_t fields_ = 0;
};

// The TCP columns (retransmits, rtt_us, cwnd).
void tcp_fields(Row& row, const std::optional<net::TcpInfo>& tcp, std::optional<uint64_t> retrans) {
  if (retrans)
    row.count(*retrans);
  else
    row.blank();
  if (tcp)
    row.count(tcp->rtt_us).count(tcp->snd_cwnd);
  else
    row.blanks(2);
}

void latency_fields(Row& row, const measure::Histogram* h) {
  if (!h || h->count() == 0) {
    row.blanks(3);
    return;
  }
  for (double p : {50.0, 99.0, 99.9}) row.fixed(static_cast<double>(h->percentile(p)) / 1e3, 1);
}

const results::FlowResult* flow_at(const results::SideResult& side, uint32_t index) {
  for (const auto& f : side.flows)
    if (f.index == index) return &f;
  return nullptr;
}

}  // namespace

std::string csv_header() {
  Row row;
  for (const char* c : kCsvColumns) row.text(c);
  return row.line();
}

std::string csv_interval(const spec::TestSpec& spec, const results::IntervalSample& iv) {
  const spec::TestInfo& info = spec::info(spec.test);
  const bool rr = info.workload == spec::Workload::kRr;
  const bool udp = info.protocol == spec::Protocol::kUdp;
  const bool maerts = spec.test == spec::TestKind::kTcpMaerts;
  const double dt = iv.end_s - iv.start_s;
  auto per_s = [&](double v) { return dt > 0 ? v / dt : NAN; };
  std::string out;
  results::IntervalFlow sum;
  uint64_t retrans = 0;
  bool tcp = false;
  auto row_for = [&](const results::IntervalFlow& f, const std::string& stream, bool is_sum) {
    Row row;
    row.text("interval").text(stream).fixed(iv.start_s, 3).fixed(iv.end_s, 3);
    row.count(f.bytes_sent).count(f.bytes_recv);
    row.fixed(per_s(8.0 * static_cast<double>(maerts ? f.bytes_recv : f.bytes_sent)), 0);
    if (rr)
      row.count(f.transactions).fixed(per_s(static_cast<double>(f.transactions)), 2);
    else
      row.blanks(2);
    // Loss and jitter are the receiver's: the server's samples, which come
    // at the end (--json's remote.intervals); the end rows have the totals.
    if (udp)
      row.count(f.datagrams_sent).count(f.datagrams_recv).blanks(2);
    else
      row.blanks(4);
    if (rr && udp)
      row.count(f.timeouts);
    else
      row.blank();
    if (is_sum)
      tcp_fields(row, std::nullopt, tcp ? std::optional<uint64_t>(retrans) : std::nullopt);
    else
      tcp_fields(row, f.tcp, f.tcp ? std::optional<uint64_t>(f.retrans) : std::nullopt);
    row.blanks(3).blank();  // latency and error: only at the end
    return row.line();
  };
  for (size_t i = 0; i < iv.flows.size(); ++i) {
    const auto& f = iv.flows[i];
    out += row_for(f, std::to_string(i), false);
    sum.bytes_sent += f.bytes_sent;
    sum.bytes_recv += f.bytes_recv;
    sum.transactions += f.transactions;
    sum.datagrams_sent += f.datagrams_sent;
    sum.datagrams_recv += f.datagrams_recv;
    sum.timeouts += f.timeouts;
    if (f.tcp) {
      tcp = true;
      retrans += f.retrans;
    }
  }
  out += row_for(sum, "sum", true);
  return out;
}

std::string csv_result(const results::TestResult& r) {
  const Summary sum = summarize(r);
  const spec::TestInfo& info = spec::info(r.spec.test);
  const bool udp = info.protocol == spec::Protocol::kUdp;
  // The sending side's TCP state: the server's flow when it sends.
  const bool remote_sends = r.spec.test == spec::TestKind::kTcpMaerts;
  const results::SideResult* tcp_side =
      remote_sends ? (r.have_remote ? &r.remote_side : nullptr) : &r.local_side;
  std::string out;
  uint64_t retrans_sum = 0;
  bool any_tcp = false;
  auto row_for = [&](const StreamSummary& s, const std::string& stream,
                     const results::FlowResult* local, const results::FlowResult* sender,
                     bool is_sum) {
    Row row;
    row.text("end").text(stream).fixed(0, 3).fixed(s.elapsed_s, 3);
    if (sum.stream_family) {
      row.count(s.bytes_sent).count(s.bytes_received).fixed(s.throughput_bps, 0).blanks(2);
    } else {
      uint64_t sent = 0, recv = 0;
      if (is_sum) {
        for (const auto& f : r.local_side.flows) {
          sent += f.bytes_sent;
          recv += f.bytes_recv;
        }
      } else if (local) {
        sent = local->bytes_sent;
        recv = local->bytes_recv;
      }
      row.count(sent).count(recv).blank().count(s.transactions).fixed(s.transactions_per_s, 2);
    }
    if (udp && sum.stream_family)
      row.count(s.datagrams_sent)
          .count(s.datagrams_received)
          .count(s.datagrams_lost)
          .fixed(s.jitter_ms, 3);
    else
      row.blanks(4);  // UDP_RR's losses are its timeouts
    if (udp && !sum.stream_family)
      row.count(s.timeouts);
    else
      row.blank();
    if (is_sum) {
      tcp_fields(row, std::nullopt, any_tcp ? std::optional<uint64_t>(retrans_sum) : std::nullopt);
    } else if (sender && sender->tcp) {
      tcp_fields(row, sender->tcp, sender->tcp->total_retrans);
    } else {
      tcp_fields(row, std::nullopt, std::nullopt);
    }
    latency_fields(row, sum.stream_family ? nullptr : s.latency);
    if (is_sum)
      row.text(r.error);
    else
      row.text(local ? local->error : std::string());
    return row.line();
  };
  for (size_t i = 0; i < sum.streams.size(); ++i) {
    const StreamSummary& s = sum.streams[i];
    const results::FlowResult* local = flow_at(r.local_side, s.index);
    const results::FlowResult* sender = tcp_side ? flow_at(*tcp_side, s.index) : nullptr;
    if (sender && sender->tcp) {
      any_tcp = true;
      retrans_sum += sender->tcp->total_retrans;
    }
    out += row_for(s, std::to_string(s.index), local, sender, false);
  }
  out += row_for(sum.total, "sum", nullptr, nullptr, true);
  return out;
}

}  // namespace flowperf::report
