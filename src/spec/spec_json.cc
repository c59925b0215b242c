#include "spec/spec_json.h"

#include <stdexcept>

#include "core/json_number.h"

namespace flowperf::spec {
namespace {

const char* family_name(IpFamily f) {
  return f == IpFamily::kV4 ? "ipv4" : f == IpFamily::kV6 ? "ipv6" : "any";
}

[[noreturn]] void bad(const std::string& key, const std::string& why) {
  throw std::invalid_argument("spec field '" + key + "' " + why);
}

// ---- encoding: one JSON value per member ----

nlohmann::json encode(TestKind k) { return info(k).name; }
nlohmann::json encode(IpFamily f) { return family_name(f); }
nlohmann::json encode(Arrival a) { return arrival_name(a); }
const char* header_name(UdpHeader h) {
  switch (h) {
    case UdpHeader::kIperf3:
      return "iperf3";
    case UdpHeader::kIperf3Wide:
      return "iperf3-64";
    case UdpHeader::kNone:
      return "none";
    case UdpHeader::kFlowperf:
      break;
  }
  return "flowperf";
}
nlohmann::json encode(UdpHeader h) { return header_name(h); }
nlohmann::json encode(const SideOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  visit_side(o, [&](const char* key, const auto& v) { j[key] = v; });
  return j;
}
template <typename T>
nlohmann::json encode(const T& v) {
  return v;
}
nlohmann::json encode(const WireOptions& w) {
  nlohmann::json j = nlohmann::json::object();
  visit_wire(w, [&](const char* key, const auto& v) { j[key] = encode(v); });
  return j;
}

struct Encoder {
  const TestSpec& spec;
  nlohmann::json& out;
  template <typename T>
  void operator()(const char* key, const T& v) const {
    out[key] = encode(v);
  }
  // The value shown is not the member itself (the sizes in effect).
  void operator()(const char* key, const uint32_t&, uint32_t (TestSpec::*shown)() const) const {
    out[key] = (spec.*shown)();
  }
};

// ---- decoding: a present key overwrites the default ----

void decode(const std::string& key, const nlohmann::json& v, TestKind& out) {
  if (!v.is_string()) bad(key, "has the wrong type or is out of range");
  auto kind = parse_test_name(v.get<std::string>());
  if (!kind)
    throw std::invalid_argument((key == "test" ? "" : key + ": ") + "unknown test '" +
                                v.get<std::string>() + "'");
  out = *kind;
}

void decode(const std::string& key, const nlohmann::json& v, IpFamily& out) {
  if (!v.is_string()) bad(key, "has the wrong type or is out of range");
  const std::string fam = v.get<std::string>();
  if (fam == "ipv4")
    out = IpFamily::kV4;
  else if (fam == "ipv6")
    out = IpFamily::kV6;
  else if (fam == "any")
    out = IpFamily::kAny;
  else
    throw std::invalid_argument("unknown ip_family '" + fam + "'");
}

void decode(const std::string& key, const nlohmann::json& v, Arrival& out) {
  const auto a = v.is_string() ? parse_arrival(v.get<std::string>()) : std::nullopt;
  if (!a) bad(key, "is not \"fixed\" or \"poisson\"");
  out = *a;
}

void decode(const std::string& key, const nlohmann::json& v, UdpHeader& out) {
  for (UdpHeader h :
       {UdpHeader::kFlowperf, UdpHeader::kIperf3, UdpHeader::kIperf3Wide, UdpHeader::kNone})
    if (v.is_string() && v.get<std::string>() == header_name(h)) {
      out = h;
      return;
    }
  bad(key, "is not \"flowperf\", \"iperf3\", \"iperf3-64\" or \"none\"");
}

void decode(const std::string& key, const nlohmann::json& v, SideOptions& out);
void decode(const std::string& key, const nlohmann::json& v, WireOptions& out);
template <typename T>
void decode(const std::string& key, const nlohmann::json& v, T& out);

// Reads every member `visit` names out of object j (absent: kept).
template <typename Visit>
void decode_object(const std::string& where, const nlohmann::json& j, Visit&& visit) {
  visit([&](const char* key, auto& member, auto&&...) {
    auto it = j.find(key);
    if (it != j.end()) decode(where + key, *it, member);
  });
}

void decode(const std::string& key, const nlohmann::json& v, SideOptions& out) {
  if (!v.is_object()) bad(key, "is not an object");
  decode_object(key + ".", v, [&](auto&& field) { visit_side(out, field); });
}

void decode(const std::string& key, const nlohmann::json& v, WireOptions& out) {
  if (!v.is_object()) bad(key, "is not an object");
  decode_object(key + ".", v, [&](auto&& field) { visit_wire(out, field); });
}

template <typename T>
void decode(const std::string& key, const nlohmann::json& v, T& out) {
  auto got = core::checked_get<T>(v);
  if (!got) bad(key, "has the wrong type or is out of range");
  out = *got;
}

}  // namespace

nlohmann::json to_json(const TestSpec& s) {
  nlohmann::json j = nlohmann::json::object();
  visit_fields(s, Encoder{s, j});
  return j;
}

TestSpec spec_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("spec is not a JSON object");
  if (!j.contains("test")) throw std::invalid_argument("unknown test ''");
  TestSpec s;
  decode_object("", j, [&](auto&& field) { visit_fields(s, field); });
  // An older peer names one congestion control for both ends.
  if (auto it = j.find("congestion_control");
      it != j.end() && !j.contains("local") && !j.contains("remote")) {
    decode("congestion_control", *it, s.local.cc);
    s.remote.cc = s.local.cc;
  }
  return s;
}

}  // namespace flowperf::spec
