// The descriptor half of the engine: which flow each side of a named test
// runs, built from the spec and the data sockets the session layer opened.
// Adding a test means adding a row to spec::all_tests() and a case here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/flow.h"
#include "engine/open_loop.h"
#include "engine/stream_flows.h"
#include "net/fd.h"
#include "net/socket.h"
#include "spec/test_spec.h"

namespace flowperf::engine {

// Share of a whole-test count (bytes or transactions) for stream i of n.
uint64_t quota_for(uint64_t count, uint32_t i, uint32_t n);
// Flow i's share of an open-loop test (TestSpec::rate_tps > 0).
OpenLoopPlan open_loop_plan(const spec::TestSpec& s, uint32_t i);

// The socket options of one end's data sockets: every data socket of every
// test gets them through net::apply_socket_options(), on both ends and over
// every wire protocol. TCP's own options are left out for UDP tests.
net::SocketOptions socket_options(const spec::TestSpec& spec, spec::End end);

// Up to `limit` bytes of a fill file (TestSpec::fill_file, netperf -F), for
// the client's send buffers. Throws a usage Error naming -F when the file
// cannot be read or is empty.
std::string read_fill_file(const std::string& path, size_t limit);

// One bulk-transfer stream over the spec's protocol, sizes and modes,
// sending (`sends`) or receiving: what every stream test is made of.
// client_flows() and server_flows() build theirs with it; a protocol whose
// streams go both ways in one test (iperf3 --bidir), or whose UDP goes
// from server to client (iperf3 -R -u), builds its flows with it one by
// one. `quota`: this stream's bytes (0: no limit); `rate_bps`: its own
// pacing (UDP; 0: none); `fill`: the bytes its sends repeat (empty: ours).
// What the peer's protocol expects beyond flowperf's own is spec.wire.
std::unique_ptr<Flow> stream_flow(const spec::TestSpec& spec, net::Fd fd, bool sends,
                                  uint64_t quota, uint64_t rate_bps, std::string_view fill);

// Client flows. sockets: one per stream (TCP connected, or UDP connected);
// empty for TCP_CRR, which connects to crr_server itself, each connection
// from crr_source when it is set (netperf -L; port 0: the kernel's choice
// each time). Reads spec.fill_file (throws a runtime Error when it cannot).
std::vector<std::unique_ptr<Flow>> client_flows(const spec::TestSpec& spec,
                                                std::vector<net::Fd> sockets,
                                                const net::Address& crr_server,
                                                const net::Address& crr_source = {});

// Server flows. sockets: one per stream; for TCP_CRR, empty, and
// crr_listeners holds one listening socket per worker thread.
std::vector<std::unique_ptr<Flow>> server_flows(const spec::TestSpec& spec,
                                                std::vector<net::Fd> sockets,
                                                const std::vector<int>& crr_listeners);

}  // namespace flowperf::engine
