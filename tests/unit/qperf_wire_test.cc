// qperf 0.4.11's control messages against the bytes recorded from Debian's
// qperf (../shared/protocols/qperf-wire.md §10, Vectors A, B and C).
#include "proto/qperf_wire.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "proto/messages.h"

namespace qw = flowperf::proto::qperf;
using flowperf::proto::ProtocolError;

namespace {

// Vector A: `qperf 127.0.0.1 -t 1 -m 4K -ar1 -sb 128K -ip 30000 -to 7 -ca 1 tcp_bw`.
std::array<uint8_t, 200> vector_a() {
  std::array<uint8_t, 200> b{};
  const uint8_t head[] = {0x00, 0x00, 0x04, 0x00, 0x0b, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00,
                          0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0x00, 0x30, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x01, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00};
  std::copy(std::begin(head), std::end(head), b.begin());
  return b;
}

// Vector B: the STAT after a 2 s tcp_bw.
std::array<uint8_t, 256> vector_b() {
  const uint8_t rows[][16] = {
      {0x02, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x72, 0x6a,
       0x66},
      {0x00, 0x00, 0x00, 0x00, 0x24, 0x79, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0x69, 0xf5, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb7, 0x0e, 0x04,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0x87, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0x20, 0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0xf4, 0x72, 0x6a, 0x66, 0x00, 0x00, 0x00, 0x00, 0x53, 0x79, 0x02,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x31, 0xf6, 0x01,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0xd7, 0x0e, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x87, 0x03, 0x00,
       0x00},
      {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x93, 0x66, 0x00,
       0x00},
      {},
      {},
      {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x82, 0xd2, 0x00,
       0x00},
  };
  std::array<uint8_t, 256> b{};
  for (size_t r = 0; r < std::size(rows); ++r)
    for (size_t i = 0; i < 16; ++i) b[r * 16 + i] = rows[r][i];
  return b;
}

TEST(QperfRequest, VectorADecodesToTheOptionsGiven) {
  const auto bytes = vector_a();
  const qw::Request r = qw::decode_request(bytes);
  EXPECT_EQ(r.ver_maj, 0);
  EXPECT_EQ(r.ver_min, 4);
  EXPECT_EQ(r.ver_inc, 11);
  EXPECT_EQ(r.req_index, static_cast<uint16_t>(qw::Index::kTcpBw));
  EXPECT_EQ(r.access_recv, 1u);
  EXPECT_EQ(r.affinity, 1u);
  EXPECT_EQ(r.msg_size, 4096u);
  EXPECT_EQ(r.port, 30000u);
  EXPECT_EQ(r.sock_buf_size, 131072u);
  EXPECT_EQ(r.time, 1u);
  EXPECT_EQ(r.timeout, 7u);
  EXPECT_EQ(r.flip, 0u);
  EXPECT_EQ(r.id, (std::array<char, 64>{}));
}

TEST(QperfRequest, EncodesVectorAByteForByte) {
  qw::Request r;
  r.req_index = 8;
  r.access_recv = 1;
  r.affinity = 1;
  r.msg_size = 4096;
  r.port = 30000;
  r.sock_buf_size = 131072;
  r.time = 1;
  r.timeout = 7;
  EXPECT_EQ(qw::encode_request(r), vector_a());
  EXPECT_EQ(qw::decode_request(qw::encode_request(r)), r);
}

TEST(QperfRequest, AnotherVersionIsRefusedInQperfsWords) {
  auto b = vector_a();
  b[2] = 5;  // 0.5.11
  try {
    qw::decode_request(b);
    FAIL() << "0.5 decoded";
  } catch (const ProtocolError& e) {
    EXPECT_STREQ(e.what(), "upgrade qperf on server from 0.4.11 to 0.5.11");
  }
  b[2] = 3;
  EXPECT_THROW(qw::decode_request(b), ProtocolError);
  EXPECT_THROW(qw::decode_request(std::span<const uint8_t>(vector_a().data(), 199)), ProtocolError);
}

TEST(QperfRequest, HeadTellsQperfFromNetperfAndOthers) {
  const auto a = vector_a();
  EXPECT_EQ(qw::match_head(std::span<const uint8_t>(a.data(), 6)), qw::HeadMatch::kYes);
  EXPECT_EQ(qw::match_head(std::span<const uint8_t>(a.data(), 3)), qw::HeadMatch::kNeedMore);
  const uint8_t newer[] = {0, 0, 5, 0, 0, 0};
  EXPECT_EQ(qw::match_head(newer), qw::HeadMatch::kOtherVersion);
  // netperf's first word: a big-endian request number (DO_OMNI 97, DO_TCP_CC 300).
  const uint8_t omni[] = {0, 0, 0, 97, 0, 0, 0, 0};
  EXPECT_EQ(qw::match_head(omni), qw::HeadMatch::kNo);
  const uint8_t cc[] = {0, 0, 1, 44, 0, 0};
  EXPECT_EQ(qw::match_head(cc), qw::HeadMatch::kNo);
  const uint8_t get[] = {'G', 'E', 'T', ' ', '/', ' '};
  EXPECT_EQ(qw::match_head(get), qw::HeadMatch::kNo);
}

TEST(QperfPort, VectorAsAnnouncedPort) {
  const uint8_t rec[] = {0x30, 0x75, 0x00, 0x00};
  EXPECT_EQ(qw::decode_port(rec), 30000);
  EXPECT_EQ(qw::encode_port(30000), (std::array<uint8_t, 4>{0x30, 0x75, 0, 0}));
  // Vector C's request asks for 19765: 35 4d 00 00.
  EXPECT_EQ(qw::encode_port(19765), (std::array<uint8_t, 4>{0x35, 0x4d, 0, 0}));
}

TEST(QperfPort, WhatIsNotAPortIsRefused) {
  const uint8_t zero[] = {0, 0, 0, 0};
  EXPECT_THROW(qw::decode_port(zero), ProtocolError);
  const uint8_t ssh[] = {'S', 'S', 'H', '-'};  // what a qperf client took as a port
  EXPECT_THROW(qw::decode_port(ssh), ProtocolError);
  const uint8_t big[] = {0x00, 0x00, 0x01, 0x00};  // 65536
  EXPECT_THROW(qw::decode_port(big), ProtocolError);
  const uint8_t max[] = {0xff, 0xff, 0x00, 0x00};
  EXPECT_EQ(qw::decode_port(max), 65535);
}

TEST(QperfSync, StringsHaveTheRecordedLengths) {
  EXPECT_EQ(qw::kSyncBefore.size(), 27u);
  EXPECT_EQ(qw::kSyncAfter.size(), 26u);
  const uint8_t rec[] = {0x73, 0x79, 0x6e, 0x63, 0x68, 0x72, 0x6f, 0x6e, 0x69,
                         0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x20, 0x62, 0x65,
                         0x66, 0x6f, 0x72, 0x65, 0x20, 0x74, 0x65, 0x73, 0x74};
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(rec), sizeof rec), qw::kSyncBefore);
}

