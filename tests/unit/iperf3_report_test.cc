// iperf3's human and -J output (report/iperf3_report.h) against 3.12's own,
// byte for byte: the recordings of ../shared/protocols/iperf3-wire.md §14,
// §15, and further runs of the same 3.12 (iperf3_report_recordings.h). Each
// fixture rebuilds a recorded run as a Report, with the recorded numbers
// where the recording has them (-J) and numbers that print as recorded where
// it shows only the rounded text.
#include "report/iperf3_report.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "iperf3_report_json_recordings.h"
#include "iperf3_report_recordings.h"

namespace flowperf::report::iperf3 {
namespace {

namespace rec = iperf3_recordings;
using Json = nlohmann::ordered_json;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;
constexpr double kKiB = 1024.0;

uint64_t b(double x) { return static_cast<uint64_t>(x); }

// ---- units ----

TEST(Iperf3Units, AdaptiveBytesAndBits) {
  EXPECT_EQ(transfer(0, Format{}), "0.00 Bytes");
  EXPECT_EQ(transfer(1023, Format{}), "1023 Bytes");
  EXPECT_EQ(transfer(1024, Format{}), "1.00 KBytes");
  EXPECT_EQ(transfer(895 * kKiB, Format{}), " 895 KBytes");
  EXPECT_EQ(transfer(32 * kKiB, Format{}), "32.0 KBytes");
  EXPECT_EQ(transfer(2.21 * kGiB, Format{}), "2.21 GBytes");
  EXPECT_EQ(transfer(1.47 * kGiB, Format{}), "1.47 GBytes");
  EXPECT_EQ(transfer(9.996 * kMiB, Format{}), "10.0 MBytes");        // 9.995 rounds up: one decimal
  EXPECT_EQ(transfer(99.96 * kMiB, Format{}), " 100 MBytes");        // 99.95 rounds up: none
  EXPECT_EQ(transfer(5000 * kGiB * 1024, Format{}), "5000 TBytes");  // T is the last step
  EXPECT_EQ(bitrate(12.6e9, Format{}), "12.6 Gbits/sec");
  EXPECT_EQ(bitrate(9.96e6, Format{}), "9.96 Mbits/sec");
  EXPECT_EQ(bitrate(730e6, Format{}), " 730 Mbits/sec");
  EXPECT_EQ(bitrate(0, Format{}), "0.00 bits/sec");
  EXPECT_EQ(bitrate(999, Format{}), " 999 bits/sec");
  EXPECT_EQ(bitrate(1000, Format{}), "1.00 Kbits/sec");
}

TEST(Iperf3Units, FixedLetters) {
  EXPECT_EQ(bitrate(12.6e9, Format{'m'}), "12600 Mbits/sec");
  EXPECT_EQ(bitrate(12.6e9, Format{'g'}), "12.6 Gbits/sec");
  EXPECT_EQ(bitrate(2.5e6, Format{'k'}), "2500 Kbits/sec");
  EXPECT_EQ(bitrate(1e6, Format{'t'}), "0.00 Tbits/sec");
  // Upper case: bytes per second in steps of 1024.
  EXPECT_EQ(bitrate(8 * 3 * kMiB, Format{'M'}), "3.00 MBytes/sec");
  EXPECT_EQ(bitrate(8 * 3 * kMiB, Format{'K'}), "3072 KBytes/sec");
  EXPECT_EQ(bitrate(8 * 3 * kMiB, Format{'A'}), "3.00 MBytes/sec");
  // transfer() reads the letter as a byte unit, either case.
  EXPECT_EQ(transfer(3 * kMiB, Format{'k'}), "3072 KBytes");
  EXPECT_EQ(transfer(3 * kMiB, Format{'G'}), "0.00 GBytes");
  EXPECT_EQ(transfer(3 * kMiB, Format{'a'}), "3.00 MBytes");
}

// ---- cJSON's printer ----

TEST(Iperf3CjsonPrint, NestedLayout) {
  Json v = Json::object();
  v["a"] = 1;
  v["o"] = {{"x", "y"}, {"e", Json::object()}};
  v["list"] = Json::array({Json{{"k", 1}}, Json{{"k", 2}}});
  v["nums"] = Json::array({1, 2.5});
  v["none"] = Json::array();
  v["t"] = true;
  v["f"] = false;
  v["n"] = nullptr;
  EXPECT_EQ(cjson_print(v),
            "{\n"
            "\t\"a\":\t1,\n"
            "\t\"o\":\t{\n"
            "\t\t\"x\":\t\"y\",\n"
            "\t\t\"e\":\t{\n"
            "\t\t}\n"
            "\t},\n"
            "\t\"list\":\t[{\n"
            "\t\t\t\"k\":\t1\n"
            "\t\t}, {\n"
            "\t\t\t\"k\":\t2\n"
            "\t\t}],\n"
            "\t\"nums\":\t[1, 2.5],\n"
            "\t\"none\":\t[],\n"
            "\t\"t\":\ttrue,\n"
            "\t\"f\":\tfalse,\n"
            "\t\"n\":\tnull\n"
            "}");
  EXPECT_EQ(cjson_print(Json::object()), "{\n}");
  EXPECT_EQ(cjson_print(Json::array()), "[]");
}

TEST(Iperf3CjsonPrint, Numbers) {
  EXPECT_EQ(cjson_print(Json(-1)), "18446744073709551615");  // 3.12's PRIu64
  EXPECT_EQ(cjson_print(Json(-2.0)), "18446744073709551614");
  EXPECT_EQ(cjson_print(Json(0)), "0");
  EXPECT_EQ(cjson_print(Json(-0.0)), "0");
  EXPECT_EQ(cjson_print(Json(11837112320ULL)), "11837112320");
  EXPECT_EQ(cjson_print(Json(2.000656)), "2.000656");                      // %1.15g reads back
  EXPECT_EQ(cjson_print(Json(48.257789506544071)), "48.257789506544071");  // needs %1.17g
  EXPECT_EQ(cjson_print(Json(0.1)), "0.1");
  // cJSON accepts %1.15g when it reads back within DBL_EPSILON (relative).
  EXPECT_EQ(cjson_print(Json(0.1 + 0.2)), "0.3");
  EXPECT_EQ(cjson_print(Json(1e300)), "1e+300");
  // A uint64 above int64 is a double to cJSON, printed as one.
  EXPECT_EQ(cjson_print(Json(18446744073709551615ULL)), "1.8446744073709552e+19");
}

TEST(Iperf3CjsonPrint, Escapes) {
  EXPECT_EQ(cjson_print(Json("q\"b\\s/\b\f\n\r\t\x01\x1f")),
            "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\"");
  EXPECT_EQ(cjson_print(Json("h\xc3\xa9")), "\"h\xc3\xa9\"");  // bytes >= 0x80 pass through
  EXPECT_EQ(cjson_print(Json::object({{"k\n", ""}})), "{\n\t\"k\\n\":\t\"\"\n}");
}

// ---- fixtures: §15 text recordings ----

StartInfo client_start(std::vector<Connected> connected, int peer_port = 5299) {
  StartInfo s;
  s.role = Role::kClient;
  s.connected = std::move(connected);
  s.peer_host = "127.0.0.1";
  s.peer_port = static_cast<uint16_t>(peer_port);
  return s;
}

StartInfo server_start(std::vector<Connected> connected, uint16_t control_port) {
  StartInfo s;
  s.role = Role::kServer;
  s.connected = std::move(connected);
  s.peer_host = "127.0.0.1";
  s.peer_port = control_port;
  return s;
}

Connected conn(int socket, uint16_t local, uint16_t remote) {
  return Connected{socket, "127.0.0.1", local, "127.0.0.1", remote};
}

StreamSample tcp(int socket, double from, double to, double bytes, bool sender, int64_t retr = 0,
                 double cwnd = 0, bool omitted = false) {
  StreamSample s;
  s.socket = socket;
  s.start = from;
  s.end = to;
  s.bytes = b(bytes);
  s.sender = sender;
  s.retransmits = retr;
  s.snd_cwnd = b(cwnd);
  s.omitted = omitted;
  return s;
}

StreamSample udp(int socket, double from, double to, double bytes, bool sender, uint64_t packets,
                 double jitter_ms = 0, int64_t lost = 0) {
  StreamSample s = tcp(socket, from, to, bytes, sender);
  s.packets = packets;
  s.jitter_ms = jitter_ms;
  s.lost = lost;
  return s;
}

Totals totals(double seconds, double bytes, int64_t retr = -1) {
  Totals t;
  t.seconds = seconds;
  t.bytes = b(bytes);
  t.retransmits = retr;
  return t;
}

Totals udp_totals(double seconds, double bytes, uint64_t packets, double jitter = 0,
                  int64_t lost = 0) {
  Totals t = totals(seconds, bytes);
  t.packets = packets;
  t.jitter_ms = jitter;
  t.lost = lost;
  return t;
}

StreamEnd stream_end(int socket, bool sender, Totals sent, Totals received) {
  StreamEnd e;
  e.socket = socket;
  e.sender = sender;
  e.sent = sent;
  e.received = received;
  return e;
}

// The whole text as the client or server prints it for one test.
std::string text(const Report& r, Format f = Format{}) {
  std::string out = text_start(r.start);
  for (const Interval& i : r.intervals) out += text_interval(r.start, i, f);
  return out + text_summary(r, f);
}

// §15.1 / §15.2: iperf3 -c 127.0.0.1 -p 5299 -t 2 (results from §13.2).
Report tcp_client_15_1() {
  Report r;
  r.start = client_start({conn(5, 54312, 5299)});
  r.intervals = {{{tcp(5, 0, 1.0, 2.21 * kGiB, true, 94, 895 * kKiB)}},
                 {{tcp(5, 1.0, 2.0038, 2.01 * kGiB, true, 18, 3.75 * kMiB)}}};
  r.end.streams = {
      stream_end(5, true, totals(2.000656, 4525916160, 112), totals(2.000709, 4525916160))};
  return r;
}

TEST(Iperf3Text, TcpClient_15_1) { EXPECT_EQ(text(tcp_client_15_1()), rec::k15_1); }

TEST(Iperf3Text, TcpServer_15_2) {
  Report r;
  r.start = server_start({conn(5, 5299, 54312)}, 54308);
  r.intervals = {{{tcp(5, 0, 1.0, 2.21 * kGiB, false)}},
                 {{tcp(5, 1.0, 2.0038, 2.01 * kGiB, false)}},
                 {{tcp(5, 2.0, 2.000283, 2.25 * kMiB, false)}}};
  r.end.streams = {
      stream_end(5, false, totals(2.000709, 4525916160), totals(2.000709, 4525916160))};
  EXPECT_EQ(text(r), rec::k15_2);
}

Report udp_client_15_3() {
  Report r;
  r.start = client_start({conn(5, 58849, 5299)});
  r.start.udp = true;
  r.intervals = {{{udp(5, 0, 1.0, 39 * 32768.0, true, 39)}},
                 {{udp(5, 1.0, 2.0, 38 * 32768.0, true, 38)}}};
  r.end.streams = {stream_end(5, true, udp_totals(2.0, 77 * 32768.0, 77),
                              udp_totals(2.0, 77 * 32768.0, 77, 0.548))};
  return r;
}

TEST(Iperf3Text, UdpClient_15_3) { EXPECT_EQ(text(udp_client_15_3()), rec::k15_3); }

TEST(Iperf3Text, UdpServer_15_4) {
  Report r;
  r.start = server_start({conn(5, 5299, 58849)}, 53356);
  r.start.udp = true;
  r.intervals = {{{udp(5, 0, 1.0, 39 * 32768.0, false, 39, 0.040)}},
                 {{udp(5, 1.0, 2.0, 38 * 32768.0, false, 38, 0.548)}}};
  r.end.streams = {stream_end(5, false, udp_totals(2.0, 77 * 32768.0, 0),
                              udp_totals(2.0, 77 * 32768.0, 77, 0.548))};
  EXPECT_EQ(text(r), rec::k15_4);
}

TEST(Iperf3Text, TcpReverseClient_15_5) {
  Report r;
  r.start = client_start({conn(5, 54330, 5299)});
  r.start.reverse = true;
  r.intervals = {{{tcp(5, 0, 1.0, 2.17 * kGiB, false)}},
                 {{tcp(5, 1.0, 2.005, 1.86 * kGiB, false)}}};
  // 17.2 Gbits/sec as sent, 17.3 as received: the two ends' times differ.
  r.end.streams = {
      stream_end(5, false, totals(2.004, 4.02 * kGiB, 27), totals(1.999, 4.02 * kGiB))};
  EXPECT_EQ(text(r), rec::k15_5);
}

TEST(Iperf3Text, TcpReverseServer_15_6) {
  Report r;
  r.start = server_start({conn(5, 5299, 54330)}, 54322);
  r.start.reverse = true;
  r.intervals = {{{tcp(5, 0, 1.0, 2.17 * kGiB, true, 25, 767 * kKiB)}},
                 {{tcp(5, 1.0, 2.005, 1.86 * kGiB, true, 2, 2.37 * kMiB)}}};
  r.end.streams = {stream_end(5, true, totals(2.004, 4.02 * kGiB, 27), totals(1.999, 4.02 * kGiB))};
  EXPECT_EQ(text(r), rec::k15_6);
}

Report bidir_client_15_7() {
  Report r;
  r.start = client_start({conn(5, 41360, 5299), conn(7, 41368, 5299)});
  r.start.bidir = true;
  r.intervals = {
      {{tcp(5, 0, 1.0, 1.37 * kGiB, true, 150, 767 * kKiB), tcp(7, 0, 1.001, 797 * kMiB, false)}},
      {{tcp(5, 1.0, 2.0, 1.17 * kGiB, true, 15, 767 * kKiB),
        tcp(7, 1.001, 2.0, 843 * kMiB, false)}}};
  r.end.streams = {stream_end(5, true, totals(2.0, 2.54 * kGiB, 165), totals(2.0, 2.54 * kGiB)),
                   stream_end(7, false, totals(2.0, 1.607 * kGiB, 36), totals(2.0, 1.60 * kGiB))};
  return r;
}

TEST(Iperf3Text, BidirClient_15_7) { EXPECT_EQ(text(bidir_client_15_7()), rec::k15_7); }

TEST(Iperf3Text, BidirServer_15_8) {
  Report r;
  r.start = server_start({conn(5, 5299, 41360), conn(8, 5299, 41368)}, 41344);
  r.start.bidir = true;
  r.intervals = {
      {{tcp(5, 0, 1.0, 1.37 * kGiB, false), tcp(8, 0, 1.0, 802 * kMiB, true, 10, 1.50 * kMiB)}},
      {{tcp(5, 1.0, 2.0035, 1.166 * kGiB, false),
        tcp(8, 1.0, 2.0043, 844 * kMiB, true, 26, 3.62 * kMiB)}}};
  r.end.streams = {stream_end(5, false, totals(2.0, 2.54 * kGiB), totals(2.0, 2.54 * kGiB)),
                   stream_end(8, true, totals(2.004, 1.607 * kGiB, 36), totals(2.0, 1.60 * kGiB))};
  EXPECT_EQ(text(r), rec::k15_8);
}

TEST(Iperf3Text, UdpReverseClient_15_9) {
  Report r;
  r.start = client_start({conn(5, 44454, 5299)});
  r.start.udp = true;
  r.start.reverse = true;
  r.intervals = {{{udp(5, 0, 1.0, 160 * kKiB, false, 5, 0.020)}},
                 {{udp(5, 1.0, 2.0, 128 * kKiB, false, 4, 0.046)}}};
  r.end.streams = {
      stream_end(5, false, udp_totals(2.0, 288 * kKiB, 9), udp_totals(2.0, 288 * kKiB, 9, 0.046))};
  EXPECT_EQ(text(r), rec::k15_9);
}

TEST(Iperf3Text, UdpReverseServer_15_10) {
  Report r;
  r.start = server_start({conn(5, 5299, 44454)}, 43118);
  r.start.udp = true;
  r.start.reverse = true;
  r.intervals = {{{udp(5, 0, 1.0, 128 * kKiB, true, 4)}},
                 {{udp(5, 1.0, 2.0, 128 * kKiB, true, 4)}},
                 {{udp(5, 2.0, 2.000359, 32 * kKiB, true, 1)}}};
  r.end.streams = {stream_end(5, true, udp_totals(2.0, 288 * kKiB, 9), udp_totals(2.0, 0, 0))};
  EXPECT_EQ(text(r), rec::k15_10);
}

TEST(Iperf3Text, GetServerOutputClient_15_11) {
  Report r;
  r.start = client_start({conn(5, 57684, 5299)});
  r.intervals = {{{tcp(5, 0, 1.0, 2.19 * kGiB, true, 36, 1023 * kKiB)}},
                 {{tcp(5, 1.0, 2.0, 2.28 * kGiB, true, 72, 3.25 * kMiB)}}};
  r.end.streams = {stream_end(5, true, totals(2.0, 4.47 * kGiB, 108), totals(2.0, 4.47 * kGiB))};
  // The server's text as its own renderer makes it.
  Report server;
  server.start = server_start({conn(5, 5299, 57684)}, 57668);
  server.intervals = {{{tcp(5, 0, 1.0, 2.19 * kGiB, false)}},
                      {{tcp(5, 1.0, 2.003, 2.278 * kGiB, false)}}};
  server.end.streams = {stream_end(5, false, totals(2.0, 4.47 * kGiB), totals(2.0, 4.47 * kGiB))};
  r.server_output_text = text(server);
  EXPECT_EQ(text(r), rec::k15_11);
}

// ---- fixtures: further 3.12 runs ----

TEST(Iperf3Text, BidirTwoStreamsOmitClient) {
  Report r;
  r.start = client_start(
      {conn(5, 45618, 5377), conn(7, 45620, 5377), conn(9, 45636, 5377), conn(12, 45640, 5377)},
      5377);
  r.start.bidir = true;
  r.start.num_streams = 2;
  r.start.omit = 1;
  const double cwnd = 1.12 * kMiB, chunk = 25034752;
  auto interval = [&](double from, double seconds, bool omitted) {
    Interval in;
    for (int sock : {5, 7})
      in.streams.push_back(tcp(sock, from, from + seconds, chunk, true, 0, cwnd, omitted));
    for (int sock : {9, 12})
      in.streams.push_back(tcp(sock, from, from + seconds, chunk, false, 0, 0, omitted));
    return in;
  };
  // The omitted second sums to 400 Mbits/sec, the others to 401.
  r.intervals = {interval(0, 1.002, true), interval(0, 1.0, false), interval(1.0, 1.0, false)};
  for (int sock : {5, 7})
    r.end.streams.push_back(
        stream_end(sock, true, totals(2.0, 2 * chunk, 0), totals(2.0, 2 * chunk)));
  for (int sock : {9, 12})
    r.end.streams.push_back(
        stream_end(sock, false, totals(2.0, 2 * chunk, 0), totals(2.0, 2 * chunk)));
  EXPECT_EQ(text(r), rec::kRecBidirP2OmitClient);
}

TEST(Iperf3Text, BidirTwoStreamsOmitServer) {
  Report r;
  r.start = server_start(
      {conn(5, 5377, 45618), conn(8, 5377, 45620), conn(11, 5377, 45636), conn(13, 5377, 45640)},
      45610);
  r.start.bidir = true;
  r.start.num_streams = 2;
  r.start.omit = 1;
  const double cwnd = 1.12 * kMiB, chunk = 25034752;
  auto interval = [&](double from, double seconds, bool omitted) {
    Interval in;
    for (int sock : {5, 8})
      in.streams.push_back(tcp(sock, from, from + seconds, chunk, false, 0, 0, omitted));
    for (int sock : {11, 13})
      in.streams.push_back(tcp(sock, from, from + seconds, chunk, true, 0, cwnd, omitted));
    return in;
  };
  r.intervals = {interval(0, 1.002, true), interval(0, 1.0, false), interval(1.0, 1.0, false)};
  for (int sock : {5, 8})
    r.end.streams.push_back(
        stream_end(sock, false, totals(2.0, 2 * chunk), totals(2.0, 2 * chunk)));
  for (int sock : {11, 13})
    r.end.streams.push_back(
        stream_end(sock, true, totals(2.0, 2 * chunk, 0), totals(2.0, 2 * chunk)));
  EXPECT_EQ(text(r), rec::kRecBidirP2OmitServer);
}

TEST(Iperf3Text, TwoStreamsWithTitle) {
  Report r;
  r.start = client_start({conn(5, 45658, 5377), conn(7, 45674, 5377)}, 5377);
  r.start.num_streams = 2;
  r.start.title = "tit";
  const double chunk = 25034752;
  for (double from : {0.0, 1.0}) {
    Interval in;
    for (int sock : {5, 7})
      in.streams.push_back(tcp(sock, from, from + 1, chunk, true, 0, 1.12 * kMiB));
    r.intervals.push_back(in);
  }
  for (int sock : {5, 7})
    r.end.streams.push_back(
        stream_end(sock, true, totals(2.0, 2 * chunk, 0), totals(2.002, 2 * chunk)));
  // -f m: Bitrate in Mbits/sec, Transfer still adaptive.
  EXPECT_EQ(text(r, Format{'m'}), rec::kRecP2TitleClient);
}

TEST(Iperf3Text, UdpTwoStreamsReverse) {
  Report c;
  c.start = client_start({conn(5, 53732, 5377), conn(7, 55412, 5377)}, 5377);
  c.start.udp = c.start.reverse = true;
  c.start.num_streams = 2;
  c.intervals = {{{udp(5, 0, 1, 39 * 32768.0, false, 39, 0.021),
                   udp(7, 0, 1, 39 * 32768.0, false, 39, 0.033)}},
                 {{udp(5, 1, 2, 38 * 32768.0, false, 38, 0.029),
                   udp(7, 1, 2, 38 * 32768.0, false, 38, 0.045)}}};
  c.end.streams = {
      stream_end(5, false, udp_totals(2, 77 * 32768.0, 77), udp_totals(2, 77 * 32768.0, 77, 0.029)),
      stream_end(7, false, udp_totals(2, 77 * 32768.0, 77),
                 udp_totals(2, 77 * 32768.0, 77, 0.045))};
  EXPECT_EQ(text(c), rec::kRecUdpP2ReverseClient);

  Report s;
  s.start = server_start({conn(5, 5377, 53732), conn(6, 5377, 55412)}, 45706);
  s.start.udp = s.start.reverse = true;
  s.start.num_streams = 2;
  s.intervals = {{{udp(5, 0, 1, 39 * 32768.0, true, 39), udp(6, 0, 1, 39 * 32768.0, true, 39)}},
                 {{udp(5, 1, 2, 38 * 32768.0, true, 38), udp(6, 1, 2, 38 * 32768.0, true, 38)}}};
  s.end.streams = {stream_end(5, true, udp_totals(2, 77 * 32768.0, 77), udp_totals(2, 0, 0)),
                   stream_end(6, true, udp_totals(2, 77 * 32768.0, 77), udp_totals(2, 0, 0))};
  EXPECT_EQ(text(s), rec::kRecUdpP2ReverseServer);
}

TEST(Iperf3Text, InterruptedClient) {
  Report r;
  r.start = client_start({conn(5, 46994, 5377)}, 5377);
  r.intervals = {{{tcp(5, 0, 1.0, 12.0 * kMiB, true, 0, 1.12 * kMiB)}},
                 {{tcp(5, 1.0, 1.4867, 5.75 * kMiB, true, 0, 1.12 * kMiB)}}};
  StreamEnd e = stream_end(5, true, totals(1.487, 17.8 * kMiB, 0), totals(0, 0));
  e.have_received = false;
  r.end.streams = {e};
  EXPECT_EQ(text(r), rec::kRecInterruptedClient);
}

TEST(Iperf3Text, InterruptedUdpTwoStreams) {
  Report r;
  r.start = client_start({conn(5, 33063, 5377), conn(7, 45049, 5377)}, 5377);
  r.start.udp = true;
  r.start.num_streams = 2;
  r.intervals = {
      {{udp(5, 0, 1, 39 * 32768.0, true, 39), udp(7, 0, 1, 39 * 32768.0, true, 39)}},
      {{udp(5, 1, 1.484, 576 * kKiB, true, 18), udp(7, 1, 1.484, 576 * kKiB, true, 18)}}};
  for (int sock : {5, 7}) {
    StreamEnd e =
        stream_end(sock, true, udp_totals(1.484, 57 * 32768.0, 57), udp_totals(9, 9, 9, 9, 9));
    e.have_received = false;  // whatever received holds, it is not shown
    r.end.streams.push_back(e);
  }
  EXPECT_EQ(text(r), rec::kRecInterruptedUdpP2Client);
}

}  // namespace
}  // namespace flowperf::report::iperf3

