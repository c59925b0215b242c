// iperf3 3.12's human output and its units (iperf3_report.h). The line
// layouts below were measured on 3.12's recorded output
// (../shared/protocols/iperf3-wire.md §15, and runs of Debian's 3.12 with
// -P 2, --bidir -P 2 -O 1, -T, -u -P 2 -R and an interrupted client).
#include "report/iperf3_report.h"

#include <cctype>
#include <cstdint>
#include <string>

#include "report/iperf3_internal.h"

namespace flowperf::report::iperf3 {
namespace {

using detail::sfmt;

// iperf3's number-and-unit: `value` is bytes; a lower case letter shows bits
// (x8, steps of 1000), an upper case one bytes (steps of 1024); 'a'/'A'
// choose the step per number, k/m/g/t (K/M/G/T) force one. Three significant
// figures in four columns.
std::string units(double bytes, char letter, const char* tail) {
  static const char* const kBits[] = {"bit", "Kbit", "Mbit", "Gbit", "Tbit"};
  static const char* const kBytes[] = {"Byte", "KByte", "MByte", "GByte", "TByte"};
  bool as_bytes = std::isupper(static_cast<unsigned char>(letter)) != 0;
  double n = as_bytes ? bytes : bytes * 8;
  double step = as_bytes ? 1024.0 : 1000.0;
  int scale = 0;
  switch (std::tolower(static_cast<unsigned char>(letter))) {
    case 'b':
      scale = 0;
      break;
    case 'k':
      scale = 1;
      break;
    case 'm':
      scale = 2;
      break;
    case 'g':
      scale = 3;
      break;
    case 't':
      scale = 4;
      break;
    default:  // 'a' and anything else: adaptive
      for (double t = n; t >= step && scale < 4; t /= step) ++scale;
      break;
  }
  for (int i = 0; i < scale; ++i) n /= step;
  const char* format = n < 9.995 ? "%4.2f %s%s" : n < 99.95 ? "%4.1f %s%s" : "%4.0f %s%s";
  return sfmt(format, n, as_bytes ? kBytes[scale] : kBits[scale], tail);
}

constexpr const char* kSeparator = "- - - - - - - - - - - - - - - - - - - - - - - - -";
constexpr const char* kOmitted = "(omitted)";

// Lines as 3.12's client prints them: with -T each printf starts with
// "TITLE:  " (the server prints no title). One add() is one printf.
class Out {
 public:
  explicit Out(const StartInfo& start)
      : prefix_(start.role == Role::kClient && !start.title.empty() ? start.title + ":  " : "") {}
  void line(const std::string& s) { text_ += prefix_ + s + "\n"; }
  void add(const std::string& s) { text_ += prefix_ + s; }
  std::string take() { return std::move(text_); }

 private:
  std::string prefix_;
  std::string text_;
};

std::string role_tag(const StartInfo& start, bool sender) {
  if (!start.bidir) return "";
  return std::string(sender ? "[TX-" : "[RX-") + (start.role == Role::kClient ? "C]" : "S]");
}

std::string id_tag(int socket) { return sfmt("[%3d]", socket); }

std::string id_heading(const StartInfo& start) { return start.bidir ? "[ ID][Role]" : "[ ID]"; }

// "[  5][TX-C]   0.00-1.00   sec  2.21 GBytes  19.0 Gbits/sec"
std::string head(const std::string& tag, double from, double to, double bytes, double seconds,
                 Format f) {
  return tag + sfmt(" %6.2f-%-6.2f sec  ", from, to) + transfer(bytes, Format{}) + "  " +
         bitrate(detail::rate_bits(bytes, seconds), f);
}

// The columns after Bitrate.
std::string plain(const char* trail) { return std::string(18, ' ') + trail; }
std::string retr(int64_t retransmits, const char* trail) {
  return sfmt("  %3lld             %s", static_cast<long long>(retransmits), trail);
}
std::string retr_cwnd(int64_t retransmits, uint64_t cwnd, const char* trail) {
  return sfmt("  %3lld   ", static_cast<long long>(retransmits)) +
         transfer(static_cast<double>(cwnd), Format{}) + "       " + trail;
}
std::string udp_sent(uint64_t packets, const char* trail) {
  return sfmt("  %llu  %s", static_cast<unsigned long long>(packets), trail);
}
std::string udp_received(double jitter_ms, int64_t lost, uint64_t total, const char* trail) {
  return sfmt("  %5.3f ms  %lld/%llu (%.2g%%)  %s", jitter_ms, static_cast<long long>(lost),
              static_cast<unsigned long long>(total), detail::percent(lost, total), trail);
}

}  // namespace

std::string transfer(double bytes, Format f) {
  char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(f.unit)));
  return units(bytes, letter, "s");
}

