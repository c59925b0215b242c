// The user's JSON for measurements (--json, docs/json.md), written from the
// field lists in results/fields.h (histograms in their own form,
// measure/histogram_json.h). This is not the control protocol's
// encoding (proto/messages.h has its own): a change to the wire leaves the
// documented JSON as it is.
#pragma once

#include <nlohmann/json.hpp>

#include "results/measurements.h"

namespace flowperf::report {

nlohmann::json tcp_info_json(const net::TcpInfo& t);
nlohmann::json cpu_json(const measure::CpuUsage& c);
nlohmann::json nic_json(const measure::NicUsage& n);
nlohmann::json flow_json(const results::FlowResult& f);
// A side with its flows, and without them (its "head").
nlohmann::json side_json(const results::SideResult& s);
nlohmann::json side_head_json(const results::SideResult& s);

}  // namespace flowperf::report