// ---- -J: 3.12's documents rebuilt from their own numbers ----

namespace flowperf::report::iperf3 {
namespace {

StartInfo json_client_start(int local_port, const char* time, int64_t timesecs, const char* cookie,
                            uint64_t rate) {
  StartInfo s = client_start({conn(5, static_cast<uint16_t>(local_port), 5377)}, 5377);
  s.version = "iperf 3.12";
  s.system_info = "Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64";
  s.time = time;
  s.timesecs = timesecs;
  s.cookie = cookie;
  s.tcp_mss_default = 32768;
  s.target_bitrate = rate;
  s.sndbuf_actual = 16384;
  s.rcvbuf_actual = 131072;
  s.blksize = 131072;
  s.duration = 2;
  return s;
}

StreamSample tcp_json(int socket, double from, double to, uint64_t bytes, uint64_t cwnd,
                      uint64_t wnd, uint32_t rtt, uint32_t rttvar) {
  StreamSample s =
      tcp(socket, from, to, static_cast<double>(bytes), true, 0, static_cast<double>(cwnd));
  s.snd_wnd = wnd;
  s.rtt_us = rtt;
  s.rttvar_us = rttvar;
  s.pmtu = 65535;
  return s;
}

Totals tcp_sent(double seconds, uint64_t bytes, uint64_t cwnd, uint64_t wnd, uint32_t max_rtt,
                uint32_t min_rtt, uint32_t mean_rtt) {
  Totals t = totals(seconds, static_cast<double>(bytes), 0);
  t.max_snd_cwnd = cwnd;
  t.max_snd_wnd = wnd;
  t.max_rtt_us = max_rtt;
  t.min_rtt_us = min_rtt;
  t.mean_rtt_us = mean_rtt;
  return t;
}

// iperf3 -c 127.0.0.1 -p 5377 -t 2 -b 200M -J
Report tcp_json_report() {
  Report r;
  r.start = json_client_start(41960, "Fri, 04 Dec 2026 13:45:33 GMT", 1796391933,
                              "htpyco6l3rztiimwqarz6vl53r4fkaihefyd", 200000000);
  r.intervals = {{{tcp_json(5, 0, 1.002843, 25034752, 1178694, 1114112, 133, 40)}},
                 {{tcp_json(5, 1.002843, 2.000284, 25034752, 1178694, 1114112, 135, 23)}}};
  StreamEnd e = stream_end(5, true, tcp_sent(2.000284, 50069504, 1178694, 1114112, 135, 133, 134),
                           totals(2.000455, 50069504));
  e.id = 1;
  r.end.streams = {e};
  r.end.host = {3.8515360396473288, 1.5805151778048396, 2.2709709734179508};
  r.end.remote = {1.4426052173530526, 0.96167016083156132, 0.48083508041578066};
  r.end.sender_tcp_congestion = r.end.receiver_tcp_congestion = "bbr";
  return r;
}

// iperf3 -c 127.0.0.1 -p 5377 -t 2 -u -b 10M -J
Report udp_json_report() {
  Report r;
  r.start = json_client_start(44644, "Fri, 04 Dec 2026 13:45:35 GMT", 1796391935,
                              "oskanbds4nv5q7qz5jqwu2lhd4glds4ngrxo", 10000000);
  r.start.udp = true;
  r.start.sndbuf_actual = r.start.rcvbuf_actual = 212992;
  r.start.blksize = 32768;
  r.intervals = {{{udp(5, 0, 1.000175, 1277952, true, 39)}},
                 {{udp(5, 1.000175, 2.000189, 1245184, true, 38)}}};
  r.end.streams = {stream_end(5, true, udp_totals(2.000189, 2523136, 77),
                              udp_totals(2.000411, 2523136, 77, 0.029629730153055228))};
  r.end.host = {2.2618110344187983, 0.41295178755470413, 1.8488592468640943};
  r.end.remote = {0.22309969101967508, 0, 0.2230497022921331};
  return r;
}

// iperf3 -c 127.0.0.1 -p 5377 -t 2 -b 200M --bidir -J
Report bidir_json_report() {
  Report r;
  r.start = json_client_start(41980, "Fri, 04 Dec 2026 13:45:37 GMT", 1796391937,
                              "eut6pqr2bzcyjuiu3uu5eytmotkvqrstmwzv", 200000000);
  r.start.connected.push_back(conn(7, 41986, 5377));
  r.start.bidir = true;
  r.intervals = {{{tcp_json(5, 0, 1.000038, 25034752, 1178694, 1113088, 82, 56),
                   tcp(7, 0, 1.000062, 25034752, false)}},
                 {{tcp_json(5, 1.000038, 2.000046, 25034752, 1178694, 1113088, 51, 3),
                   tcp(7, 1.000062, 2.000131, 25034752, false)}}};
  r.end.streams = {stream_end(5, true, tcp_sent(2.000046, 50069504, 1178694, 1113088, 82, 51, 66),
                              totals(2.001288, 50069504)),
                   stream_end(7, false, tcp_sent(2.000046, 50069504, 360448, 65536, 27, 27, 27),
                              totals(2.001288, 50069504))};
  r.end.host = {3.3590507701538321, 0, 3.359000978407809};
  r.end.remote = {3.7326070087127974, 1.1252635150294132, 2.60719359179417};
  r.end.sender_tcp_congestion = r.end.receiver_tcp_congestion = "bbr";
  return r;
}

TEST(Iperf3Json, TcpClient) { EXPECT_EQ(json(tcp_json_report()), rec::kRecTcpJson); }
TEST(Iperf3Json, UdpClient) { EXPECT_EQ(json(udp_json_report()), rec::kRecUdpJson); }
TEST(Iperf3Json, BidirClient) { EXPECT_EQ(json(bidir_json_report()), rec::kRecBidirJson); }

// Interrupted (SIGINT) with -T and --extra-data: no peer results, "error"
// before "title" and "extra_data".
TEST(Iperf3Json, InterruptedClientWithTitle) {
  Report r;
  r.start = json_client_start(47028, "Fri, 04 Dec 2026 13:49:07 GMT", 1796392147,
                              "itynwegziu5qznfc6wl5o4mcqh2kwapqnibz", 100000000);
  r.start.duration = 5;
  r.start.title = "tt";
  r.start.extra_data = "ee";
  r.intervals = {{{tcp_json(5, 0, 1.000257, 12582912, 1178694, 1114112, 92, 9)}},
                 {{tcp_json(5, 1.000257, 1.187966, 2359296, 1178694, 1114112, 117, 16)}}};
  StreamEnd e = stream_end(5, true, tcp_sent(1.187966, 14942208, 1178694, 1114112, 117, 92, 104),
                           totals(0, 0));
  e.have_received = false;
  r.end.streams = {e};
  r.end.host = {2.3347079561919624, 0.739631458052773, 1.5950764981391892};
  r.end.sender_tcp_congestion = "bbr";
  r.error = "interrupt - the client has terminated";
  EXPECT_EQ(json(r), rec::kRecInterruptedJson);
}

// The key paths of §14 (which are those of the recorded documents).
std::vector<std::string> key_paths(const Json& v, const std::string& prefix = "") {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& p) {
    if (seen.insert(p).second) out.push_back(p);
  };
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string p = prefix + it.key();
      add(p);
      for (const std::string& q : key_paths(it.value(), p)) add(q);
    }
  } else if (v.is_array()) {
    for (const Json& e : v)
      for (const std::string& q : key_paths(e, prefix + "[]")) add(q);
  }
  if (!prefix.empty() && (v.is_object() || v.is_array())) {
    for (std::string& p : out)
      if (p.rfind(prefix, 0) == 0 && p.size() > prefix.size() && p[prefix.size()] != '[')
        p.insert(prefix.size(), ".");
  }
  return out;
}

