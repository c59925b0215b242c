// Hand-made results for the renderers' tests: a test of `kind` over 2 s with
// both sides present and no flows yet, and a flow of 2 s.
#pragma once

#include "results/test_result.h"

namespace flowperf::testing {

inline results::TestResult base_result(spec::TestKind kind) {
  results::TestResult r;
  r.spec.test = kind;
  r.spec.duration_s = 2;
  r.local = {"127.0.0.1", 40000};
  r.remote = {"127.0.0.1", 12865};
  r.server_software = "flowperf 0.1.0";
  r.have_remote = true;
  r.local_side.elapsed_s = 2.0;
  r.remote_side.elapsed_s = 2.0;
  return r;
}

inline results::FlowResult flow_of_2s(uint32_t index) {
  results::FlowResult f;
  f.index = index;
  f.elapsed_s = 2.0;
  return f;
}

}  // namespace flowperf::testing
