// Who may use a public server, and how much: --allow/--deny address lists
// checked when a control connection arrives, and per-source limits on tests
// at once and tests per minute, so one host cannot hold a shared server.
// Nothing here touches a socket; callers pass the peer's sockaddr.
#pragma once

#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowperf::session {

// An IPv4 or IPv6 address as 16 bytes. IPv4 is held IPv4-mapped
// (::ffff:a.b.c.d) with v4 set, so a dual-stack server's mapped peers match
// IPv4 rules and count as the IPv4 host they are.
struct IpAddr {
  std::array<uint8_t, 16> bytes{};
  bool v4 = false;

  std::string to_string() const;  // "192.0.2.7", "2001:db8::1"
  bool operator==(const IpAddr&) const = default;
};

// AF_INET and AF_INET6 (an IPv4-mapped IPv6 address comes back as IPv4);
// nullopt for any other family or a null pointer. sa must point at a
// sockaddr_in or sockaddr_in6 as its family says.
std::optional<IpAddr> ip_from_sockaddr(const sockaddr* sa);

// A numeric address of either family; "::ffff:a.b.c.d" is IPv4 as above.
// No names, no scope ids ("fe80::1%eth0").
std::optional<IpAddr> parse_ip(std::string_view text);

// A network: net has no bits set below prefix, and prefix counts in net's
// own family (0-32 for IPv4, 0-128 for IPv6). IPv4 networks match only IPv4
// addresses (mapped ones included) and IPv6 networks only IPv6 ones, so
// "::/0" is every IPv6 peer, not everyone.
struct Cidr {
  IpAddr net;
  int prefix = 0;

  bool contains(const IpAddr& addr) const;
  std::string to_string() const;  // "10.0.0.0/8"; a full-length prefix prints as the bare address
  bool operator==(const Cidr&) const = default;
};

// "10.0.0.0/8", "192.0.2.1" (= /32), "2001:db8::/32", "::1" (= /128);
// "::ffff:10.0.0.0/104" is taken as 10.0.0.0/8. Throws a usage Error naming
// option and text and saying what was expected, e.g. "--allow 10.0.0.0/33:
// the prefix length must be 0-32 for an IPv4 network"; host bits set below
// the prefix (10.1.2.3/8) are an error that suggests the network meant.
Cidr parse_cidr(std::string_view text, std::string_view option);

struct AccessLists {
  std::vector<Cidr> allow, deny;
  bool empty() const { return allow.empty() && deny.empty(); }
};

// Why peer may not use the server, or empty when it may. Deny wins over
// allow; with a non-empty allow list an address outside all of it is
// refused. The text is for the refused client, e.g. "your address 10.1.1.1
// is refused by this server (--deny 10.1.0.0/16)".
std::string refusal(const AccessLists& lists, const IpAddr& peer);

// Per-source limits of a public server: tests running at once and tests
// started in the last 60 seconds, per source. An IPv6 source counts by its
// /64, since one host usually owns a whole /64 and could otherwise take a
// fresh address per test; IPv4 by the full address. 0 means no limit; with
// both 0 nothing is tracked. Thread-safe behind one mutex, taken once per
// test start and end, never on a data path.
//
// Memory stays bounded under many distinct sources: a source is forgotten
// once it runs no tests and its last start is a minute old. take() sweeps
// for those every few seconds of its clock, so the map holds about the
// sources seen in the last minute plus those still running a test.
class SourceLimits {
 public:
  using Clock = std::chrono::steady_clock;
  using Key = std::array<uint8_t, 16>;
  // What a source counts as: an IPv4 address, or an IPv6 address's /64.
  static Key key_of(const IpAddr& peer);

  SourceLimits(uint32_t max_concurrent, uint32_t max_per_minute);
  SourceLimits(const SourceLimits&) = delete;
  SourceLimits& operator=(const SourceLimits&) = delete;

  // Takes a test for peer at now, or returns why not (empty: taken; then
  // release() once it ends, or let a SourceTicket do it). The text names the
  // limit and what to do, e.g. "192.0.2.7 started 10 tests in the last
  // minute (limit 10 per minute per address) — try again in 23 s". A refused
  // take counts against nothing.
  std::string take(const IpAddr& peer, Clock::time_point now);
  void release(const IpAddr& peer);

  size_t tracked_sources() const;

 private:
  struct Source {
    uint32_t running = 0;
    Clock::time_point last_start;
    // The last min(starts, max_per_minute) start times, oldest at head once
    // full: the window is full exactly when that oldest one is under a
    // minute old, so no older start is needed.
    std::vector<Clock::time_point> starts;
    size_t head = 0;
  };

  void sweep(Clock::time_point now);

  const uint32_t max_concurrent_, max_per_minute_;
  mutable std::mutex mu_;
  // An ordered map: sources are chosen by the clients, so no hash to flood,
  // and a lookup per test start costs nothing that matters.
  std::map<Key, Source> sources_;
  Clock::time_point next_sweep_{};
};

// Failed authentications per source (counted as SourceLimits counts them):
// a source that failed kMaxFailures times within a minute is refused at the
// door until the oldest of those is a minute old, whatever protocol it
// tries. Guessing a key or a password then costs a minute per ten tries.
// Bounded memory: at most kMaxSources sources are remembered (beyond that,
// another is forgotten for each new one). Thread-safe.
class AuthFailures {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kMaxFailures = 10;
  static constexpr size_t kMaxSources = 1 << 16;

  void failed(const IpAddr& peer, Clock::time_point now);
  // Empty when peer may try now; else why not, for the log.
  std::string refusal(const IpAddr& peer, Clock::time_point now);
  size_t tracked_sources() const;

 private:
  mutable std::mutex mu_;
  std::map<SourceLimits::Key, std::vector<Clock::time_point>> failures_;  // oldest first
};

// One taken test that is released when the ticket goes (move-only).
class SourceTicket {
 public:
  SourceTicket() = default;
  // Adopts a test that limits->take(peer, ...) has just granted.
  SourceTicket(SourceLimits* limits, const IpAddr& peer) : limits_(limits), peer_(peer) {}
  SourceTicket(SourceTicket&& other) noexcept;
  SourceTicket& operator=(SourceTicket&& other) noexcept;
  SourceTicket(const SourceTicket&) = delete;
  SourceTicket& operator=(const SourceTicket&) = delete;
  ~SourceTicket() { reset(); }

  bool held() const { return limits_ != nullptr; }
  void reset();  // releases now, if held

 private:
  SourceLimits* limits_ = nullptr;
  IpAddr peer_;
};

}  // namespace flowperf::session
