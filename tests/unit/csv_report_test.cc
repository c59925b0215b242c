// --csv rows on hand-made results (no sockets): every line has the header's
// columns, the figures land in the columns named for them, and a field with
// a comma, a quote or a line break survives a standard CSV reader.
#include "report/csv_report.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "unit/fake_results.h"

namespace flowperf::report {
namespace {

using Record = std::map<std::string, std::string>;

// An RFC 4180 reader: records of fields, quoted fields may hold commas,
// doubled quotes and line breaks.
std::vector<std::vector<std::string>> parse(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(any) << "the text does not end with a line break";
  EXPECT_FALSE(quoted) << "a quoted field is not closed";
  return rows;
}

// The rows of `body` as column → value, checked against the header.
std::vector<Record> records(const std::string& body) {
  const auto head = parse(csv_header());
  EXPECT_EQ(head.size(), 1u);
  std::vector<Record> out;
  for (const auto& row : parse(body)) {
    EXPECT_EQ(row.size(), head[0].size()) << "a row with another number of fields";
    Record r;
    for (size_t i = 0; i < row.size() && i < head[0].size(); ++i) r[head[0][i]] = row[i];
    out.push_back(std::move(r));
  }
  return out;
}

const auto base = testing::base_result;
const auto flow = testing::flow_of_2s;

TEST(Csv, HeaderNamesEveryColumnOnce) {
  const auto head = parse(csv_header());
  ASSERT_EQ(head.size(), 1u);
  ASSERT_EQ(head[0].size(), kCsvColumns.size());
  for (size_t i = 0; i < kCsvColumns.size(); ++i) EXPECT_EQ(head[0][i], kCsvColumns[i]);
  std::map<std::string, int> seen;
  for (const auto& c : head[0]) EXPECT_EQ(++seen[c], 1) << c;
}

TEST(Csv, StreamIntervalHasARowPerStreamAndASum) {
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpStream;
  results::IntervalSample iv{.start_s = 1, .end_s = 1.5, .flows = {}};
  net::TcpInfo t;
  t.rtt_us = 120;
  t.snd_cwnd = 33;
  iv.flows.push_back({.bytes_sent = 1'000'000, .retrans = 2, .tcp = t});
  iv.flows.push_back({.bytes_sent = 3'000'000, .retrans = 5, .tcp = t});
  const auto rows = records(csv_interval(s, iv));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("row"), "interval");
  EXPECT_EQ(rows[0].at("stream"), "0");
  EXPECT_EQ(rows[1].at("stream"), "1");
  EXPECT_EQ(rows[2].at("stream"), "sum");
  EXPECT_EQ(rows[0].at("start_s"), "1.000");
  EXPECT_EQ(rows[0].at("end_s"), "1.500");
  EXPECT_EQ(rows[0].at("bits_per_second"), "16000000");  // 1 MB in 0.5 s
  EXPECT_EQ(rows[2].at("bytes_sent"), "4000000");
  EXPECT_EQ(rows[2].at("bits_per_second"), "64000000");
  EXPECT_EQ(rows[1].at("retransmits"), "5");
  EXPECT_EQ(rows[2].at("retransmits"), "7");
  EXPECT_EQ(rows[0].at("rtt_us"), "120");
  EXPECT_EQ(rows[0].at("cwnd"), "33");
  EXPECT_EQ(rows[2].at("rtt_us"), "");        // no one RTT for the sum
  EXPECT_EQ(rows[0].at("transactions"), "");  // not a request/response test
  EXPECT_EQ(rows[0].at("datagrams_lost"), "");
}

TEST(Csv, MaertsCountsTheBytesReceived) {
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpMaerts;
  results::IntervalSample iv{.start_s = 0, .end_s = 1, .flows = {}};
  iv.flows.push_back({.bytes_sent = 0, .bytes_recv = 125'000});
  const auto rows = records(csv_interval(s, iv));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("bits_per_second"), "1000000");
  EXPECT_EQ(rows[0].at("retransmits"), "");  // no TCP_INFO in this sample
}

TEST(Csv, UdpStreamIntervalCountsDatagramsAndLeavesLossToTheEnd) {
  spec::TestSpec s;
  s.test = spec::TestKind::kUdpStream;
  results::IntervalSample iv{.start_s = 0, .end_s = 1, .flows = {}};
  iv.flows.push_back({.bytes_sent = 90'000, .datagrams_sent = 90});
  iv.flows.push_back({.bytes_sent = 95'000, .datagrams_sent = 95});
  const auto rows = records(csv_interval(s, iv));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].at("datagrams_sent"), "185");
  EXPECT_EQ(rows[2].at("bits_per_second"), "1480000");
  // The client sends: the loss is the server's, known at the end.
  EXPECT_EQ(rows[0].at("datagrams_lost"), "");
  EXPECT_EQ(rows[0].at("jitter_ms"), "");
}

TEST(Csv, UdpStreamEndRowsHaveTheReceiversLoss) {
  auto r = base(spec::TestKind::kUdpStream);
  auto l = flow(0);
  l.bytes_sent = 100'000;
  l.datagrams_sent = 100;
  auto srv = flow(0);
  srv.bytes_recv = 90'000;
  srv.datagrams_recv = 90;
  srv.jitter_ns = 250'000;
  r.local_side.flows = {l};
  r.remote_side.flows = {srv};
  const auto rows = records(csv_result(r));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("datagrams_sent"), "100");
  EXPECT_EQ(rows[0].at("datagrams_received"), "90");
  EXPECT_EQ(rows[0].at("datagrams_lost"), "10");
  EXPECT_EQ(rows[0].at("jitter_ms"), "0.250");
  EXPECT_EQ(rows[1].at("datagrams_lost"), "10");
  EXPECT_EQ(rows[0].at("transactions"), "");
}

TEST(Csv, RrEndRowsHaveTransactionsAndLatency) {
  auto r = base(spec::TestKind::kTcpRr);
  for (uint32_t i = 0; i < 2; ++i) {
    auto l = flow(i);
    l.transactions = 100 * (i + 1);
    l.bytes_sent = l.bytes_recv = l.transactions;
    l.latency = measure::Histogram();
    for (int k = 0; k < 100; ++k) l.latency->record(50'000 * (i + 1));  // 50 or 100 µs
    r.local_side.latency.merge(*l.latency);
    r.local_side.flows.push_back(l);
    auto srv = flow(i);
    srv.transactions = l.transactions;
    r.remote_side.flows.push_back(srv);
  }
  const auto rows = records(csv_result(r));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("row"), "end");
  EXPECT_EQ(rows[0].at("transactions"), "100");
  EXPECT_EQ(rows[2].at("transactions"), "300");
  EXPECT_EQ(rows[2].at("transactions_per_second"), "150.00");
  EXPECT_EQ(rows[2].at("bytes_sent"), "300");
  EXPECT_NEAR(std::stod(rows[0].at("latency_p50_us")), 50, 1);
  EXPECT_NEAR(std::stod(rows[1].at("latency_p50_us")), 100, 2);
  EXPECT_NEAR(std::stod(rows[2].at("latency_p99_us")), 100, 2);
  EXPECT_EQ(rows[2].at("bits_per_second"), "");
  EXPECT_EQ(rows[2].at("end_s"), "2.000");
}

TEST(Csv, StreamEndRowsCountTheReceiverAndTheSendersTcpState) {
  auto r = base(spec::TestKind::kTcpMaerts);
  auto l = flow(0);
  l.bytes_recv = 250'000'000;
  auto srv = flow(0);
  srv.bytes_sent = 250'000'000;
  srv.tcp = net::TcpInfo{};
  srv.tcp->total_retrans = 9;
  srv.tcp->snd_cwnd = 70;
  r.local_side.flows = {l};
  r.remote_side.flows = {srv};
  const auto rows = records(csv_result(r));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("bits_per_second"), "1000000000");
  EXPECT_EQ(rows[0].at("retransmits"), "9");  // the server sends in TCP_MAERTS
  EXPECT_EQ(rows[0].at("cwnd"), "70");
  EXPECT_EQ(rows[1].at("retransmits"), "9");
  EXPECT_EQ(rows[1].at("latency_p50_us"), "");
}

TEST(Csv, ErrorsAreQuotedSoTheRowKeepsItsColumns) {
  auto r = base(spec::TestKind::kTcpStream);
  auto l = flow(0);
  l.error = "recv failed, \"Connection reset\"\nby peer";
  r.local_side.flows = {l};
  r.error = "the test failed, see \"errors\"";
  const auto rows = records(csv_result(r));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("error"), l.error);
  EXPECT_EQ(rows[1].at("error"), r.error);
}

}  // namespace
}  // namespace flowperf::report