std::string bitrate(double bits_per_second, Format f) {
  return units(bits_per_second / 8, f.unit, "s/sec");
}

std::string text_start(const StartInfo& start) {
  Out out(start);
  if (start.role == Role::kClient) {
    out.line(sfmt("Connecting to host %s, port %d", start.peer_host.c_str(), start.peer_port));
    if (start.reverse)
      out.line(sfmt("Reverse mode, remote host %s is sending", start.peer_host.c_str()));
  } else {
    out.line(
        sfmt("Accepted connection from %s, port %d", start.peer_host.c_str(), start.peer_port));
  }
  for (const Connected& c : start.connected) {
    out.line(sfmt("[%3d] local %s port %d connected to %s port %d", c.socket, c.local_host.c_str(),
                  c.local_port, c.remote_host.c_str(), c.remote_port));
  }
  // 3.12 prints the heading with the first interval; the columns follow
  // whether this side sends (TCP: Retr and Cwnd) and, for UDP, what its
  // first stream does.
  std::string h = id_heading(start) + " Interval           Transfer     Bitrate";
  bool sends = start.bidir || detail::first_stream_sends(start);
  if (!start.udp) {
    if (sends) h += "         Retr  Cwnd";
  } else {
    h += detail::first_stream_sends(start) ? "         Total Datagrams"
                                           : "         Jitter    Lost/Total Datagrams";
  }
  out.line(h);
  return out.take();
}

std::string text_interval(const StartInfo& start, const Interval& interval, Format f) {
  Out out(start);
  if (interval.streams.empty()) return {};
  const StreamSample& first = interval.streams.front();
  // 3.12 separates intervals of a test with more than one stream by the
  // rule; the first interval (the first omitted one, or with no -O the one
  // from 0) follows the heading instead. After -O the counting restarts at
  // 0.00, and that interval does get the rule.
  bool very_first = first.start <= 0 && (first.omitted || start.omit == 0);
  if (!very_first && start.num_streams > 1) out.line(kSeparator);

  for (const auto& g : detail::groups(start, interval.streams)) {
    std::string role = role_tag(start, g.sender);
    for (const StreamSample* s : g.items) {
      const char* trail = s->omitted ? kOmitted : "";
      std::string l = head(id_tag(s->socket) + role, s->start, s->end,
                           static_cast<double>(s->bytes), detail::interval_seconds(*s), f);
      if (!start.udp)
        l += s->sender ? retr_cwnd(s->retransmits, s->snd_cwnd, trail) : plain(trail);
      else if (s->sender)
        l += udp_sent(s->packets, trail);
      else
        l += udp_received(s->jitter_ms, s->lost, detail::interval_total(*s), trail);
      out.line(l);
    }
    if (start.num_streams > 1 && !g.items.empty()) {
      // The sum takes its times from the test's first stream, as 3.12 does.
      uint64_t bytes = 0, packets = 0;
      int64_t retransmits = 0, lost = 0;
      double jitter = 0;
      for (const StreamSample* s : g.items) {
        bytes += s->bytes;
        retransmits += s->retransmits;
        packets += s->sender ? s->packets : detail::interval_total(*s);
        lost += s->lost;
        jitter += s->jitter_ms;
      }
      jitter /= static_cast<double>(g.items.size());
      const char* trail = first.omitted ? kOmitted : "";
      std::string l = head("[SUM]" + role, first.start, first.end, static_cast<double>(bytes),
                           detail::interval_seconds(first), f);
      if (!start.udp)
        l += g.sender ? retr(retransmits, trail) : plain(trail);
      else if (g.sender)
        l += udp_sent(packets, trail);
      else
        l += udp_received(jitter, lost, packets, trail);
      out.line(l);
    }
  }
  return out.take();
}

