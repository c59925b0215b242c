// Address lists and per-source limits of a public server (see the header).
#include "session/access_policy.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "core/error.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;

constexpr auto kWindow = 60s;
// How often take() looks for forgettable sources: often enough that a burst
// of one-off sources is dropped soon after its minute is up, rarely enough
// that the scan's cost spreads over the takes since the last one.
constexpr auto kSweepEvery = 10s;
constexpr size_t kV4Offset = 12;  // where a mapped address keeps its IPv4 bytes
constexpr std::string_view kCidrExamples = "(e.g. 192.0.2.0/24 or 2001:db8::/32)";

bool is_mapped(const std::array<uint8_t, 16>& b) {
  return std::all_of(b.begin(), b.begin() + 10, [](uint8_t x) { return x == 0; }) &&
         b[10] == 0xff && b[11] == 0xff;
}

IpAddr from_v4(const void* four_bytes) {
  IpAddr a;
  a.bytes[10] = a.bytes[11] = 0xff;
  std::memcpy(a.bytes.data() + kV4Offset, four_bytes, 4);
  a.v4 = true;
  return a;
}

IpAddr from_v6(const void* sixteen_bytes) {
  IpAddr a;
  std::memcpy(a.bytes.data(), sixteen_bytes, 16);
  a.v4 = is_mapped(a.bytes);
  return a;
}

// Whether the first `bits` bits of a and b agree, from byte `from` on.
bool same_prefix(const std::array<uint8_t, 16>& a, const std::array<uint8_t, 16>& b, size_t from,
                 int bits) {
  const size_t whole = static_cast<size_t>(bits) / 8;
  if (!std::equal(a.begin() + from, a.begin() + from + whole, b.begin() + from)) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return ((a[from + whole] ^ b[from + whole]) & mask) == 0;
}

// Clears every bit after the first `bits`.
std::array<uint8_t, 16> masked(std::array<uint8_t, 16> b, int bits) {
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(bits - 8 * i, 0, 8);
    b[i] &= static_cast<uint8_t>(0xff00 >> keep);
  }
  return b;
}

std::string tests_word(uint32_t n) { return std::to_string(n) + (n == 1 ? " test" : " tests"); }

}  // namespace

std::string IpAddr::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (v4)
    ::inet_ntop(AF_INET, bytes.data() + kV4Offset, text, sizeof text);
  else
    ::inet_ntop(AF_INET6, bytes.data(), text, sizeof text);
  return text;
}

