// TestSpec <-> JSON, used by the control protocol and by --json output.
//
// Every field is named once, in visit_fields() (and visit_side() for the two
// SideOptions): the encoder and the decoder both walk that one list, so a
// field cannot be sent and forgotten on receipt, or the other way round.
// A key absent from a decoded object keeps its default (an older peer).
#pragma once

#include <nlohmann/json.hpp>

#include "spec/test_spec.h"

namespace flowperf::spec {

nlohmann::json to_json(const TestSpec& spec);
// Throws std::invalid_argument naming the bad field.
TestSpec spec_from_json(const nlohmann::json& j);

// Calls field(key, member) for every field of a SideOptions.
template <typename Side, typename F>  // Side: SideOptions or const SideOptions
void visit_side(Side& o, F&& field) {
  field("cc", o.cc);
  field("tos", o.tos);
  field("priority", o.priority);
  field("cpu", o.cpu);
  field("data_port", o.data_port);
  field("data_host", o.data_host);
}

// Calls field(key, member) for every field of a WireOptions.
template <typename Wire, typename F>  // Wire: WireOptions or const WireOptions
void visit_wire(Wire& w, F&& field) {
  field("match_sequence", w.match_sequence);
  field("end_on_empty", w.end_on_empty);
  field("udp_header", w.udp_header);
  field("udp_burst", w.udp_burst);
  field("touch_received", w.touch_received);
}

// Calls field(key, member) for every field of a TestSpec, in JSON order.
// send_size and recv_size pass a third argument: the value JSON shows (the
// size in effect, so a reader never has to know the defaults).
template <typename Spec, typename F>  // Spec: TestSpec or const TestSpec
void visit_fields(Spec& s, F&& field) {
  field("test", s.test);
  field("ip_family", s.ip_family);
  field("send_size", s.send_size, &TestSpec::effective_send_size);
  field("recv_size", s.recv_size, &TestSpec::effective_recv_size);
  field("request_size", s.request_size);
  field("response_size", s.response_size);
  field("local_sndbuf", s.local_sndbuf);
  field("local_rcvbuf", s.local_rcvbuf);
  field("remote_sndbuf", s.remote_sndbuf);
  field("remote_rcvbuf", s.remote_rcvbuf);
  field("nodelay", s.nodelay);
  field("rate_bps", s.rate_bps);
  field("duration_s", s.duration_s);
  field("count", s.count);
  field("streams", s.streams);
  field("threads", s.threads);
  field("interval_s", s.interval_s);
  field("udp_rr_min_timeout_us", s.udp_rr_min_timeout_us);
  field("local", s.local);
  field("remote", s.remote);
  field("keepalive", s.keepalive);
  field("cork", s.cork);
  field("burst", s.burst);
  field("rate_tps", s.rate_tps);
  field("arrival", s.arrival);
  field("seed", s.seed);
  field("max_outstanding", s.max_outstanding);
  field("probe_rate_tps", s.probe_rate_tps);
  field("probe_baseline_s", s.probe_baseline_s);
  field("probe_test", s.probe_test);
  field("bidir", s.bidir);
  field("fill_file", s.fill_file);
  field("batch", s.batch);
  field("gso", s.gso);
  field("gro", s.gro);
  field("busy_poll", s.busy_poll);
  field("rst_close", s.rst_close);
  field("call_latency", s.call_latency);
  field("sendfile", s.sendfile);
  field("wire", s.wire);
}

}  // namespace flowperf::spec