TEST(Iperf3Json, KeyOrderMatchesSection14) {
  struct Case {
    Report report;
    const char* recorded;
    size_t paths;  // §14.1, §14.2, §14.3 list 105, 106 and 128 paths
  };
  for (const Case& c : {Case{tcp_json_report(), rec::kRecTcpJson, 105},
                        Case{udp_json_report(), rec::kRecUdpJson, 106},
                        Case{bidir_json_report(), rec::kRecBidirJson, 128}}) {
    auto ours = key_paths(Json::parse(json(c.report)));
    EXPECT_EQ(ours, key_paths(Json::parse(c.recorded)));
    EXPECT_EQ(ours.size(), c.paths);
  }
  auto paths = key_paths(Json::parse(json(tcp_json_report())));
  EXPECT_EQ(paths[0], "start");
  EXPECT_EQ(paths[2], "start.connected[].socket");
  EXPECT_EQ(paths.back(), "end.receiver_tcp_congestion");
}

TEST(Iperf3Json, Error_14_4) {
  StartInfo s;
  s.version = "iperf 3.12";
  s.system_info = "Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64";
  EXPECT_EQ(json_error(s, "unable to connect to server: Connection refused"), rec::kRecErrorJson);
  s.system_info = "Linux vm 6.18.44-fc-v1252 #1 SMP PREEMPT_DYNAMIC @0 x86_64";
  EXPECT_EQ(json_error(s, "the server is busy running a test. try again later"),
            std::string("{\n"
                        "\t\"start\":\t{\n"
                        "\t\t\"connected\":\t[],\n"
                        "\t\t\"version\":\t\"iperf 3.12\",\n"
                        "\t\t\"system_info\":\t\"Linux vm 6.18.44-fc-v1252 #1 SMP "
                        "PREEMPT_DYNAMIC @0 x86_64\"\n"
                        "\t},\n"
                        "\t\"intervals\":\t[],\n"
                        "\t\"end\":\t{\n"
                        "\t},\n"
                        "\t\"error\":\t\"the server is busy running a test. try again later\"\n"
                        "}\n"));
}

// A client with --get-server-output against a -J server prints the
// server's document with cJSON's layout, nested one level less than in -J.
TEST(Iperf3Json, ServerJsonOutputBlock) {
  Report r = tcp_client_15_1();
  r.server_output_json = Json::parse(R"({"start":{"connected":[]},"end":{}})");
  std::string t = text(r);
  EXPECT_NE(
      t.find("receiver\n\nServer JSON output:\n{\n\t\"start\":\t{\n\t\t\"connected\":\t[]\n\t},"
             "\n\t\"end\":\t{\n\t}\n}\n"),
      std::string::npos)
      << t;
  std::string j = json(r);
  EXPECT_NE(j.find("\t\"server_output_json\":\t{\n\t\t\"start\":\t{"), std::string::npos) << j;
}

}  // namespace
}  // namespace flowperf::report::iperf3
