// The descriptor half of the engine: which flow each side of a named test
// runs, built from the spec and the data sockets the session layer opened.
// Adding a test means adding a row to spec::all_tests() and a case here.
#pragma once

#include <memory>
#include <vector>

#include "engine/flow.h"
#include "net/fd.h"
#include "net/socket.h"
#include "spec/test_spec.h"

namespace flowperf::engine {

// Share of a whole-test count (bytes or transactions) for stream i of n.
uint64_t quota_for(uint64_t count, uint32_t i, uint32_t n);

// Client flows. sockets: one per stream (TCP connected, or UDP connected);
// empty for TCP_CRR, which connects to crr_server itself.
std::vector<std::unique_ptr<Flow>> client_flows(const spec::TestSpec& spec,
                                                std::vector<net::Fd> sockets,
                                                const net::Address& crr_server);

// Server flows. sockets: one per stream; for TCP_CRR, empty, and
// crr_listeners holds one listening socket per worker thread.
std::vector<std::unique_ptr<Flow>> server_flows(const spec::TestSpec& spec,
                                                std::vector<net::Fd> sockets,
                                                const std::vector<int>& crr_listeners);

}  // namespace flowperf::engine
