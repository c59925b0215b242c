// Descriptor budget: a test with thousands of streams needs a socket per
// stream on each end. Before any data socket is opened, each end checks that
// its open-file limit (raised to the hard limit at start) leaves room, and
// otherwise says how many descriptors the test needs and what the limit is,
// instead of failing part-way with EMFILE.
#pragma once

#include <cstdint>
#include <string>

#include "spec/test_spec.h"

namespace flowperf::session {

struct DescriptorBudget {
  uint64_t needed = 0;  // for the ends of the test that run in this process
  uint64_t limit = 0;   // RLIMIT_NOFILE (soft) now in force
  uint64_t in_use = 0;  // descriptors this process has open now
  bool fits() const { return in_use + needed <= limit; }
};

// ends: 1, or 2 when the server runs inside this process (the embedded
// loopback default). threads: worker threads per end.
DescriptorBudget descriptor_budget(const spec::TestSpec& spec, unsigned ends, unsigned threads);

// The message for a budget that does not fit, e.g. "-P 10000 needs about
// 10040 descriptors; the open-file limit is 4096 (ulimit -n)". where: "" for
// the client, " on the server" for the server.
std::string descriptor_problem(const spec::TestSpec& spec, const DescriptorBudget& b, unsigned ends,
                               const std::string& where);

// Throws a usage Error (exit 2) with that message when the budget does not fit.
void check_descriptors(const spec::TestSpec& spec, unsigned ends, unsigned threads);

// Descriptors open in this process (entries of /proc/self/fd), 0 if unknown.
uint64_t open_descriptors();

}  // namespace flowperf::session