TEST(QperfStat, VectorBDecodes) {
  const qw::Stat s = qw::decode_stat(vector_b());
  EXPECT_EQ(s.no_cpus, 2u);
  EXPECT_EQ(s.no_ticks, 100u);
  EXPECT_EQ(s.max_cqes, 0u);
  EXPECT_EQ(s.time_s[0], 1718252076u);
  EXPECT_EQ(s.time_e[0], 1718252276u);
  EXPECT_DOUBLE_EQ(s.seconds(), 2.0);
  EXPECT_EQ(s.time_s[1], 0x27924u);  // user
  EXPECT_EQ(s.time_e[4], 0x40ed7u);  // idle
  EXPECT_EQ(s.r.bytes, 3531735040u);
  EXPECT_EQ(s.r.msgs, 53890u);
  EXPECT_EQ(s.r.bytes / s.r.msgs, 65536u);
  EXPECT_EQ(s.s, qw::Stat::Ustat{});
  EXPECT_EQ(s.rem_r, qw::Stat::Ustat{});
}

TEST(QperfStat, EncodesVectorBByteForByte) {
  const qw::Stat s = qw::decode_stat(vector_b());
  EXPECT_EQ(qw::encode_stat(s), vector_b());
}

TEST(QperfStat, ZeroTicksOrShortIsRefused) {
  auto b = vector_b();
  b[4] = 0;
  EXPECT_THROW(qw::decode_stat(b), ProtocolError);
  EXPECT_THROW(qw::decode_stat(std::span<const uint8_t>(vector_b().data(), 255)), ProtocolError);
}