std::string text_summary(const Report& report, Format f) {
  const StartInfo& start = report.start;
  Out out(start);
  bool client = start.role == Role::kClient;
  out.line(kSeparator);

  bool any_retr = false;
  for (const StreamEnd& s : report.end.streams) any_retr |= detail::shows_retransmits(start, s);
  std::string h = id_heading(start) + " Interval           Transfer     Bitrate";
  if (!start.udp) {
    if (any_retr) h += "         Retr";
  } else {
    h += "         Jitter    Lost/Total Datagrams";
  }
  out.line(h);

  // The client prints both ends of every stream; the server only its own.
  for (const auto& g : detail::groups(start, report.end.streams)) {
    std::string role = role_tag(start, g.sender);
    bool want_sent = client || g.sender;
    bool want_received = client || !g.sender;
    uint64_t sent_bytes = 0, received_bytes = 0, sent_packets = 0, received_packets = 0;
    int64_t retransmits = 0, lost = 0;
    double jitter = 0, sent_seconds = 0, received_seconds = 0;
    bool sum_retr = false;
    for (const StreamEnd* s : g.items) {
      Totals r = detail::received(*s);
      std::string tag = id_tag(s->socket) + role;
      bool with_retr = detail::shows_retransmits(start, *s);
      if (want_sent) {
        std::string l =
            head(tag, 0, s->sent.seconds, static_cast<double>(s->sent.bytes), s->sent.seconds, f);
        if (!start.udp)
          l += with_retr ? retr(s->sent.retransmits, "sender") : plain("sender");
        else
          l += udp_received(0, 0, s->sent.packets, "sender");
        out.line(l);
      }
      if (want_received) {
        std::string l = head(tag, 0, r.seconds, static_cast<double>(r.bytes), r.seconds, f);
        l += start.udp ? udp_received(r.jitter_ms, r.lost, r.packets, "receiver")
                       : plain("receiver");
        out.line(l);
      }
      // Sums as 3.12 makes them: the times of the group's last stream.
      sent_bytes += s->sent.bytes;
      received_bytes += r.bytes;
      sent_packets += s->sent.packets;
      received_packets += r.packets;
      lost += r.lost;
      jitter += r.jitter_ms;
      if (with_retr) {
        retransmits += s->sent.retransmits;
        sum_retr = true;
      }
      sent_seconds = s->sent.seconds;
      received_seconds = r.seconds;
    }
    if (start.num_streams > 1 && !g.items.empty()) {
      jitter /= static_cast<double>(g.items.size());
      std::string tag = "[SUM]" + role;
      if (want_sent) {
        std::string l =
            head(tag, 0, sent_seconds, static_cast<double>(sent_bytes), sent_seconds, f);
        if (!start.udp)
          l += sum_retr ? retr(retransmits, "sender") : plain("sender");
        else
          l += udp_received(0, 0, sent_packets, "sender");
        out.line(l);
      }
      if (want_received) {
        std::string l = head(tag, 0, received_seconds, static_cast<double>(received_bytes),
                             received_seconds, f);
        l += start.udp ? udp_received(jitter, lost, received_packets, "receiver")
                       : plain("receiver");
        out.line(l);
      }
    }
  }

  // --get-server-output: the client prints the server's output after its
  // summary, in one printf (so -T's prefix comes once, before the blank line).
  if (client && report.server_output_json) {
    out.add("\nServer JSON output:\n" + cjson_print(*report.server_output_json) + "\n");
  } else if (client && report.server_output_text) {
    out.add("\nServer output:\n" + *report.server_output_text + "\n");
  }
  return out.take();
}

}  // namespace flowperf::report::iperf3
