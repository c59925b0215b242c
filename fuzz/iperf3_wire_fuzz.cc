// libFuzzer target: iperf3's parameter and results JSON as flowperf reads
// them from any iperf3 peer (proto/iperf3_wire.h). Whatever the bytes, a
// decoder returns a value or throws ProtocolError; a value that decodes
// survives encode -> decode unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proto/iperf3_wire.h"
#include "proto/messages.h"

namespace ip = flowperf::proto::iperf3;
using flowperf::proto::ProtocolError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    const ip::Params p = ip::decode_params(body);
    if (!(ip::decode_params(ip::encode_params(p)) == p)) std::abort();
  } catch (const ProtocolError&) {
  }
  try {
    const ip::Results r = ip::decode_results(body);
    const ip::Results again = ip::decode_results(ip::encode_results(r));
    if (again.streams.size() != r.streams.size()) std::abort();
  } catch (const ProtocolError&) {
  }
  return 0;
}