std::optional<IpAddr> ip_from_sockaddr(const sockaddr* sa) {
  if (!sa) return std::nullopt;
  if (sa->sa_family == AF_INET) return from_v4(&reinterpret_cast<const sockaddr_in*>(sa)->sin_addr);
  if (sa->sa_family == AF_INET6)
    return from_v6(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  return std::nullopt;
}

std::optional<IpAddr> parse_ip(std::string_view text) {
  // inet_pton reads a C string: an embedded NUL would hide what follows it.
  if (text.find('\0') != std::string_view::npos) return std::nullopt;
  const std::string s(text);
  unsigned char buf[16];
  if (::inet_pton(AF_INET, s.c_str(), buf) == 1) return from_v4(buf);
  if (::inet_pton(AF_INET6, s.c_str(), buf) == 1) return from_v6(buf);
  return std::nullopt;
}

bool Cidr::contains(const IpAddr& addr) const {
  if (addr.v4 != net.v4) return false;
  return same_prefix(net.bytes, addr.bytes, net.v4 ? kV4Offset : 0, prefix);
}

std::string Cidr::to_string() const {
  std::string s = net.to_string();
  if (prefix != (net.v4 ? 32 : 128)) s += "/" + std::to_string(prefix);
  return s;
}

Cidr parse_cidr(std::string_view text, std::string_view option) {
  const std::string opt(option);
  if (text.empty())
    throw usage_error((opt.empty() ? "" : opt + " ") + "needs an IP address or CIDR network " +
                      std::string(kCidrExamples));
  const std::string where = (opt.empty() ? "" : opt + " ") + std::string(text) + ": ";

  const size_t slash = text.find('/');
  const std::string_view addr_text = text.substr(0, slash);
  // Which family the text was written in decides the prefix's range, even
  // for a mapped address that ends up an IPv4 network.
  std::array<uint8_t, 16> bytes{};
  bool written_v4;
  const std::string a(addr_text);
  const bool nul = addr_text.find('\0') != std::string_view::npos;  // inet_pton would stop there
  if (!nul && ::inet_pton(AF_INET, a.c_str(), bytes.data() + kV4Offset) == 1) {
    bytes[10] = bytes[11] = 0xff;
    written_v4 = true;
  } else if (!nul && ::inet_pton(AF_INET6, a.c_str(), bytes.data()) == 1) {
    written_v4 = false;
  } else {
    throw usage_error(where + "not an IP address or CIDR network " + std::string(kCidrExamples));
  }

  const unsigned max_prefix = written_v4 ? 32 : 128;
  unsigned prefix = max_prefix;
  if (slash != std::string_view::npos) {
    const std::string_view p = text.substr(slash + 1);
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
    if (p.empty() || ec != std::errc() || end != p.data() + p.size() || prefix > max_prefix)
      throw usage_error(where + "the prefix length must be 0-" + std::to_string(max_prefix) +
                        " for an IPv" + (written_v4 ? "4" : "6") + " network");
  }

  const int bits = static_cast<int>(prefix) + (written_v4 ? 96 : 0);
  const auto net = masked(bytes, bits);
  Cidr c;
  c.net.bytes = net;
  // A valid network whose address is mapped has its prefix at 96 or more
  // (the ffff lies in bits 80-95), so it converts to an IPv4 one exactly.
  if (is_mapped(net) && bits >= 96) {
    c.net.v4 = true;
    c.prefix = bits - 96;
  } else {
    c.prefix = bits;
  }
  if (net != bytes)
    throw usage_error(where + "the address has bits set below its /" + std::to_string(prefix) +
                      " prefix — did you mean " + c.to_string() + "?");
  return c;
}

std::string refusal(const AccessLists& lists, const IpAddr& peer) {
  for (const Cidr& d : lists.deny)
    if (d.contains(peer))
      return "your address " + peer.to_string() + " is refused by this server (--deny " +
             d.to_string() + ")";
  if (lists.allow.empty() || std::any_of(lists.allow.begin(), lists.allow.end(),
                                         [&](const Cidr& c) { return c.contains(peer); }))
    return "";
  // A long allow list would drown the message; three networks show the idea.
  constexpr size_t kShown = 3;
  const size_t shown = std::min(lists.allow.size(), kShown);
  std::string nets;
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) nets += (i + 1 == shown && lists.allow.size() == shown) ? " and " : ", ";
    nets += lists.allow[i].to_string();
  }
  if (lists.allow.size() > shown)
    nets += " and " + std::to_string(lists.allow.size() - shown) + " more";
  return "your address " + peer.to_string() +
         " is not allowed on this server (it is outside --allow " + nets + ")";
}

SourceLimits::SourceLimits(uint32_t max_concurrent, uint32_t max_per_minute)
    : max_concurrent_(max_concurrent), max_per_minute_(max_per_minute) {}

SourceLimits::Key SourceLimits::key_of(const IpAddr& peer) {
  if (peer.v4) return from_v4(peer.bytes.data() + kV4Offset).bytes;
  return masked(peer.bytes, 64);
}

void SourceLimits::sweep(Clock::time_point now) {
  std::erase_if(sources_, [&](const auto& kv) {
    return kv.second.running == 0 && now - kv.second.last_start >= kWindow;
  });
}

