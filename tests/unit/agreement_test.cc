// report::agreement(): the "Both sides agree" verdict, from hand-made
// results: every test kind, and each of its yes and NO branches.
#include "report/agreement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flowperf::report {
namespace {

using results::FlowResult;
using spec::TestKind;

FlowResult flow(uint32_t index = 0) {
  FlowResult f;
  f.index = index;
  return f;
}

results::TestResult result(TestKind kind, std::vector<FlowResult> local,
                           std::vector<FlowResult> remote, bool have_remote = true) {
  results::TestResult r;
  r.spec.test = kind;
  r.local_side.flows = std::move(local);
  r.remote_side.flows = std::move(remote);
  r.have_remote = have_remote;
  return r;
}

void expect_yes(const Agreement& a, const std::string& text) {
  EXPECT_TRUE(a.agree) << a.text;
  EXPECT_EQ(a.text, text);
}

void expect_no(const Agreement& a, const std::string& text) {
  EXPECT_FALSE(a.agree) << a.text;
  EXPECT_EQ(a.text, text);
}

// ---- every test kind ----

TEST(Agreement, NoVerdictWithoutTheServersCounts) {
  FlowResult c = flow();
  c.bytes_sent = 100;
  expect_no(agreement(result(TestKind::kTcpStream, {c}, {}, false)),
            "NO: the server's counts never came");
}

TEST(Agreement, NoVerdictWithoutTheClientsStreams) {
  expect_no(agreement(result(TestKind::kTcpRr, {}, {flow()})), "NO: the client measured no stream");
}

TEST(Agreement, PairedTestsNeedTheSameStreamsOnBothSides) {
  expect_no(agreement(result(TestKind::kTcpRr, {flow(0), flow(1)}, {flow(0)})),
            "NO: the client ran 2 streams, the server reports 1");
  expect_no(agreement(result(TestKind::kUdpRr, {flow(0), flow(1)}, {flow(0), flow(2)})),
            "NO: the server reports no count for stream 1");
}

// ---- TCP_STREAM, TCP_MAERTS ----

TEST(Agreement, TcpStreamYesWhenEveryByteArrived) {
  FlowResult c = flow(), s = flow();
  c.bytes_sent = s.bytes_recv = 123456;
  expect_yes(agreement(result(TestKind::kTcpStream, {c}, {s})), "yes (123456 bytes)");
}

TEST(Agreement, TcpStreamNoWhenBytesAreMissing) {
  FlowResult c = flow(), s = flow();
  c.bytes_sent = 1000;
  s.bytes_recv = 900;
  expect_no(agreement(result(TestKind::kTcpStream, {c}, {s})), "NO: sent 1000 bytes, received 900");
  // Cut short, the rest never came: still no agreement, but said why.
  c.finished = false;
  expect_no(agreement(result(TestKind::kTcpStream, {c}, {s})),
            "NO: sent 1000 bytes, received 900: the stream was cut short");
}

TEST(Agreement, TcpStreamNoWhenMoreArrivedThanWasSent) {
  FlowResult c = flow(), s = flow();
  c.bytes_sent = 900;
  s.bytes_recv = 1000;
  expect_no(agreement(result(TestKind::kTcpStream, {c}, {s})),
            "NO: sent 900 bytes, received 1000: more than were sent");
}

TEST(Agreement, TcpStreamEveryStreamMustAgreeNotOnlyTheTotals) {
  FlowResult c0 = flow(0), c1 = flow(1), s0 = flow(0), s1 = flow(1);
  c0.bytes_sent = c1.bytes_sent = 500;
  s0.bytes_recv = 600;
  s1.bytes_recv = 400;
  expect_no(agreement(result(TestKind::kTcpStream, {c0, c1}, {s1, s0})),
            "NO: stream 0: sent 500 bytes, received 600: more than were sent");
  s0.bytes_recv = s1.bytes_recv = 500;
  // The server's flows may come in any order: they pair by index.
  expect_yes(agreement(result(TestKind::kTcpStream, {c0, c1}, {s1, s0})), "yes (1000 bytes)");
}

TEST(Agreement, TcpMaertsComparesTheServersSendsWithTheClientsReceives) {
  FlowResult c = flow(), s = flow();
  s.bytes_sent = c.bytes_recv = 4096;
  c.bytes_sent = 7;  // the client's own sends are not the data
  expect_yes(agreement(result(TestKind::kTcpMaerts, {c}, {s})), "yes (4096 bytes)");
  c.bytes_recv = 4000;
  expect_no(agreement(result(TestKind::kTcpMaerts, {c}, {s})),
            "NO: sent 4096 bytes, received 4000");
  s.finished = false;
  expect_no(agreement(result(TestKind::kTcpMaerts, {c}, {s})),
            "NO: sent 4096 bytes, received 4000: the stream was cut short");
}

// ---- UDP_STREAM ----

TEST(Agreement, UdpStreamYesWithNoLoss) {
  FlowResult c = flow(), s = flow();
  c.datagrams_sent = s.datagrams_recv = 100;
  expect_yes(agreement(result(TestKind::kUdpStream, {c}, {s})), "yes (100 datagrams)");
}

TEST(Agreement, UdpStreamYesWhenTheLossIsAccountedFor) {
  FlowResult c = flow(), s = flow();
  c.datagrams_sent = 100;
  s.datagrams_recv = 95;
  s.duplicates = 5;  // counted once: 90 distinct
  expect_yes(agreement(result(TestKind::kUdpStream, {c}, {s})),
             "yes (100 datagrams sent = 90 received + 10 lost)");
}

TEST(Agreement, UdpStreamNoWhenMoreDistinctDatagramsArrivedThanWereSent) {
  FlowResult c = flow(), s = flow();
  c.datagrams_sent = 100;
  s.datagrams_recv = 110;
  s.duplicates = 5;
  expect_no(agreement(result(TestKind::kUdpStream, {c}, {s})),
            "NO: received 105 distinct datagrams, 5 more than the 100 sent");
}

TEST(Agreement, UdpStreamNoWhenDuplicatesOutnumberTheDatagrams) {
  FlowResult c = flow(), s = flow();
  c.datagrams_sent = 100;
  s.datagrams_recv = 3;
  s.duplicates = 4;
  expect_no(agreement(result(TestKind::kUdpStream, {c}, {s})),
            "NO: the receiver counts 4 duplicates among only 3 datagrams");
}

TEST(Agreement, UdpStreamTotalsOverStreams) {
  FlowResult c0 = flow(0), c1 = flow(1), s0 = flow(0), s1 = flow(1);
  c0.datagrams_sent = c1.datagrams_sent = 50;
  s0.datagrams_recv = 50;
  s1.datagrams_recv = 45;
  expect_yes(agreement(result(TestKind::kUdpStream, {c0, c1}, {s0, s1})),
             "yes (100 datagrams sent = 95 received + 5 lost)");
  // A surplus on one stream does not make up for a loss on another.
  s0.datagrams_recv = 55;
  expect_no(agreement(result(TestKind::kUdpStream, {c0, c1}, {s0, s1})),
            "NO: stream 0: received 55 distinct datagrams, 5 more than the 50 sent");
}

// ---- TCP_RR ----

TEST(Agreement, TcpRrYesWhenEqual) {
  FlowResult c = flow(), s = flow();
  c.transactions = s.transactions = 110768;
  expect_yes(agreement(result(TestKind::kTcpRr, {c}, {s})), "yes (110768 transactions)");
}

TEST(Agreement, TcpRrNoWhenTheServerIsAheadOfACleanClient) {
  FlowResult c = flow(), s = flow();
  c.transactions = 100;
  s.transactions = 101;
  expect_no(agreement(result(TestKind::kTcpRr, {c}, {s})),
            "NO: client 100, server 101: the server answered 1 request the client never completed");
}

TEST(Agreement, TcpRrYesWhenTheServerAnsweredTheRequestInFlightOfAStreamCutShort) {
  FlowResult c = flow(), s = flow();
  c.transactions = 100;
  c.finished = false;
  s.transactions = 101;
  expect_yes(agreement(result(TestKind::kTcpRr, {c}, {s})),
             "yes (client 100, server 101: 1 request in flight in 1 client stream cut short)");
  s.transactions = 102;  // one request in flight at most
  expect_no(agreement(result(TestKind::kTcpRr, {c}, {s})),
            "NO: client 100, server 102: the server answered 2 requests the client never "
            "completed (at most one, in flight when it was cut short)");
}

TEST(Agreement, TcpRrNoWhenTheClientIsAhead) {
  FlowResult c = flow(), s = flow();
  c.transactions = 101;
  s.transactions = 100;
  expect_no(agreement(result(TestKind::kTcpRr, {c}, {s})),
            "NO: client 101, server 100: the client counted answers the server never sent");
}

// ---- TCP_CRR, TCP_CC ----

TEST(Agreement, TcpCrrComparesTotalsWhateverServerFlowAcceptedTheConnections) {
  FlowResult c0 = flow(0), c1 = flow(1), s0 = flow(0);
  c0.transactions = 300;
  c1.transactions = 200;
  s0.transactions = 500;
  expect_yes(agreement(result(TestKind::kTcpCrr, {c0, c1}, {s0})), "yes (500 transactions)");
}

TEST(Agreement, TcpCrrNoWhenTheServerIsAheadOfCleanClients) {
  FlowResult c = flow(), s = flow();
  c.transactions = 500;
  s.transactions = 501;
  expect_no(agreement(result(TestKind::kTcpCrr, {c}, {s})),
            "NO: client 500, server 501: the server counted 1 transaction the client never "
            "completed");
}

TEST(Agreement, TcpCrrAllowsOneConnectionPerStreamCutShort) {
  FlowResult c0 = flow(0), c1 = flow(1), c2 = flow(2), s = flow();
  c0.transactions = c1.transactions = c2.transactions = 100;
  c0.finished = c2.finished = false;
  s.transactions = 302;
  expect_yes(agreement(result(TestKind::kTcpCrr, {c0, c1, c2}, {s})),
             "yes (client 300, server 302: 2 connections open in 2 client streams cut short)");
  s.transactions = 303;
  expect_no(agreement(result(TestKind::kTcpCrr, {c0, c1, c2}, {s})),
            "NO: client 300, server 303: the server counted 3 transactions the client never "
            "completed (at most 2, one per stream cut short)");
}

TEST(Agreement, TcpCrrNoWhenTheClientIsAhead) {
  FlowResult c = flow(), s = flow();
  c.transactions = 10;
  s.transactions = 9;
  expect_no(agreement(result(TestKind::kTcpCrr, {c}, {s})),
            "NO: client 10, server 9: the client counted transactions the server never answered");
}

TEST(Agreement, TcpCcCountsConnections) {
  FlowResult c = flow(), s = flow();
  c.transactions = s.transactions = 42;
  expect_yes(agreement(result(TestKind::kTcpCc, {c}, {s})), "yes (42 connections)");
  s.transactions = 41;
  expect_no(agreement(result(TestKind::kTcpCc, {c}, {s})),
            "NO: client 42, server 41: the client counted connections the server never accepted");
  s.transactions = 43;
  expect_no(agreement(result(TestKind::kTcpCc, {c}, {s})),
            "NO: client 42, server 43: the server counted 1 connection the client never "
            "completed");
  c.finished = false;
  expect_yes(agreement(result(TestKind::kTcpCc, {c}, {s})),
             "yes (client 42, server 43: 1 connection open in 1 client stream cut short)");
}

// ---- UDP_RR ----

TEST(Agreement, UdpRrYesWhenEqualWithNoTimeouts) {
  FlowResult c = flow(), s = flow();
  c.transactions = s.transactions = 5000;
  expect_yes(agreement(result(TestKind::kUdpRr, {c}, {s})), "yes (5000 transactions)");
}

TEST(Agreement, UdpRrYesWhenTimedOutRequestsWereNeverAnswered) {
  FlowResult c = flow(), s = flow();
  c.transactions = s.transactions = 5000;
  c.timeouts = 3;  // lost on the way to the server
  expect_yes(agreement(result(TestKind::kUdpRr, {c}, {s})),
             "yes (5000 transactions; 3 requests timed out, none answered)");
}

// The suite's case: the server answered requests the client had already
// timed out and counted as lost.
TEST(Agreement, UdpRrYesWhenTheServerAnsweredRequestsTheClientTimedOut) {
  FlowResult c = flow(), s = flow();
  c.transactions = 110768;
  c.timeouts = 130;
  c.late = 100;
  s.transactions = 110896;
  expect_yes(agreement(result(TestKind::kUdpRr, {c}, {s})),
             "yes (client 110768, server 110896: the 128 more are answers to requests the client "
             "had timed out (130 timed out, 100 answers came late))");
  // At the bound: every timed-out request was answered.
  s.transactions = 110768 + 130;
  EXPECT_TRUE(agreement(result(TestKind::kUdpRr, {c}, {s})).agree);
}

TEST(Agreement, UdpRrNoWhenTheServerAnsweredMoreThanTheClientTimedOut) {
  FlowResult c = flow(), s = flow();
  c.transactions = 110768;
  c.timeouts = 130;
  c.late = 100;
  s.transactions = 110768 + 131;
  expect_no(agreement(result(TestKind::kUdpRr, {c}, {s})),
            "NO: client 110768, server 110899: the server answered 1 request more than the "
            "client timed out (130)");
}

TEST(Agreement, UdpRrNoWhenTheClientCountedMoreAnswersThanTheServerSent) {
  FlowResult c = flow(), s = flow();
  c.transactions = 1000;
  c.timeouts = 10;
  c.late = 10;
  s.transactions = 1005;  // 1000 in time + 10 late need 1010 answers
  expect_no(agreement(result(TestKind::kUdpRr, {c}, {s})),
            "NO: the client counted 1010 answers (1000 in time, 10 late), the server sent only "
            "1005");
  c.late = 0;
  s.transactions = 999;
  expect_no(agreement(result(TestKind::kUdpRr, {c}, {s})),
            "NO: the client counted 1000 answers (1000 in time, 0 late), the server sent only 999");
}

TEST(Agreement, UdpRrAllowsTheRequestInFlightOfAStreamCutShort) {
  FlowResult c = flow(), s = flow();
  c.transactions = 1000;
  c.timeouts = 2;
  c.finished = false;
  s.transactions = 1003;
  expect_yes(agreement(result(TestKind::kUdpRr, {c}, {s})),
             "yes (client 1000, server 1003: the 3 more are answers to requests the client had "
             "timed out or left in flight (2 timed out, 0 answers came late))");
  s.transactions = 1004;
  expect_no(agreement(result(TestKind::kUdpRr, {c}, {s})),
            "NO: client 1000, server 1004: the server answered 2 requests more than the client "
            "timed out (2) and had in flight when it was cut short");
}

TEST(Agreement, UdpRrEveryStreamMustAgreeNotOnlyTheTotals) {
  FlowResult c0 = flow(0), c1 = flow(1), s0 = flow(0), s1 = flow(1);
  c0.transactions = c1.transactions = 100;
  c0.timeouts = 5;  // stream 0 may be answered up to 105 times, stream 1 exactly 100
  s0.transactions = 100;
  s1.transactions = 103;
  expect_no(agreement(result(TestKind::kUdpRr, {c0, c1}, {s0, s1})),
            "NO: stream 1: client 100, server 103: the server answered 3 requests more than the "
            "client timed out (0)");
  s0.transactions = 103;
  s1.transactions = 100;
  expect_yes(agreement(result(TestKind::kUdpRr, {c0, c1}, {s0, s1})),
             "yes (client 200, server 203: the 3 more are answers to requests the client had "
             "timed out (5 timed out, 0 answers came late))");
}

}  // namespace
}  // namespace flowperf::report
