#include "report/result_json.h"

#include <optional>
#include <string_view>
#include <type_traits>

#include "measure/histogram_json.h"
#include "results/fields.h"

namespace flowperf::report {
namespace {

using nlohmann::json;
using results::fields;
using results::Presence;

template <class T>
json value_json(const T& v);

template <class T>
concept ListOfDescribed = requires {
  typename T::value_type;
}
&&results::Described<typename T::value_type>;

// Writes each listed field; an empty optional is null, or left out where
// the list says kOmitEmpty.
struct JsonOut {
  json& j;
  bool skip_flows = false;
  template <class M>
  void operator()(const char* name, const M& m, Presence p = Presence::kRequired) {
    if (skip_flows && std::string_view(name) == "flows") return;
    if constexpr (requires { m.has_value(); }) {
      if (m)
        j[name] = value_json(*m);
      else if (p != Presence::kOmitEmpty)
        j[name] = nullptr;
    } else {
      j[name] = value_json(m);
    }
  }
};

template <class T>
json value_json(const T& v) {
  if constexpr (std::is_same_v<T, measure::Histogram>) {
    return measure::histogram_to_json(v);
  } else if constexpr (results::Described<T>) {
    json j = json::object();
    JsonOut out{j};
    fields(out, v);
    return j;
  } else if constexpr (ListOfDescribed<T>) {
    json a = json::array();
    for (const auto& e : v) a.push_back(value_json(e));
    return a;
  } else {
    return json(v);
  }
}

}  // namespace

json tcp_info_json(const net::TcpInfo& t) { return value_json(t); }
json cpu_json(const measure::CpuUsage& c) { return value_json(c); }
json nic_json(const measure::NicUsage& n) { return value_json(n); }
json flow_json(const results::FlowResult& f) { return value_json(f); }
json side_json(const results::SideResult& s) { return value_json(s); }

json side_head_json(const results::SideResult& s) {
  json j = json::object();
  JsonOut out{j, true};
  fields(out, s);
  return j;
}

}  // namespace flowperf::report