TEST(QperfConf, FieldsAreCutAtByte63AndGarbageAfterTheNulIsDropped) {
  qw::Conf c{"vm", "2 Cores: AMD EPYC 2.1GHz", "Linux 6.18.44-fc-v1252", "0.4.11"};
  auto b = qw::encode_conf(c);
  EXPECT_EQ(b[0], 'v');
  EXPECT_EQ(b[64], '2');
  EXPECT_EQ(b[192], '0');
  EXPECT_EQ(qw::decode_conf(b), c);
  // Stack garbage after the NUL, as Debian's server sends.
  b[64 + 30] = 0xe5;
  b[192 + 10] = 'x';
  EXPECT_EQ(qw::decode_conf(b), c);
  // A field with no NUL at all ends at byte 63.
  std::array<uint8_t, 256> full;
  full.fill('A');
  const qw::Conf g = qw::decode_conf(full);
  EXPECT_EQ(g.node, std::string(63, 'A'));
  EXPECT_EQ(g.qperf, std::string(63, 'A'));
  EXPECT_EQ(qw::encode_conf(qw::Conf{std::string(100, 'n'), "", "", ""})[63], 0);
}

TEST(QperfErrorText, VectorCsTextTravelsAsIs) {
  const uint8_t rec[] = {0x75, 0x6e, 0x61, 0x62, 0x6c, 0x65, 0x20, 0x74, 0x6f,
                         0x20, 0x6d, 0x61, 0x6b, 0x65, 0x20, 0x54, 0x43, 0x50,
                         0x20, 0x73, 0x6f, 0x63, 0x6b, 0x65, 0x74};
  const std::string text(reinterpret_cast<const char*>(rec), sizeof rec);
  EXPECT_EQ(text, "unable to make TCP socket");
  EXPECT_EQ(qw::error_text_for_wire(text), text);
  EXPECT_EQ(qw::error_text_for_wire("a\nb"), "a?b");
  EXPECT_EQ(qw::error_text_for_wire(std::string(300, 'x')).size(), 255u);
}

TEST(QperfIndex, NamesAsQperfDoes) {
  EXPECT_EQ(qw::index_name(8), "tcp_bw");
  EXPECT_EQ(qw::index_name(11), "udp_lat");
  EXPECT_EQ(qw::index_name(0), "conf");
  EXPECT_EQ(qw::index_name(13), "rdma test 13");
}

}  // namespace

// Each message's field list is walked both ways (proto/qperf_wire.cc): a
// message whose every byte of the layout is distinct, decoded and encoded
// again, comes back byte for byte; a field left out of a list, or listed
// in the wrong place, loses or moves its bytes.
TEST(QperfWire, EveryFieldOfEveryMessageSurvivesARoundTrip) {
  // The request: all 200 bytes are fields; its version must be ours.
  qw::RequestBytes request{};
  for (size_t i = 0; i < request.size(); ++i) request[i] = static_cast<uint8_t>(i * 7 + 1);
  request[0] = request[1] = 0;  // ver_maj 0
  request[2] = static_cast<uint8_t>(qw::kVerMinor);
  request[3] = 0;
  EXPECT_EQ(qw::encode_request(qw::decode_request(request)), request);
  // The statistics: 252 bytes of counters, then 4 of padding.
  std::array<uint8_t, qw::kStatBytes> stat{};
  for (size_t i = 0; i < 252; ++i) stat[i] = static_cast<uint8_t>(i * 5 + 3);
  EXPECT_EQ(qw::encode_stat(qw::decode_stat(stat)), stat);
  // The configuration: four texts of up to 63 characters, each NUL-ended.
  std::array<uint8_t, qw::kConfBytes> conf{};
  for (size_t i = 0; i < conf.size(); ++i)
    conf[i] = i % qw::kConfField == qw::kConfField - 1 ? 0 : static_cast<uint8_t>('a' + i % 26);
  EXPECT_EQ(qw::encode_conf(qw::decode_conf(conf)), conf);
}
