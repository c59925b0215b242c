// proto/netperf_wire: decoding and re-encoding messages recorded from real
// netperf 2.7.1 and netserver traffic on loopback (tcpdump of the control
// connections), plus the edge cases: short frames, 64-bit counters, char
// arrays, the classic layouts, and netserver's answer to unknown requests.
#include "proto/netperf_wire.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace np = flowperf::proto::netperf;

namespace {

// Recorded messages, as hex with the trailing zero bytes left off (every
// message is 656 bytes on the wire).
// netperf -t TCP_STREAM -l 1
const char* const kTcpStreamRequest[] = {
    "00000061ffffffffffffffffffffffff000000080000000000000002ffffffff",
    "ffffffffffffffff000000080000000000000000ffffffff0000002000000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000100000006000000040000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
// netserver's setup response to it
const char* const kTcpStreamSetup[] = {
    "000000620000000000020000000200000000000200004000ffffffff00000002",
    "0000000000000000000000000000000000000000000087c10000000000000000",
    "0000000000000000ffffffffffffffff",
};
// netserver's results
const char* const kTcpStreamResults[] = {
    "62000000000000000000000058bbc0000000525d002cade30000000000000000",
    "00000000003c1e0000000000000000003f800b5fc18700000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000626272",
};
// netperf -t TCP_RR -l 1
const char* const kTcpRrRequest[] = {
    "00000061ffffffffffffffffffffffff00000008000000000000000100000001",
    "ffffffffffffffff000000080000000000000001000000010000002000000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000100000006000000060000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kTcpRrSetup[] = {
    "0000006200000000000200000000000100000001000040000000000100000001",
    "000000000000000000000000000000000000000000008c770000000000000000",
    "0000000000000000ffffffffffffffff",
};
const char* const kTcpRrResults[] = {
    "6200000000000000000000000000359400003594000200000000000000003594",
    "00003594003c1e0000000000000035943f80064b778c00000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000626272",
};
// netperf -t TCP_STREAM -l 3: over 4 GiB, so the hi word is set
const char* const kBigStreamResults[] = {
    "6200000000000000000000011ec380000000fe6b001e52530000000000000000",
    "00000000004000000000000000000000404002e61d9d00000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000626272",
};
// netperf -t TCP_MAERTS -l 1
const char* const kMaertsRequest[] = {
    "00000061ffffffffffffffffffffffff000000080000000000000000ffffffff",
    "ffffffffffffffff000000080000000000000002ffffffff0000002000000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000100000006000000020000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kMaertsSetup[] = {
    "000000620000000000020000ffffffff00000002000040000000400000000002",
    "000000000000000000000000000000000000000000009c170000000000000000",
    "0000000000000000ffffffffffffffff",
};
const char* const kMaertsResults[] = {
    "62000000000000000000000000000000000000000002000000000000539e4000",
    "00014e790040000000000000000000003f808052179c00000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "0000000000000000000000000000000000000034000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000626272",
};
// netperf -L 127.0.0.1 -t UDP_STREAM -l 1 -- -m 1400
const char* const kUdpStreamRequest[] = {
    "00000061ffffffffffffffffffffffff000000080000000000000099ffffffff",
    "ffffffffffffffff000000080000000000000000ffffffff0000000000000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000200000011000000040000cb4b00000000000000007f00000100000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kUdpStreamSetup[] = {
    "000000620000000000034000000340000000000200034000ffffffff00000099",
    "00000000000000000000000000000000000000000000803e0000000000000000",
    "0000000000000000ffffffffffffffff",
};
// netperf -t UDP_STREAM -l 1 (another run)
const char* const kUdpStreamResults[] = {
    "620000000000000000000000ead762960000eaf2000340000000000000000000",
    "000000000003400000000000000000003f80086cd8da00000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "00000000000000000000000000000000ffffffff",
};
// netperf -t TCP_CRR -l 1
const char* const kCrrRequest[] = {
    "00000061ffffffffffffffffffffffff00000008000000000000000100000001",
    "ffffffffffffffff000000080000000000000001000000010000002400000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000100000006000000060000ca3f00000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kCrrResults[] = {
    "62000000000000000000000000007fc300007fc3000200000000000000007fc4",
    "00007fc4000040000000000000007fc43f800350cd9700000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "00000000000000000000000000000000ffffffff",
};
// netperf -t TCP_RR -l 1 -- -r 100,200 -D
const char* const kRrSizesRequest[] = {
    "00000061ffffffffffffffffffffffff00000008000000000000000100000064",
    "ffffffffffffffff000000080000000000000001000000c80000002100000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000004",
    "0000000100000006000000060000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kRrSizesSetup[] = {
    "000000620000000000020000000000640000000100004000000000c800000001",
    "0000000100000000000000000000000000000000000086910000000000000000",
    "0000000000000000ffffffffffffffff",
};
// netperf -H ::1 -L ::1 -6 -t UDP_RR -l 1
const char* const kUdpRrV6Request[] = {
    "00000061ffffffffffffffffffffffff00000008000000000000000100000001",
    "ffffffffffffffff000000080000000000000001000000010000002000000000",
    "000000010000000000000000ffffffffffffffffffffffff0000000000000006",
    "0000000200000011000000060000e6ce00000000000000000000000000000000",
    "000000000100000000000000000000000000000000000000ffffffffffffffff",
};
const char* const kUdpRrV6Results[] = {
    "62000000000000000000000000003a5e00003a5e000340000000000000003a5e",
    "00003a5e000340000000000000003a5e3f800c8ddf9f00000000000000000000",
    "0000000000000000ffffffffffffffff00000000000000000000000000000000",
    "00000000000000000000000000000000ffffffff",
};

// netperf 2.7.1 built with --enable-omni=no: classic TCP_STREAM and TCP_RR,
// -l 1, against netserver 2.7.1.
const char* const kClassicStreamRequest[] = {
    "0000000affffffffffffffffffffffff00000000000000080000000000000000",
    "0000000000000000000000010000000000000000000000000000000000000000",
    "00000004",
};
const char* const kClassicStreamSetup[] = {
    "0000000b00000000000200000002000000000000000000000000000000004000",
    "00009e33",
};
const char* const kClassicStreamResults[] = {
    "0b0000000000000041d93d8000000000000057d03f800408000000000040",
};
const char* const kClassicRrRequest[] = {
    "0000000dffffffffffffffffffffffff00000008000000000000000800000000",
    "0000000100000001000000000000000000000000000000010000000000000000",
    "0000000000000004",
};
const char* const kClassicRrSetup[] = {
    "0000000e0000000000020000000000000000000000000001000040000000b575",
};
const char* const kClassicRrResults[] = {
    "0e0000000000000000008f8c00000000000047c63f8007780040000075b5",
};

// netperf 2.7.1 -t TCP_CC -l 1 -- -r 32,64 -D, through a logging proxy to a
// real netserver: netperf still sends TCP_CC as a classic request (300) in
// TCP_RR's layout; netserver answers 301 and sends results (302, its header
// garbled) when its padded timer ends.
const char* const kTcpCcRequest[] = {
    "0000012cffffffffffffffffffffffff00000008000000000000000800000000",
    "0000002000000040000000010000000000000000000000010000000000000000",
    "0000000000000004",
};
const char* const kTcpCcSetup[] = {
    "0000012d00000000000200000000000100000000000000000000400000008fb3",
};
const char* const kTcpCcResults[] = {
    "2d010000000000000006798001000000000011443f8002f400400000b38f",
};

np::Frame hex_frame(std::span<const char* const> parts) {
  std::string hex;
  for (const char* p : parts) hex += p;
  np::Frame f{};
  for (size_t i = 0; i < hex.size() / 2; ++i)
    f[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return f;
}

// Re-encoding gives back the recorded bytes, except netserver's results
// header, whose type it garbles (it swaps its setup header a second time).
void expect_same(const np::Frame& want, const np::Frame& got, size_t from = 0) {
  for (size_t i = from; i < np::kMessageBytes; ++i)
    ASSERT_EQ(want[i], got[i]) << "first difference at byte " << i;
}

}  // namespace

TEST(NetperfWire, TcpStreamRequestFromNetperf) {
  const np::Frame f = hex_frame(kTcpStreamRequest);
  const np::Header h = np::decode_header(f);
  EXPECT_EQ(h.type, np::kDoOmni);
  EXPECT_EQ(h.second, -1);  // no CPU affinity
  EXPECT_EQ(np::classify_request(h.type), np::RequestKind::kOmni);
  const np::OmniRequest r = np::decode_omni_request(f);
  EXPECT_EQ(r.send_buf_size, -1);
  EXPECT_EQ(r.send_size, -1);
  EXPECT_EQ(r.send_alignment, 8u);
  EXPECT_EQ(r.send_width, 2u);
  EXPECT_EQ(r.request_size, -1);
  EXPECT_EQ(r.recv_buf_size, -1);
  EXPECT_EQ(r.receive_size, -1);
  EXPECT_EQ(r.recv_alignment, 8u);
  EXPECT_EQ(r.response_size, -1);
  EXPECT_EQ(r.flags, np::kFlagWantRemoteCong);
  EXPECT_EQ(r.cpu_rate, 0.0f);
  EXPECT_EQ(r.test_length, 1);
  EXPECT_EQ(r.send_dirty_count, -1);
  EXPECT_EQ(r.recv_dirty_count, -1);
  EXPECT_EQ(r.recv_clean_count, -1);
  EXPECT_EQ(r.data_port, 0u);
  EXPECT_EQ(r.ipfamily, np::kNfInet);
  EXPECT_EQ(r.socket_type, np::kNstStream);
  EXPECT_EQ(r.protocol, 6u);
  EXPECT_EQ(r.direction, np::kDirRecv);  // the server receives
  EXPECT_EQ(r.socket_prio, -1);
  EXPECT_EQ(r.socket_tos, -1);
  EXPECT_EQ(r.cong_control, "");
  expect_same(f, np::encode_omni_request(r, h.second));
}

TEST(NetperfWire, TcpStreamSetupAndResultsFromNetserver) {
  const np::Frame setup = hex_frame(kTcpStreamSetup);
  EXPECT_EQ(np::decode_header(setup).type, np::kOmniResponse);
  EXPECT_EQ(np::decode_header(setup).second, 0);
  const np::OmniResponse s = np::decode_omni_response(setup);
  EXPECT_EQ(s.recv_buf_size, 131072);
  EXPECT_EQ(s.receive_size, 131072);  // -1 asked: netserver reads its buffer size
  EXPECT_EQ(s.recv_width, 2);
  EXPECT_EQ(s.send_buf_size, 16384);
  EXPECT_EQ(s.send_size, -1);
  EXPECT_EQ(s.send_width, 2);
  EXPECT_EQ(s.flags, 0u);
  EXPECT_EQ(s.data_port, 34753u);  // word 11
  EXPECT_EQ(s.socket_prio, -1);
  expect_same(setup, np::encode_omni_response(s));

  const np::Frame results = hex_frame(kTcpStreamResults);
  EXPECT_EQ(np::decode_header(results).type, 0x62000000);  // 98, swapped twice
  EXPECT_EQ(np::decode_header(results).second, 0);
  const np::OmniResults r = np::decode_omni_results(results);
  EXPECT_EQ(r.bytes_received, 1488699392u);
  EXPECT_EQ(r.recv_calls, 21085u);
  EXPECT_EQ(r.recv_buf_size, 2928099);  // autotuned, at the end
  EXPECT_EQ(r.bytes_sent, 0u);
  EXPECT_EQ(r.send_calls, 0u);
  EXPECT_EQ(r.send_buf_size, 3939840);
  EXPECT_EQ(r.trans_received, 0u);
  EXPECT_NEAR(r.elapsed_time, 1.00035, 1e-5);
  EXPECT_EQ(r.cong_control, "bbr");  // asked for with flag 0x20
  const np::Frame again = np::encode_omni_results(r);
  EXPECT_EQ(np::decode_header(again).type, np::kOmniResponse);
  expect_same(results, again, 4);
}

TEST(NetperfWire, TcpRrExchange) {
  const np::Frame req = hex_frame(kTcpRrRequest);
  const np::OmniRequest r = np::decode_omni_request(req);
  EXPECT_EQ(r.request_size, 1);
  EXPECT_EQ(r.response_size, 1);
  EXPECT_EQ(r.send_width, 1u);
  EXPECT_EQ(r.recv_width, 1u);
  EXPECT_EQ(r.direction, np::kDirXmit | np::kDirRecv);
  expect_same(req, np::encode_omni_request(r));

  const np::Frame setup = hex_frame(kTcpRrSetup);
  const np::OmniResponse s = np::decode_omni_response(setup);
  EXPECT_EQ(s.receive_size, 1);
  EXPECT_EQ(s.send_size, 1);
  EXPECT_EQ(s.data_port, 35959u);
  expect_same(setup, np::encode_omni_response(s));

  const np::Frame results = hex_frame(kTcpRrResults);
  const np::OmniResults res = np::decode_omni_results(results);
  EXPECT_EQ(res.bytes_received, 13716u);
  EXPECT_EQ(res.bytes_sent, 13716u);
  EXPECT_EQ(res.recv_calls, 13716u);
  EXPECT_EQ(res.send_calls, 13716u);
  EXPECT_EQ(res.trans_received, 13716u);
  EXPECT_EQ(res.recv_buf_size, 131072);
  EXPECT_NEAR(res.elapsed_time, 1.00019, 1e-5);
  expect_same(results, np::encode_omni_results(res), 4);
}

TEST(NetperfWire, CountersOver4GiBUseTheHiWord) {
  const np::Frame results = hex_frame(kBigStreamResults);
  const np::OmniResults r = np::decode_omni_results(results);
  EXPECT_EQ(r.bytes_received, 4811096064u);
  EXPECT_EQ(r.recv_calls, 65131u);
  EXPECT_NEAR(r.elapsed_time, 3.00018, 1e-5);
  expect_same(results, np::encode_omni_results(r), 4);
  // Words 0 and 1 are hi and lo.
  EXPECT_EQ(results[8 + 3], 1);
  EXPECT_EQ(results[8 + 4], 0x1e);
}

TEST(NetperfWire, MaertsExchange) {
  const np::OmniRequest r = np::decode_omni_request(hex_frame(kMaertsRequest));
  EXPECT_EQ(r.direction, np::kDirXmit);  // the server sends
  EXPECT_EQ(r.recv_width, 2u);
  const np::OmniResponse s = np::decode_omni_response(hex_frame(kMaertsSetup));
  EXPECT_EQ(s.send_size, 16384);  // chosen from its send buffer
  EXPECT_EQ(s.receive_size, -1);  // echoed: it does not receive
  EXPECT_EQ(s.data_port, 39959u);
  const np::Frame results = hex_frame(kMaertsResults);
  const np::OmniResults res = np::decode_omni_results(results);
  EXPECT_EQ(res.bytes_sent, 1402880000u);
  EXPECT_EQ(res.send_calls, 85625u);
  EXPECT_EQ(res.bytes_received, 0u);
  expect_same(results, np::encode_omni_results(res), 4);
}

TEST(NetperfWire, UdpStreamNamesTheClientsDataSocket) {
  const np::Frame req = hex_frame(kUdpStreamRequest);
  const np::OmniRequest r = np::decode_omni_request(req);
  EXPECT_EQ(r.socket_type, np::kNstDgram);
  EXPECT_EQ(r.protocol, 17u);
  EXPECT_EQ(r.direction, np::kDirRecv);
  EXPECT_EQ(r.flags, 0u);
  EXPECT_EQ(r.netperf_port, 52043u);
  EXPECT_EQ(r.netperf_ip[0], 0x7f000001u);  // network order on the wire
  uint8_t ip[4];
  np::words_to_ip(np::kNfInet, r.netperf_ip, ip);
  EXPECT_EQ(ip[0], 127);
  EXPECT_EQ(ip[3], 1);
  expect_same(req, np::encode_omni_request(r));

  const np::OmniResponse s = np::decode_omni_response(hex_frame(kUdpStreamSetup));
  EXPECT_EQ(s.recv_buf_size, 212992);
  EXPECT_EQ(s.receive_size, 212992);
  EXPECT_EQ(s.data_port, 32830u);

  const np::Frame results = hex_frame(kUdpStreamResults);
  const np::OmniResults res = np::decode_omni_results(results);
  EXPECT_EQ(res.bytes_received, 3939984022u);
  EXPECT_EQ(res.recv_calls, 60146u);  // datagrams
  EXPECT_EQ(res.bytes_received, uint64_t{res.recv_calls} * 65507);
  EXPECT_EQ(res.cong_control, "");
  expect_same(results, np::encode_omni_results(res), 4);
}

TEST(NetperfWire, CrrAndRrFlags) {
  const np::OmniRequest crr = np::decode_omni_request(hex_frame(kCrrRequest));
  EXPECT_EQ(crr.flags, np::kFlagConnectTest | np::kFlagWantRemoteCong);
  EXPECT_EQ(crr.netperf_port, 51775u);
  const np::OmniResults res = np::decode_omni_results(hex_frame(kCrrResults));
  EXPECT_EQ(res.trans_received, 32708u);
  EXPECT_EQ(res.bytes_sent, 32708u);
  EXPECT_EQ(res.bytes_received, 32707u);

  const np::OmniRequest rr = np::decode_omni_request(hex_frame(kRrSizesRequest));
  EXPECT_EQ(rr.flags, np::kFlagNoDelay | np::kFlagWantRemoteCong);
  EXPECT_EQ(rr.request_size, 100);
  EXPECT_EQ(rr.response_size, 200);
  const np::OmniResponse s = np::decode_omni_response(hex_frame(kRrSizesSetup));
  EXPECT_EQ(s.receive_size, 100);
  EXPECT_EQ(s.send_size, 200);
  EXPECT_EQ(s.flags, np::kFlagNoDelay);
  expect_same(hex_frame(kRrSizesSetup), np::encode_omni_response(s));
}

TEST(NetperfWire, Ipv6AddressWordsAreByteReversed) {
  const np::Frame req = hex_frame(kUdpRrV6Request);
  const np::OmniRequest r = np::decode_omni_request(req);
  EXPECT_EQ(r.ipfamily, np::kNfInet6);
  EXPECT_EQ(r.netperf_port, 59086u);
  EXPECT_EQ(r.netperf_ip[0], 0u);
  EXPECT_EQ(r.netperf_ip[3], 0x01000000u);  // ::1 from a little-endian netperf
  uint8_t ip[16];
  np::words_to_ip(np::kNfInet6, r.netperf_ip, ip);
  uint8_t loopback[16] = {};
  loopback[15] = 1;
  EXPECT_EQ(std::memcmp(ip, loopback, 16), 0);
  EXPECT_EQ(np::ip_to_words(np::kNfInet6, loopback), r.netperf_ip);
  expect_same(req, np::encode_omni_request(r));
  const np::OmniResults res = np::decode_omni_results(hex_frame(kUdpRrV6Results));
  EXPECT_EQ(res.trans_received, 14942u);
}

TEST(NetperfWire, Ipv4AddressWords) {
  const uint8_t addr[4] = {127, 0, 0, 1};
  auto w = np::ip_to_words(np::kNfInet, addr);
  EXPECT_EQ(w[0], 0x7f000001u);
  EXPECT_EQ(w[1], 0u);
  uint8_t back[4];
  np::words_to_ip(np::kNfInet, w, back);
  EXPECT_EQ(std::memcmp(addr, back, 4), 0);
}

TEST(NetperfWire, SyntheticResultsRoundTrip) {
  np::OmniResults r;
  r.bytes_received = 0x123456789abcdefull;
  r.bytes_sent = (uint64_t{1} << 32) + 7;
  r.recv_calls = 42;
  r.send_calls = 43;
  r.recv_buf_size = -1;
  r.failed_sends = 3;
  r.trans_received = 99;
  r.elapsed_time = 10.25f;
  r.num_cpus = 8;
  r.peak_cpu_id = -1;
  r.transport_retrans = 5;
  r.cong_control = "cubic";
  r.ifname = "lo";
  const np::Frame f = np::encode_omni_results(r, 0);
  // Floats are big-endian IEEE singles: 10.25 = 0x41240000, word 10.
  EXPECT_EQ(f[8 + 40], 0x41);
  EXPECT_EQ(f[8 + 41], 0x24);
  const np::OmniResults back = np::decode_omni_results(f);
  EXPECT_EQ(back.bytes_received, r.bytes_received);
  EXPECT_EQ(back.bytes_sent, r.bytes_sent);
  EXPECT_EQ(back.recv_calls, 42u);
  EXPECT_EQ(back.send_calls, 43u);
  EXPECT_EQ(back.recv_buf_size, -1);
  EXPECT_EQ(back.failed_sends, 3u);
  EXPECT_EQ(back.trans_received, 99u);
  EXPECT_EQ(back.elapsed_time, 10.25f);
  EXPECT_EQ(back.num_cpus, 8u);
  EXPECT_EQ(back.peak_cpu_id, -1);
  EXPECT_EQ(back.transport_retrans, 5);
  EXPECT_EQ(back.cong_control, "cubic");
  EXPECT_EQ(back.ifname, "lo");
}

TEST(NetperfWire, CharArraysAreBoundedAndTerminated) {
  np::OmniRequest r;
  r.cong_control = std::string(40, 'x');  // 16 bytes on the wire, NUL included
  r.fill_file = "/tmp/fill";
  const np::Frame f = np::encode_omni_request(r);
  const np::OmniRequest back = np::decode_omni_request(f);
  EXPECT_EQ(back.cong_control, std::string(15, 'x'));
  EXPECT_EQ(back.fill_file, "/tmp/fill");
  // A peer that fills an array to the brim without a NUL: the read stops
  // at the array's end.
  np::Frame g = f;
  std::memset(g.data() + 8 + 38 * 4, 'y', 16 + 32);
  const np::OmniRequest full = np::decode_omni_request(g);
  EXPECT_EQ(full.cong_control, std::string(16, 'y'));
  EXPECT_EQ(full.fill_file, std::string(32, 'y'));
}

TEST(NetperfWire, FramesMustBeWhole) {
  std::vector<uint8_t> bytes(np::kMessageBytes, 0);
  EXPECT_NO_THROW(np::to_frame(bytes));
  EXPECT_THROW(np::to_frame(std::span(bytes).first(655)), np::WireError);
  EXPECT_THROW(np::to_frame(std::span(bytes).first(8)), np::WireError);
  EXPECT_THROW(np::to_frame({}), np::WireError);
  bytes.push_back(0);
  EXPECT_THROW(np::to_frame(bytes), np::WireError);
}

TEST(NetperfWire, UnknownRequestsGet998LikeNetserver) {
  EXPECT_EQ(np::classify_request(4242), np::RequestKind::kUnknown);
  EXPECT_EQ(np::classify_request(0), np::RequestKind::kUnknown);
  EXPECT_EQ(np::classify_request(-1), np::RequestKind::kUnknown);
  EXPECT_EQ(np::classify_request(16), np::RequestKind::kUnknown);  // classic UDP_STREAM
  // netserver 2.7.1's reply to a request of type 4242, as recorded.
  const char* const recorded[] = {"00000000000003e6"};
  expect_same(hex_frame(recorded), np::encode_unknown_request_reply());
  EXPECT_EQ(np::decode_header(np::encode_unknown_request_reply()).second, 998);
}

TEST(NetperfWire, SmallMessages) {
  EXPECT_EQ(np::classify_request(np::kPassphrase), np::RequestKind::kPassphraseNoReply);
  EXPECT_EQ(np::classify_request(np::kDebugOn), np::RequestKind::kDebug);
  EXPECT_EQ(np::classify_request(np::kCpuCalibrate), np::RequestKind::kCalibrateCpu);
  EXPECT_EQ(np::classify_request(np::kDoSysinfo), np::RequestKind::kSysinfo);
  EXPECT_EQ(np::classify_request(np::kDoTcpStream), np::RequestKind::kClassicTcpStream);
  EXPECT_EQ(np::classify_request(np::kDoTcpRr), np::RequestKind::kClassicTcpRr);

  const np::Frame pp = np::encode_passphrase("secret");
  EXPECT_EQ(np::decode_header(pp).type, np::kPassphrase);
  EXPECT_EQ(std::memcmp(pp.data() + 8, "secret", 7), 0);  // raw, NUL-terminated
  EXPECT_EQ(np::decode_passphrase(pp), "secret");

  // netserver 2.7.1's CPU_CALIBRATE reply on a 2-CPU host, as recorded.
  const char* const calibrate[] = {"000000050000000042c8000000000002"};
  expect_same(hex_frame(calibrate), np::encode_cpu_calibrate_reply(100.0f, 2));

  const np::Frame sys = np::encode_sysinfo_reply(",a,b");
  EXPECT_EQ(np::decode_header(sys).type, np::kSysinfoResponse);
  EXPECT_EQ(std::memcmp(sys.data() + 8, ",a,b", 5), 0);
}

TEST(NetperfWire, ClassicTcpStreamRoundTrip) {
  np::ClassicTcpStreamRequest q;
  q.send_buf_size = 65536;
  q.recv_buf_size = 131072;
  q.receive_size = 8192;
  q.no_delay = 1;
  q.test_length = 10;
  q.port = 5001;
  q.ipfamily = 4;
  const np::Frame qf = np::encode_classic_tcp_stream_request(q);
  EXPECT_EQ(np::decode_header(qf).type, np::kDoTcpStream);
  // Every word is big-endian: port in word 13, family in word 14.
  EXPECT_EQ(qf[8 + 13 * 4 + 2], 0x13);
  EXPECT_EQ(qf[8 + 13 * 4 + 3], 0x89);
  auto q2 = np::decode_classic_tcp_stream_request(qf);
  EXPECT_EQ(q2.receive_size, 8192);
  EXPECT_EQ(q2.no_delay, 1);
  EXPECT_EQ(q2.test_length, 10);
  EXPECT_EQ(q2.port, 5001);
  EXPECT_EQ(q2.ipfamily, 4);

  np::ClassicTcpStreamResponse s;
  s.recv_buf_size = 131072;
  s.receive_size = 8192;
  s.data_port = 40000;
  s.send_buf_size = 16384;
  const np::Frame sf = np::encode_classic_tcp_stream_response(s);
  EXPECT_EQ(sf[8 + 6 * 4 + 2], 40000 >> 8);  // the port in word 6
  auto s2 = np::decode_classic_tcp_stream_response(sf);
  EXPECT_EQ(s2.data_port, 40000);
  EXPECT_EQ(s2.recv_buf_size, 131072);

  np::ClassicTcpStreamResults r;
  r.bytes_received = 5e9;
  r.recv_calls = 77;
  r.elapsed_time = 10.0f;
  r.num_cpus = 4;
  const np::Frame rf = np::encode_classic_tcp_stream_results(r);
  auto r2 = np::decode_classic_tcp_stream_results(rf);
  EXPECT_EQ(r2.bytes_received, 5e9);
  EXPECT_EQ(r2.recv_calls, 77u);
  EXPECT_EQ(r2.elapsed_time, 10.0f);
  EXPECT_EQ(r2.num_cpus, 4);
}

TEST(NetperfWire, ClassicExchangesFromNetserver) {
  // A netperf 2.7.1 built with --enable-omni=no against netserver 2.7.1.
  const np::Frame sq = hex_frame(kClassicStreamRequest);
  EXPECT_EQ(np::classify_request(np::decode_header(sq).type), np::RequestKind::kClassicTcpStream);
  const auto q = np::decode_classic_tcp_stream_request(sq);
  EXPECT_EQ(q.send_buf_size, -1);
  EXPECT_EQ(q.recv_buf_size, -1);
  EXPECT_EQ(q.receive_size, 0);  // 0: the server's default
  EXPECT_EQ(q.recv_alignment, 8);
  EXPECT_EQ(q.test_length, 1);
  EXPECT_EQ(q.port, 0);
  EXPECT_EQ(q.ipfamily, 4);  // NF_INET, not AF_INET
  np::Frame again = np::encode_classic_tcp_stream_request(q);
  expect_same(sq, again);

  const np::Frame ss = hex_frame(kClassicStreamSetup);
  const auto s = np::decode_classic_tcp_stream_response(ss);
  EXPECT_EQ(s.recv_buf_size, 131072);
  EXPECT_EQ(s.receive_size, 131072);
  EXPECT_EQ(s.send_buf_size, 16384);
  EXPECT_EQ(s.data_port, 40499);  // word 6
  expect_same(ss, np::encode_classic_tcp_stream_response(s));

  // The byte count is a big-endian double, all 8 bytes.
  const np::Frame sr = hex_frame(kClassicStreamResults);
  EXPECT_EQ(np::decode_header(sr).type, 0x0b000000);  // 11, swapped twice
  const auto r = np::decode_classic_tcp_stream_results(sr);
  EXPECT_EQ(r.bytes_received, 1693843456.0);
  EXPECT_EQ(r.recv_calls, 22480u);
  EXPECT_NEAR(r.elapsed_time, 1.00012, 1e-5);
  expect_same(sr, np::encode_classic_tcp_stream_results(r), 4);

  const np::Frame rq = hex_frame(kClassicRrRequest);
  const auto rrq = np::decode_classic_tcp_rr_request(rq);
  EXPECT_EQ(rrq.request_size, 1);
  EXPECT_EQ(rrq.response_size, 1);
  EXPECT_EQ(rrq.test_length, 1);
  EXPECT_EQ(rrq.ipfamily, 4);
  expect_same(rq, np::encode_classic_tcp_rr_request(rrq));

  const np::Frame rs = hex_frame(kClassicRrSetup);
  const auto rrs = np::decode_classic_tcp_rr_response(rs);
  EXPECT_EQ(rrs.data_port, 46453);  // word 5
  EXPECT_EQ(rrs.test_length, 1);
  expect_same(rs, np::encode_classic_tcp_rr_response(rrs));

  const np::Frame rr = hex_frame(kClassicRrResults);
  const auto rrr = np::decode_classic_tcp_rr_results(rr);
  EXPECT_EQ(rrr.trans_received, 18374u);
  EXPECT_EQ(rrr.bytes_received, 2 * 18374u);  // transactions x (request + response)
  EXPECT_NEAR(rrr.elapsed_time, 1.00023, 1e-5);
  expect_same(rr, np::encode_classic_tcp_rr_results(rrr), 4);
}

TEST(NetperfWire, TcpCcExchangeUsesTcpRrLayoutsUnderItsOwnTypes) {
  const np::Frame req = hex_frame(kTcpCcRequest);
  EXPECT_EQ(np::decode_header(req).type, np::kDoTcpCc);
  EXPECT_EQ(np::classify_request(np::decode_header(req).type), np::RequestKind::kClassicTcpCc);
  const auto r = np::decode_classic_tcp_rr_request(req);
  EXPECT_EQ(r.recv_buf_size, -1);
  EXPECT_EQ(r.send_buf_size, -1);
  EXPECT_EQ(r.request_size, 32);
  EXPECT_EQ(r.response_size, 64);
  EXPECT_EQ(r.no_delay, 1);
  EXPECT_EQ(r.measure_cpu, 0);
  EXPECT_EQ(r.test_length, 1);
  EXPECT_EQ(r.port, 0);
  EXPECT_EQ(r.ipfamily, 4);
  expect_same(req, np::encode_classic_tcp_rr_request(r, np::kDoTcpCc));

  const np::Frame setup = hex_frame(kTcpCcSetup);
  EXPECT_EQ(np::decode_header(setup).type, np::kTcpCcResponse);
  const auto s = np::decode_classic_tcp_rr_response(setup);
  EXPECT_EQ(s.recv_buf_size, 131072);
  EXPECT_EQ(s.send_buf_size, 16384);
  EXPECT_EQ(s.no_delay, 1);
  EXPECT_EQ(s.data_port, 36787);
  expect_same(setup, np::encode_classic_tcp_rr_response(s, 0, np::kTcpCcResponse));

  const np::Frame results = hex_frame(kTcpCcResults);
  const auto res = np::decode_classic_tcp_rr_results(results);
  EXPECT_EQ(res.trans_received, 4420u);
  EXPECT_EQ(res.bytes_received, 4420u * (32 + 64));  // counted, never sent
  EXPECT_NEAR(res.elapsed_time, 1.00009, 1e-5);
  expect_same(results, np::encode_classic_tcp_rr_results(res, np::kTcpCcResults), 4);
  EXPECT_EQ(np::encode_classic_tcp_rr_results(res, np::kTcpCcResults)[3], 0x2e);  // type 302
}

TEST(NetperfWire, CpuMethodIsNetperfsEnumOnTheWire) {
  EXPECT_EQ(np::cpu_method_letter(np::kCpuMethodProcStat), 'S');
  EXPECT_EQ(np::cpu_method_letter(np::kCpuMethodUnknown), 'U');
  EXPECT_EQ(np::cpu_method_letter(4), 'L');   // LOOPER
  EXPECT_EQ(np::cpu_method_letter(12), 'O');  // OSX
  EXPECT_EQ(np::cpu_method_letter(13), '?');
  EXPECT_EQ(np::cpu_method_letter(-1), '?');
  EXPECT_EQ(np::cpu_method_letter('S'), '?');  // a letter is not a method
}

TEST(NetperfWire, ClassicDoubleWithSwappedHalvesStillDecodes) {
  const double v = 123456789012.0;
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  np::Frame swapped{};
  for (int i = 0; i < 4; ++i) {
    swapped[8 + static_cast<size_t>(i)] = static_cast<uint8_t>(bits >> (24 - 8 * i));
    swapped[12 + static_cast<size_t>(i)] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  }
  EXPECT_EQ(np::decode_classic_tcp_stream_results(swapped).bytes_received, v);
  np::ClassicTcpStreamResults r;
  r.bytes_received = v;
  const np::Frame enc = np::encode_classic_tcp_stream_results(r);
  EXPECT_EQ(enc[8], static_cast<uint8_t>(bits >> 56));  // big-endian
  EXPECT_EQ(np::decode_classic_tcp_stream_results(enc).bytes_received, v);
}

TEST(NetperfWire, ClassicTcpRrRoundTrip) {
  np::ClassicTcpRrRequest q;
  q.request_size = 100;
  q.response_size = 200;
  q.test_length = -1000;
  q.port = 0;
  q.ipfamily = 6;
  const np::Frame qf = np::encode_classic_tcp_rr_request(q);
  EXPECT_EQ(np::decode_header(qf).type, np::kDoTcpRr);
  EXPECT_EQ(qf[8 + 6 * 4 + 3], 100);  // request size in word 6
  EXPECT_EQ(qf[8 + 7 * 4 + 3], 200);  // response size in word 7
  auto q2 = np::decode_classic_tcp_rr_request(qf);
  EXPECT_EQ(q2.request_size, 100);
  EXPECT_EQ(q2.response_size, 200);
  EXPECT_EQ(q2.test_length, -1000);
  EXPECT_EQ(q2.ipfamily, 6);

  np::ClassicTcpRrResponse s;
  s.data_port = 12345;
  const np::Frame sf = np::encode_classic_tcp_rr_response(s, 0);
  EXPECT_EQ(np::decode_header(sf).type, np::kTcpRrResponse);
  EXPECT_EQ(sf[8 + 5 * 4 + 2], 12345 >> 8);  // the port in word 5
  EXPECT_EQ(np::decode_classic_tcp_rr_response(sf).data_port, 12345);

  np::ClassicTcpRrResults r;
  r.trans_received = 5000;
  r.elapsed_time = 1.5f;
  const np::Frame rf = np::encode_classic_tcp_rr_results(r);
  EXPECT_EQ(rf[8 + 2 * 4 + 2], 5000 >> 8);  // transactions in word 2
  auto r2 = np::decode_classic_tcp_rr_results(rf);
  EXPECT_EQ(r2.trans_received, 5000u);
  EXPECT_EQ(r2.elapsed_time, 1.5f);
}

TEST(NetperfWire, ErrorsTravelInTheHeader) {
  const np::Frame f = np::encode_omni_response({}, EBUSY);
  EXPECT_EQ(np::decode_header(f).type, np::kOmniResponse);
  EXPECT_EQ(np::decode_header(f).second, EBUSY);
  EXPECT_EQ(np::decode_header(np::encode_status(np::kDebugOk, 0)).type, np::kDebugOk);
}

// Each message's field list is walked both ways (proto/netperf_wire.cc):
// a frame whose every word and character of the layout is distinct, decoded
// and encoded again, comes back byte for byte. A field left out of a list,
// or listed in the wrong place, loses or moves its word. `words` and `tail`
// are each layout's size in netperf 2.7.1's structs (netlib.h, nettest_omni.c,
// nettest_bsd.h): the 32-bit words converted with htonl, then the raw tail of
// character arrays.
namespace {

struct Layout {
  const char* name;
  size_t words;
  std::vector<size_t> tail;                          // the character arrays' sizes, in order
  std::function<np::Frame(const np::Frame&)> again;  // decode, then encode
};

np::Frame distinct_frame(size_t words, const std::vector<size_t>& tail) {
  np::Frame f{};
  for (size_t i = 0; i < words; ++i) {
    // Finite floats near 1.0 (a float field keeps its bits), never a
    // whole-number double (a classic double is taken as sent).
    const uint32_t w = 0x3F800000u + static_cast<uint32_t>(i) * 0x101u + 1;
    for (int b = 0; b < 4; ++b)
      f[8 + 4 * i + static_cast<size_t>(b)] = static_cast<uint8_t>(w >> (24 - 8 * b));
  }
  // The tail's arrays: each full of letters but for its closing NUL.
  size_t at = 8 + 4 * words;
  char letter = 'a';
  for (size_t size : tail) {
    for (size_t i = 0; i + 1 < size; ++i, letter = letter == 'z' ? 'a' : letter + 1)
      f[at + i] = static_cast<uint8_t>(letter);
    at += size;
  }
  return f;
}

}  // namespace

TEST(NetperfWire, EveryFieldOfEveryMessageSurvivesARoundTrip) {
  auto type_of = [](const np::Frame& f) {
    return static_cast<int32_t>((uint32_t{f[0]} << 24) | (uint32_t{f[1]} << 16) |
                                (uint32_t{f[2]} << 8) | f[3]);
  };
  const std::vector<Layout> layouts = {
      {"omni request",
       38,
       {16, 32},
       [](const np::Frame& f) { return np::encode_omni_request(np::decode_omni_request(f), 0); }},
      {"omni response",
       18,
       {33, 80, 16},
       [](const np::Frame& f) { return np::encode_omni_response(np::decode_omni_response(f), 0); }},
      {"omni results",
       27,
       {16, 32, 32, 32, 32, 16, 16},
       [](const np::Frame& f) { return np::encode_omni_results(np::decode_omni_results(f), 0); }},
      {"TCP_STREAM request",
       16,
       {},
       [](const np::Frame& f) {
         return np::encode_classic_tcp_stream_request(np::decode_classic_tcp_stream_request(f));
       }},
      {"TCP_STREAM response",
       10,
       {},
       [](const np::Frame& f) {
         return np::encode_classic_tcp_stream_response(np::decode_classic_tcp_stream_response(f),
                                                       0);
       }},
      {"TCP_STREAM results",
       10,
       {},
       [](const np::Frame& f) {
         return np::encode_classic_tcp_stream_results(np::decode_classic_tcp_stream_results(f));
       }},
      {"TCP_RR request",
       16,
       {},
       [&](const np::Frame& f) {
         return np::encode_classic_tcp_rr_request(np::decode_classic_tcp_rr_request(f), type_of(f),
                                                  0);
       }},
      {"TCP_RR response",
       9,
       {},
       [&](const np::Frame& f) {
         return np::encode_classic_tcp_rr_response(np::decode_classic_tcp_rr_response(f), 0,
                                                   type_of(f));
       }},
      {"TCP_RR results",
       8,
       {},
       [&](const np::Frame& f) {
         return np::encode_classic_tcp_rr_results(np::decode_classic_tcp_rr_results(f), type_of(f));
       }},
  };
  for (const Layout& l : layouts) {
    SCOPED_TRACE(l.name);
    np::Frame in = distinct_frame(l.words, l.tail);
    const np::Frame out = l.again(in);
    // The header is each encoder's own (type, and the errno or CPU word).
    std::memcpy(in.data(), out.data(), 8);
    for (size_t i = 8; i < in.size(); ++i)
      if (in[i] != out[i]) {
        ADD_FAILURE() << "byte " << i << " (word " << (i - 8) / 4 << " of the data) is "
                      << int(out[i]) << " after the round trip, sent as " << int(in[i]);
        break;
      }
  }
}
