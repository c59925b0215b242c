// libFuzzer target: the decoders of netperf's fixed 656-byte control
// messages (proto/netperf_wire.h), which flowperf's server runs on whatever
// a client sends once the first bytes are not flowperf's. The input, cut or
// zero-padded to 656 bytes, goes through every decoder; to_frame() gets the
// input as it is. Decoders must not crash, and what they decode must encode
// and decode to the same frame again (after one round of normalisation).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "proto/netperf_wire.h"

namespace np = flowperf::proto::netperf;

namespace {

// encode(decode(f)) is a fixed point after the first round.
template <typename Decode, typename Encode>
void stable(const np::Frame& f, Decode decode, Encode encode, const char* what) {
  const np::Frame once = encode(decode(f));
  const np::Frame twice = encode(decode(once));
  if (once != twice) {
    for (size_t i = 0; i < once.size(); ++i)
      if (once[i] != twice[i]) {
        std::fprintf(stderr, "%s: byte %zu is %u, then %u\n", what, i, once[i], twice[i]);
        break;
      }
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)np::to_frame(std::span<const uint8_t>(data, size));
    if (size != np::kMessageBytes) std::abort();  // must refuse any other size
  } catch (const np::WireError&) {
    if (size == np::kMessageBytes) std::abort();
  }
  np::Frame f{};
  std::memcpy(f.data(), data, size < f.size() ? size : f.size());

  const np::Header h = np::decode_header(f);
  (void)np::classify_request(h.type);
  stable(
      f, np::decode_omni_request,
      [](const np::OmniRequest& r) { return np::encode_omni_request(r); }, "omni request");
  stable(
      f, np::decode_omni_response,
      [](const np::OmniResponse& r) { return np::encode_omni_response(r); }, "omni response");
  stable(
      f, np::decode_omni_results,
      [](const np::OmniResults& r) { return np::encode_omni_results(r); }, "omni results");
  stable(f, np::decode_classic_tcp_stream_request, np::encode_classic_tcp_stream_request,
         "classic TCP_STREAM request");
  stable(
      f, np::decode_classic_tcp_stream_response,
      [](const np::ClassicTcpStreamResponse& r) {
        return np::encode_classic_tcp_stream_response(r);
      },
      "classic TCP_STREAM response");
  stable(f, np::decode_classic_tcp_stream_results, np::encode_classic_tcp_stream_results,
         "classic TCP_STREAM results");
  stable(
      f, np::decode_classic_tcp_rr_request,
      [](const np::ClassicTcpRrRequest& r) { return np::encode_classic_tcp_rr_request(r); },
      "classic TCP_RR request");
  stable(
      f, np::decode_classic_tcp_rr_response,
      [](const np::ClassicTcpRrResponse& r) { return np::encode_classic_tcp_rr_response(r); },
      "classic TCP_RR response");
  stable(
      f, np::decode_classic_tcp_rr_results,
      [](const np::ClassicTcpRrResults& r) { return np::encode_classic_tcp_rr_results(r); },
      "classic TCP_RR results");
  // TCP_CC: TCP_RR's layouts under their own types.
  stable(
      f, np::decode_classic_tcp_rr_request,
      [](const np::ClassicTcpRrRequest& r) {
        return np::encode_classic_tcp_rr_request(r, np::kDoTcpCc, 3);
      },
      "classic TCP_CC request");
  (void)np::cpu_method_letter(static_cast<int32_t>(h.second));
  (void)np::decode_passphrase(f);

  // Addresses: each family over the first 16 bytes as words.
  std::array<uint32_t, 4> words{};
  std::memcpy(words.data(), f.data() + 8, sizeof words);
  uint8_t addr[16];
  for (uint32_t family : {np::kNfInet, np::kNfInet6}) {
    np::words_to_ip(family, words, addr);
    auto back = np::ip_to_words(family, addr);
    uint8_t again[16];
    np::words_to_ip(family, back, again);
    if (std::memcmp(addr, again, family == np::kNfInet ? 4 : 16) != 0) std::abort();
  }
  return 0;
}