std::string SourceLimits::take(const IpAddr& peer, Clock::time_point now) {
  if (max_concurrent_ == 0 && max_per_minute_ == 0) return "";
  const Key key = key_of(peer);
  std::lock_guard lock(mu_);
  if (now >= next_sweep_) {
    sweep(now);
    next_sweep_ = now + kSweepEvery;
  }
  Source& s = sources_[key];

  const auto who = [&] {
    if (peer.v4) return peer.to_string();
    IpAddr net;
    net.bytes = key;
    return net.to_string() + "/64";
  };
  // Without this a user on IPv6 would wonder whose tests are meant.
  const std::string per = peer.v4 ? "per address" : "per address; an IPv6 /64 counts as one";

  if (max_concurrent_ > 0 && s.running >= max_concurrent_)
    return who() + " already runs " + tests_word(s.running) + " on this server (limit " +
           std::to_string(max_concurrent_) + " at once " + per + ") — wait for one to end";
  if (max_per_minute_ > 0 && s.starts.size() == max_per_minute_ &&
      now - s.starts[s.head] < kWindow) {
    const auto wait =
        std::max(std::chrono::ceil<std::chrono::seconds>(s.starts[s.head] + kWindow - now),
                 std::chrono::seconds(1));
    return who() + " started " + tests_word(max_per_minute_) + " in the last minute (limit " +
           std::to_string(max_per_minute_) + " per minute " + per + ") — try again in " +
           std::to_string(wait.count()) + " s";
  }

  ++s.running;
  s.last_start = now;
  if (max_per_minute_ > 0) {
    if (s.starts.size() < max_per_minute_) {
      s.starts.push_back(now);
    } else {
      s.starts[s.head] = now;
      s.head = (s.head + 1) % s.starts.size();
    }
  }
  return "";
}

void SourceLimits::release(const IpAddr& peer) {
  if (max_concurrent_ == 0 && max_per_minute_ == 0) return;
  const Key key = key_of(peer);
  std::lock_guard lock(mu_);
  // A release without its take is ignored rather than let it drive the count
  // below what is really running.
  const auto it = sources_.find(key);
  if (it != sources_.end() && it->second.running > 0) --it->second.running;
}

size_t SourceLimits::tracked_sources() const {
  std::lock_guard lock(mu_);
  return sources_.size();
}

SourceTicket::SourceTicket(SourceTicket&& other) noexcept
    : limits_(std::exchange(other.limits_, nullptr)), peer_(other.peer_) {}

SourceTicket& SourceTicket::operator=(SourceTicket&& other) noexcept {
  if (this != &other) {
    reset();
    limits_ = std::exchange(other.limits_, nullptr);
    peer_ = other.peer_;
  }
  return *this;
}

void SourceTicket::reset() {
  if (limits_) std::exchange(limits_, nullptr)->release(peer_);
}

void AuthFailures::failed(const IpAddr& peer, Clock::time_point now) {
  const auto key = SourceLimits::key_of(peer);
  std::lock_guard lock(mu_);
  auto& times = failures_[key];
  std::erase_if(times, [&](Clock::time_point t) { return now - t >= kWindow; });
  times.push_back(now);
  if (times.size() > kMaxFailures) times.erase(times.begin());
  // Full: one other source is forgotten (the first by address: finding the
  // oldest would cost a pass over all of them for every failure).
  if (failures_.size() > kMaxSources)
    failures_.erase(failures_.begin()->first == key ? std::next(failures_.begin())
                                                    : failures_.begin());
}

std::string AuthFailures::refusal(const IpAddr& peer, Clock::time_point now) {
  const auto key = SourceLimits::key_of(peer);
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  if (it == failures_.end()) return "";
  auto& times = it->second;
  std::erase_if(times, [&](Clock::time_point t) { return now - t >= kWindow; });
  if (times.empty()) {
    failures_.erase(it);
    return "";
  }
  if (times.size() < kMaxFailures) return "";
  const auto wait = std::chrono::ceil<std::chrono::seconds>(times.front() + kWindow - now);
  return fmt::format("{} failed to authenticate {} times in the last minute: refused for {} s more",
                     peer.to_string(), times.size(), wait.count());
}

size_t AuthFailures::tracked_sources() const {
  std::lock_guard lock(mu_);
  return failures_.size();
}

}  // namespace flowperf::session
