// TestSpec <-> JSON, used by the control protocol and by --json output.
#pragma once

#include <nlohmann/json.hpp>

#include "spec/test_spec.h"

namespace flowperf::spec {

nlohmann::json to_json(const TestSpec& spec);
// Throws std::invalid_argument naming the bad field.
TestSpec spec_from_json(const nlohmann::json& j);

}  // namespace flowperf::spec
