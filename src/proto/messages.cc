#include "proto/messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

#include "core/json_number.h"
#include "measure/histogram_json.h"
#include "spec/spec_json.h"

namespace flowperf::proto {
namespace {

using nlohmann::json;
using results::Presence;
// The results structs' field lists (their namespace is not found by ADL for
// measure:: and net:: types); the messages' own are found by ADL.
using results::fields;

template <class... Ts>
struct Overload : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overload(Ts...) -> Overload<Ts...>;

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// Either a results struct or a message with a field list.
template <class T>
concept HasFields = results::Described<T> || requires(T& t, void (*v)(const char*, int&)) {
  {fields(v, t)};
};

template <class T>
concept VectorOfFields = IsVector<T>::value && HasFields<typename T::value_type>;

template <class T>
T scalar(const json& v, const char* key) {
  auto got = core::checked_get<T>(v);
  if (!got)
    throw ProtocolError(std::string("message field '") + key +
                        "' has the wrong type or is out of range");
  return *got;
}

// ---- encoding: a visitor that writes each listed field ----

struct WireOut;
template <class T>
json to_wire(const T& v);

struct WireOut {
  json& j;
  template <class M>
  void operator()(const char* name, const M& m, Presence p = Presence::kRequired) {
    if constexpr (IsOptional<M>::value) {
      if (m)
        j[name] = to_wire(*m);
      else if (p != Presence::kOmitEmpty)
        j[name] = nullptr;
    } else {
      if (p == Presence::kOmitEmpty) {
        if constexpr (IsVector<M>::value) {
          if (m.empty()) return;
        } else if (m == M{}) {
          return;
        }
      }
      j[name] = to_wire(m);
    }
  }
};

template <class T>
json to_wire(const T& v) {
  if constexpr (std::is_same_v<T, measure::Histogram>) {
    return measure::histogram_to_json(v);
  } else if constexpr (HasFields<T>) {
    json j = json::object();
    WireOut out{j};
    fields(out, v);
    return j;
  } else if constexpr (VectorOfFields<T>) {
    json a = json::array();
    for (const auto& e : v) a.push_back(to_wire(e));
    return a;
  } else {
    return json(v);
  }
}

// ---- decoding: a visitor that reads each listed field ----

template <class T>
void from_wire(const json& v, T& out, const char* key);

struct WireIn {
  const json& j;
  template <class M>
  void operator()(const char* name, M& m, Presence p = Presence::kRequired) {
    auto it = j.find(name);
    if (it == j.end()) {
      if (p == Presence::kRequired)
        throw ProtocolError(std::string("message lacks field '") + name + "'");
      return;
    }
    if constexpr (IsOptional<M>::value) {
      if (it->is_null()) {
        m.reset();
        return;
      }
      m.emplace();
      from_wire(*it, *m, name);
    } else {
      from_wire(*it, m, name);
    }
  }
};

template <class T>
void from_wire(const json& v, T& out, const char* key) {
  if constexpr (std::is_same_v<T, measure::Histogram>) {
    try {
      out = measure::histogram_from_json(v);
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(e.what());
    }
  } else if constexpr (HasFields<T>) {
    if (!v.is_object())
      throw ProtocolError(std::string("message field '") + key + "' is not an object");
    WireIn in{v};
    fields(in, out);
  } else if constexpr (IsVector<T>::value) {
    if (!v.is_array())
      throw ProtocolError(std::string("message field '") + key + "' is not a list");
    out.clear();
    for (const auto& e : v) from_wire(e, out.emplace_back(), key);
  } else {
    out = scalar<T>(v, key);
  }
}

// A side's fields less its flows: the head of a results message.
template <class Inner>
struct SkipFlows {
  Inner& inner;
  template <class M>
  void operator()(const char* name, M& m, Presence p = Presence::kRequired) {
    if (std::string_view(name) != "flows") inner(name, m, p);
  }
};

// The text side_to_json(s).dump() would give, with a flow-count hint and
// without ever holding a DOM of all flows: each flow becomes a small DOM,
// is written out and dropped. With 10,000 flows the whole DOM was ~3 KB a flow.
void append_side(std::string& out, const results::SideResult& s) {
  json head = json::object();
  WireOut w{head};
  SkipFlows<WireOut> skip{w};
  fields(skip, s);
  head["flow_count"] = s.flows.size();  // lets decode() size its vector before the flows come
  out += head.dump();
  out.pop_back();  // the head's closing brace
  out += ",\"flows\":[";
  for (size_t i = 0; i < s.flows.size(); ++i) {
    if (i) out += ',';
    out += to_wire(s.flows[i]).dump();
  }
  out += "]}";
}

// `streamed`: flows already taken out of the DOM while it was parsed (see
// decode()); any left in j["flows"] come after them.
results::SideResult side_from(const json& j, std::vector<results::FlowResult>* streamed) {
  if (!j.is_object()) throw ProtocolError("results are not an object");
  results::SideResult s;
  from_wire(j, s, "side");
  if (streamed && !streamed->empty()) {
    for (auto& f : s.flows) streamed->push_back(std::move(f));
    s.flows = std::move(*streamed);
  }
  return s;
}

template <class M>
M message_from(const json& j) {
  M m;
  WireIn in{j};
  fields(in, m);
  return m;
}

}  // namespace

json side_to_json(const results::SideResult& s) { return to_wire(s); }

results::SideResult side_from_json(const json& j) { return side_from(j, nullptr); }

const char* message_name(const Message& m) {
  return std::visit(
      Overload{[](const Hello&) { return "hello"; }, [](const Challenge&) { return "challenge"; },
               [](const Auth&) { return "auth"; }, [](const Welcome&) { return "welcome"; },
               [](const Setup&) { return "setup"; }, [](const SetupOk&) { return "setup_ok"; },
               [](const Start&) { return "start"; }, [](const Started&) { return "started"; },
               [](const Stop&) { return "stop"; }, [](const Quit&) { return "quit"; },
               [](const Results&) { return "results"; }, [](const ErrorMsg&) { return "error"; }},
      m);
}

std::string encode(const Message& m) {
  std::string out;
  encode_into(out, m);
  return out;
}

void encode_into(std::string& out, const Message& m) {
  if (const auto* r = std::get_if<Results>(&m)) {
    // Room for the usual ~500 bytes a flow up front: no doubling (which holds two copies at the
    // peak); pages reserved but never written cost no memory.
    out.reserve(out.size() + 4096 + 1024 * r->side.flows.size());
    out += "{\"type\":\"results\",\"side\":";
    append_side(out, r->side);
    out += '}';
    return;
  }
  json j = std::visit(Overload{[](const Setup& s) -> json {
                                 return {{"spec", spec::to_json(s.spec)}};
                               },
                               [](const Results&) -> json { return json::object(); },  // above
                               [](const auto& msg) -> json { return to_wire(msg); }},
                      m);
  j["type"] = message_name(m);
  out += j.dump();
}

Message decode(std::string_view body) {
  // The flows of a results message (side.flows[i], depth 3) become
  // FlowResults as soon as each is parsed and leave the DOM at once, so the
  // DOM never holds them all (it took ~5 KB a flow, and there may be 10,000s).
  std::vector<results::FlowResult> flows;
  std::string key1, key2;  // the keys last seen at depths 1 and 2
  auto take_flows = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= core::kMaxJsonDepth)
      throw ProtocolError(
          fmt::format("control message nested deeper than {} levels", core::kMaxJsonDepth));
    if (event == json::parse_event_t::key) {
      if (depth == 1) key1 = parsed.get<std::string>();
      if (depth == 2) key2 = parsed.get<std::string>();
    } else if (event == json::parse_event_t::value && depth == 2 && key1 == "side" &&
               key2 == "flow_count" && flows.empty()) {
      // A hint, written before the flows: growing by doubling would hold two copies at the peak.
      // Never more than the body could hold (a flow's text is far over 64 bytes).
      if (auto n = core::checked_get<size_t>(parsed)) flows.reserve(std::min(*n, body.size() / 64));
    } else if (event == json::parse_event_t::object_end && depth == 3 && key1 == "side" &&
               key2 == "flows") {
      if (!parsed.is_object()) throw ProtocolError("a flow result is not an object");
      from_wire(parsed, flows.emplace_back(), "flows");
      return false;
    }
    return true;
  };
  json j = json::parse(body, take_flows, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ProtocolError("control message is not valid JSON");
  if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
  auto type_it = j.find("type");
  if (type_it == j.end()) throw ProtocolError("message lacks field 'type'");
  const auto type = scalar<std::string>(*type_it, "type");
  if (type == "hello") return message_from<Hello>(j);
  if (type == "challenge") return message_from<Challenge>(j);
  if (type == "auth") return message_from<Auth>(j);
  if (type == "welcome") return message_from<Welcome>(j);
  if (type == "setup") {
    auto spec = j.find("spec");
    if (spec == j.end()) throw ProtocolError("message lacks field 'spec'");
    try {
      return Setup{spec::spec_from_json(*spec)};
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(e.what());
    }
  }
  if (type == "setup_ok") return message_from<SetupOk>(j);
  if (type == "start") return Start{};
  if (type == "started") return Started{};
  if (type == "stop") return message_from<Stop>(j);
  if (type == "quit") return Quit{};
  if (type == "results") {
    auto side = j.find("side");
    if (side == j.end()) throw ProtocolError("message lacks field 'side'");
    return Results{side_from(*side, &flows)};
  }
  if (type == "error") return message_from<ErrorMsg>(j);
  throw ProtocolError("unknown control message type '" + type + "'");
}

}  // namespace flowperf::proto
