#include "measure/histogram_json.h"

#include <stdexcept>
#include <string>

#include "core/json_number.h"

namespace flowperf::measure {

using nlohmann::json;

json histogram_to_json(const Histogram& h) {
  auto s = h.snapshot();
  json buckets = json::array();
  for (const auto& b : s.buckets) buckets.push_back({b.index, b.count});
  return {{"min", s.min},
          {"max", s.max},
          {"sum_lo", s.sum_lo},
          {"sum_hi", s.sum_hi},
          {"buckets", buckets}};
}

Histogram histogram_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("histogram is not an object");
  Histogram::Snapshot s;
  auto get = [&](const char* key) {
    auto it = j.find(key);
    if (it == j.end())
      throw std::invalid_argument(std::string("histogram lacks field '") + key + "'");
    auto v = core::checked_get<uint64_t>(*it);
    if (!v)
      throw std::invalid_argument(std::string("histogram field '") + key +
                                  "' has the wrong type or is out of range");
    return *v;
  };
  s.min = get("min");
  s.max = get("max");
  s.sum_lo = get("sum_lo");
  s.sum_hi = get("sum_hi");
  auto b = j.find("buckets");
  if (b == j.end() || !b->is_array())
    throw std::invalid_argument("histogram buckets is not an array");
  for (const auto& e : *b) {
    if (!e.is_array() || e.size() != 2)
      throw std::invalid_argument("histogram bucket is not a pair of counts");
    auto index = core::checked_get<uint32_t>(e[0]);
    auto count = core::checked_get<uint64_t>(e[1]);
    if (!index || !count) throw std::invalid_argument("histogram bucket is not a pair of counts");
    s.buckets.push_back({*index, *count});
  }
  try {
    return Histogram::from_snapshot(s);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("bad histogram: ") + e.what());
  }
}

}  // namespace flowperf::measure
