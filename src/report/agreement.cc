#include "report/agreement.h"

#include <fmt/format.h>

#include <algorithm>

namespace flowperf::report {

using results::FlowResult;
using spec::TestKind;

namespace {

Agreement yes(const std::string& why) { return {true, "yes (" + why + ")"}; }
Agreement no(const std::string& why) { return {false, "NO: " + why}; }

const FlowResult* find_flow(const results::SideResult& side, uint32_t index) {
  for (const auto& f : side.flows)
    if (f.index == index) return &f;
  return nullptr;
}

// "1 stream", "2 streams".
std::string count(uint64_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

uint64_t unfinished(const results::SideResult& side) {
  return static_cast<uint64_t>(std::count_if(side.flows.begin(), side.flows.end(),
                                             [](const auto& f) { return !f.finished; }));
}

// Each check below takes one stream's two ends and returns why they
// disagree, or "" when they agree.

// TCP_STREAM, TCP_MAERTS: bytes the sender's kernel accepted against bytes
// the receiver read. At the stop the sender sends no more, shuts its side
// down and waits for the receiver's end of stream; the receiver sends that
// only once it has read the sender's end of stream, that is every byte. So
// a stream both of whose ends finished cleanly has equal counts, exactly.
// A stream cut short (aborted after a stalled drain, or failed) loses what
// was still queued, an amount nothing here bounds: unequal counts are a NO
// whatever the cause, and the text says when the stream was cut short.
std::string check_tcp_bytes(uint64_t sent, uint64_t received, bool clean) {
  if (sent == received) return {};
  std::string s = fmt::format("sent {} bytes, received {}", sent, received);
  if (received > sent)
    s += ": more than were sent";
  else if (!clean)
    s += ": the stream was cut short";
  return s;
}

// UDP_STREAM: datagrams are lost, and that is no disagreement as long as
// the loss is accounted for: received + lost == sent, where received counts
// each distinct datagram once (the receiver's duplicates taken out) and
// lost is what the sender sent that never came (sent - received, never
// negative; send errors are not sent). That holds exactly when the receiver
// has no more distinct datagrams than the sender sent; otherwise it counted
// datagrams that were never sent, a NO. Its duplicates are among the
// datagrams it counted, so they cannot outnumber them either.
std::string check_udp_stream(const FlowResult& sender, const FlowResult& receiver) {
  if (receiver.duplicates > receiver.datagrams_recv)
    return fmt::format("the receiver counts {} duplicates among only {} datagrams",
                       receiver.duplicates, receiver.datagrams_recv);
  const uint64_t received = receiver.datagrams_recv - receiver.duplicates;
  if (received > sender.datagrams_sent)
    return fmt::format("received {} distinct datagrams, {} more than the {} sent", received,
                       received - sender.datagrams_sent, sender.datagrams_sent);
  return {};
}

// TCP_RR: the client counts a transaction once the whole answer is in, the
// server once the whole answer is sent, so the server is never behind. At
// the stop the client starts no new request, finishes the one in flight and
// shuts its side down; the server reads that end of stream only after its
// last answer. So a client stream that finished cleanly has exactly the
// server's count. One cut short (aborted) may leave a request the server
// answered and the client never read: the server may be one ahead then
// (one, as the native controller sends one request at a time per stream).
std::string check_tcp_rr(const FlowResult& client, const FlowResult& server) {
  const uint64_t c = client.transactions, s = server.transactions;
  const uint64_t in_flight = client.finished ? 0 : 1;
  if (s < c)
    return fmt::format("client {}, server {}: the client counted answers the server never sent", c,
                       s);
  if (s > c + in_flight)
    return fmt::format("client {}, server {}: the server answered {} the client never completed{}",
                       c, s, count(s - c, "request"),
                       client.finished ? "" : " (at most one, in flight when it was cut short)");
  return {};
}

// UDP_RR: each request the client sends ends as one of two things: a
// transaction (its answer came before the timeout) or a timeout (given up
// on: the request or its answer was lost, or the answer was slow; a send
// error counts as a timeout too). At the stop the client starts no new
// request and waits out the one in flight, so requests = transactions +
// timeouts. An answer that comes for a request already given up on is
// counted late. The server counts a transaction for each request it
// answered. Hence, with no datagram duplicated on the way:
//  - client transactions + late <= server: every answer the client counted,
//    in time or late, is one the server sent;
//  - server <= client transactions + timeouts: the server answered no
//    request the client did not send. The difference, server - client, is
//    the timed-out requests whose answers came late, were lost on the way
//    back or came after the client had finished; the timed-out requests the
//    server never answered were lost on the way there.
// A client stream cut short (aborted) leaves its request in flight neither
// a transaction nor a timeout: one more the server may have answered.
std::string check_udp_rr(const FlowResult& client, const FlowResult& server) {
  const uint64_t c = client.transactions, s = server.transactions;
  const uint64_t in_flight = client.finished ? 0 : 1;
  if (c + client.late > s)
    return fmt::format(
        "the client counted {} answers ({} in time, {} late), the server sent only {}",
        c + client.late, c, client.late, s);
  if (s > c + client.timeouts + in_flight)
    return fmt::format(
        "client {}, server {}: the server answered {} more than the client timed "
        "out ({}){}",
        c, s, count(s - c - client.timeouts, "request"), client.timeouts,
        client.finished ? "" : " and had in flight when it was cut short");
  return {};
}

// TCP_CRR, TCP_CC: a connection per transaction, accepted by whichever
// server flow gets it, so the server's counts do not pair with the client's
// streams: the totals are compared. The client counts a transaction when
// its connection is done with: at the server's close (the server closes
// first), or with --rst-close once the whole answer is in; TCP_CC, which
// carries no data, at the server's close. The server counts one when the
// whole answer is sent (TCP_CC: when it accepts), before it closes; so it
// is never behind. At the stop each client stream opens no new connection
// and finishes the one it has: streams that finished cleanly leave equal
// counts. A stream cut short (aborted) has at most one connection open,
// which the server may have counted: the server may be ahead by one per
// such stream, no more.
Agreement check_connections(const results::TestResult& r) {
  const bool cc = r.spec.test == TestKind::kTcpCc;
  const char* what = cc ? "connections" : "transactions";
  const uint64_t c = r.local_side.total().transactions, s = r.remote_side.total().transactions;
  const uint64_t cut = unfinished(r.local_side);
  if (s < c)
    return no(fmt::format("client {}, server {}: the client counted {} the server never {}", c, s,
                          what, cc ? "accepted" : "answered"));
  if (s > c + cut)
    return no(
        fmt::format("client {}, server {}: the server counted {} the client never "
                    "completed{}",
                    c, s, count(s - c, cc ? "connection" : "transaction"),
                    cut ? fmt::format(" (at most {}, one per stream cut short)", cut) : ""));
  if (s == c) return yes(fmt::format("{} {}", c, what));
  return yes(fmt::format("client {}, server {}: {} open in {} cut short", c, s,
                         count(s - c, "connection"), count(cut, "client stream")));
}

}  // namespace

Agreement agreement(const results::TestResult& r) {
  const auto& local = r.local_side.flows;
  if (local.empty()) return no("the client measured no stream");
  if (!r.have_remote) return no("the server's counts never came");
  const TestKind kind = r.spec.test;
  if (kind == TestKind::kTcpCrr || kind == TestKind::kTcpCc) return check_connections(r);

  // The other tests pair each client stream with the server's stream of the
  // same index: every stream must agree, not only the totals (a stream's
  // shortfall could hide behind another's surplus).
  const auto& remote = r.remote_side.flows;
  if (remote.size() != local.size())
    return no(fmt::format("the client ran {} streams, the server reports {}", local.size(),
                          remote.size()));
  for (const auto& l : local) {
    const FlowResult* rf = find_flow(r.remote_side, l.index);
    if (!rf) return no(fmt::format("the server reports no count for stream {}", l.index));
    std::string bad;
    switch (kind) {
      case TestKind::kTcpStream:
        bad = check_tcp_bytes(l.bytes_sent, rf->bytes_recv, l.finished && rf->finished);
        break;
      case TestKind::kTcpMaerts:
        bad = check_tcp_bytes(rf->bytes_sent, l.bytes_recv, l.finished && rf->finished);
        break;
      case TestKind::kUdpStream:
        bad = check_udp_stream(l, *rf);
        break;
      case TestKind::kTcpRr:
        bad = check_tcp_rr(l, *rf);
        break;
      case TestKind::kUdpRr:
        bad = check_udp_rr(l, *rf);
        break;
      default:
        break;
    }
    if (!bad.empty())
      return no(local.size() > 1 ? fmt::format("stream {}: {}", l.index, bad) : bad);
  }

  // Every stream agrees: the verdict shows the totals, and why they differ
  // where they may.
  const FlowResult lt = r.local_side.total(), rt = r.remote_side.total();
  switch (kind) {
    case TestKind::kTcpStream:
      return yes(fmt::format("{} bytes", lt.bytes_sent));
    case TestKind::kTcpMaerts:
      return yes(fmt::format("{} bytes", lt.bytes_recv));
    case TestKind::kUdpStream: {
      const uint64_t received = rt.datagrams_recv - rt.duplicates;
      const uint64_t lost = lt.datagrams_sent > received ? lt.datagrams_sent - received : 0;
      if (lost == 0) return yes(fmt::format("{} datagrams", lt.datagrams_sent));
      return yes(fmt::format("{} datagrams sent = {} received + {} lost", lt.datagrams_sent,
                             received, lost));
    }
    case TestKind::kTcpRr: {
      if (rt.transactions == lt.transactions)
        return yes(fmt::format("{} transactions", lt.transactions));
      return yes(fmt::format("client {}, server {}: {} in flight in {} cut short", lt.transactions,
                             rt.transactions, count(rt.transactions - lt.transactions, "request"),
                             count(unfinished(r.local_side), "client stream")));
    }
    case TestKind::kUdpRr: {
      const uint64_t c = lt.transactions, s = rt.transactions;
      if (s == c && lt.timeouts == 0) return yes(fmt::format("{} transactions", c));
      if (s == c)
        return yes(
            fmt::format("{} transactions; {} requests timed out, none answered", c, lt.timeouts));
      return yes(fmt::format(
          "client {}, server {}: the {} more are answers to requests the client "
          "had timed out{} ({} timed out, {} answers came late)",
          c, s, s - c, unfinished(r.local_side) ? " or left in flight" : "", lt.timeouts, lt.late));
    }
    default:
      return no("unknown test");
  }
}

}  // namespace flowperf::report
