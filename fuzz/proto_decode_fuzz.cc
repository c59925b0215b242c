// libFuzzer target: proto::decode, the JSON body of every control message a
// server reads from any client (and a client from any server). Whatever the
// bytes, decode must return a message or throw ProtocolError; anything else
// (another exception, a sanitizer report) is a bug. A message that decodes
// must also survive encode -> decode -> encode unchanged, and what the
// receiver does next with it (the server validates a spec, the client sums
// the server's results) must not fail either.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proto/messages.h"
#include "spec/test_spec.h"

using flowperf::proto::Message;
using flowperf::proto::ProtocolError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  Message m;
  try {
    m = flowperf::proto::decode(body);
  } catch (const ProtocolError&) {
    return 0;
  }
  (void)flowperf::proto::message_name(m);
  if (auto* setup = std::get_if<flowperf::proto::Setup>(&m)) {
    (void)flowperf::spec::validate(setup->spec);
    (void)flowperf::spec::default_threads(setup->spec);
  }
  if (auto* results = std::get_if<flowperf::proto::Results>(&m)) {
    (void)results->side.total();
    (void)results->side.first_error();
    // The client shows the server's latency percentiles.
    auto use = [](const flowperf::measure::Histogram& h) {
      (void)h.snapshot();
      (void)h.mean();
      for (double p : {0.0, 50.0, 99.0, 99.9, 100.0}) (void)h.percentile(p);
    };
    use(results->side.latency);
    for (const auto& f : results->side.flows)
      if (f.latency) use(*f.latency);
  }
  const std::string once = flowperf::proto::encode(m);
  Message again;
  try {
    again = flowperf::proto::decode(once);
  } catch (const ProtocolError& e) {
    std::fprintf(stderr, "decode refused what encode wrote: %s\n%s\n", e.what(), once.c_str());
    std::abort();
  }
  const std::string twice = flowperf::proto::encode(again);
  if (twice != once) {
    std::fprintf(stderr, "encode/decode is not stable:\n%s\n%s\n", once.c_str(), twice.c_str());
    std::abort();
  }
  return 0;
}
