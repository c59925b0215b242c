// libFuzzer target: qperf's control messages as flowperf reads them from
// any qperf peer (proto/qperf_wire.h). Whatever the bytes, a decoder
// returns a value or throws ProtocolError; a value that decodes survives
// encode -> decode unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "proto/messages.h"
#include "proto/qperf_wire.h"

namespace qw = flowperf::proto::qperf;
using flowperf::proto::ProtocolError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)qw::match_head(bytes);
  try {
    const qw::Request r = qw::decode_request(bytes);
    if (!(qw::decode_request(qw::encode_request(r)) == r)) std::abort();
  } catch (const ProtocolError&) {
  }
  try {
    const uint16_t port = qw::decode_port(bytes);
    if (port == 0 || qw::decode_port(qw::encode_port(port)) != port) std::abort();
  } catch (const ProtocolError&) {
  }
  try {
    const qw::Stat s = qw::decode_stat(bytes);
    if (!(qw::decode_stat(qw::encode_stat(s)) == s)) std::abort();
  } catch (const ProtocolError&) {
  }
  try {
    const qw::Conf c = qw::decode_conf(bytes);
    if (!(qw::decode_conf(qw::encode_conf(c)) == c)) std::abort();
  } catch (const ProtocolError&) {
  }
  return 0;
}
