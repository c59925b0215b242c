// session/access_policy: address and network parsing with the messages a
// user sees for each mistake, --allow/--deny matching (mapped IPv4 peers
// included), and the per-source limits with an injected clock: counts,
// /64 grouping, the sliding minute, forgetting idle sources, and threads.
#include "session/access_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"

namespace flowperf::session {
namespace {

using namespace std::chrono_literals;
using Clock = SourceLimits::Clock;

// Far enough from the clock's epoch that nothing below it is special.
const Clock::time_point kT0 = Clock::time_point{} + 1000h;

IpAddr ip(const std::string& text) {
  const auto a = parse_ip(text);
  if (!a) ADD_FAILURE() << "parse_ip(\"" << text << "\") failed";
  return a.value_or(IpAddr{});
}

// The message parse_cidr throws for text, or "(no error)".
std::string cidr_error(std::string_view text, std::string_view option = "--allow") {
  try {
    parse_cidr(text, option);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  return "(no error)";
}

// --- parse_ip ---------------------------------------------------------------

TEST(ParseIp, V4IsHeldMapped) {
  const IpAddr a = ip("192.0.2.7");
  EXPECT_TRUE(a.v4);
  const std::array<uint8_t, 16> want = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
  EXPECT_EQ(a.bytes, want);
  EXPECT_EQ(a.to_string(), "192.0.2.7");
}

TEST(ParseIp, V6) {
  const IpAddr a = ip("2001:db8::1");
  EXPECT_FALSE(a.v4);
  EXPECT_EQ(a.bytes[0], 0x20);
  EXPECT_EQ(a.bytes[1], 0x01);
  EXPECT_EQ(a.bytes[15], 1);
  EXPECT_EQ(a.to_string(), "2001:db8::1");
}

TEST(ParseIp, MappedTextIsTheV4Address) {
  EXPECT_EQ(ip("::ffff:10.1.2.3"), ip("10.1.2.3"));
  EXPECT_EQ(ip("::ffff:10.1.2.3").to_string(), "10.1.2.3");
  // The old IPv4-compatible form is a genuine IPv6 address.
  EXPECT_FALSE(ip("::10.1.2.3").v4);
}

TEST(ParseIp, RejectsWhatIsNotANumericAddress) {
  for (const char* bad : {"", "foo", "localhost", "10.1", "1.2.3.4.5", "256.0.0.1", "1.2.3.4/8",
                          " 1.2.3.4", "fe80::1%eth0", "2001:db8::g", "[::1]"})
    EXPECT_FALSE(parse_ip(bad).has_value()) << bad;
  EXPECT_FALSE(parse_ip(std::string_view("1.2.3.4\0x", 9)).has_value());
}

TEST(IpFromSockaddr, V4) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  ASSERT_EQ(::inet_pton(AF_INET, "10.1.2.3", &sin.sin_addr), 1);
  const auto a = ip_from_sockaddr(reinterpret_cast<const sockaddr*>(&sin));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, ip("10.1.2.3"));
}

TEST(IpFromSockaddr, MappedV6IsV4) {
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  ASSERT_EQ(::inet_pton(AF_INET6, "::ffff:10.1.2.3", &sin6.sin6_addr), 1);
  const auto a = ip_from_sockaddr(reinterpret_cast<const sockaddr*>(&sin6));
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->v4);
  EXPECT_EQ(*a, ip("10.1.2.3"));
  EXPECT_TRUE(parse_cidr("10.0.0.0/8", "--allow").contains(*a));
}

TEST(IpFromSockaddr, V6) {
  sockaddr_in6 sin6{};
  sin6.sin6_family = AF_INET6;
  ASSERT_EQ(::inet_pton(AF_INET6, "2001:db8::5", &sin6.sin6_addr), 1);
  const auto a = ip_from_sockaddr(reinterpret_cast<const sockaddr*>(&sin6));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, ip("2001:db8::5"));
}

TEST(IpFromSockaddr, OtherFamiliesAndNull) {
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  EXPECT_FALSE(ip_from_sockaddr(reinterpret_cast<const sockaddr*>(&sun)).has_value());
  EXPECT_FALSE(ip_from_sockaddr(nullptr).has_value());
}

// --- parse_cidr ---------------------------------------------------------------

TEST(ParseCidr, V4Network) {
  const Cidr c = parse_cidr("10.0.0.0/8", "--allow");
  EXPECT_EQ(c.net, ip("10.0.0.0"));
  EXPECT_EQ(c.prefix, 8);
  EXPECT_EQ(c.to_string(), "10.0.0.0/8");
}

TEST(ParseCidr, BareAddressIsAFullPrefix) {
  const Cidr v4 = parse_cidr("192.0.2.1", "--deny");
  EXPECT_EQ(v4.net, ip("192.0.2.1"));
  EXPECT_EQ(v4.prefix, 32);
  EXPECT_EQ(v4.to_string(), "192.0.2.1");
  EXPECT_EQ(parse_cidr("192.0.2.1/32", "--deny"), v4);

  const Cidr v6 = parse_cidr("::1", "--deny");
  EXPECT_EQ(v6.net, ip("::1"));
  EXPECT_EQ(v6.prefix, 128);
  EXPECT_EQ(v6.to_string(), "::1");
}

TEST(ParseCidr, V6Network) {
  const Cidr c = parse_cidr("2001:db8::/32", "--allow");
  EXPECT_EQ(c.net, ip("2001:db8::"));
  EXPECT_EQ(c.prefix, 32);
  EXPECT_EQ(c.to_string(), "2001:db8::/32");
}

TEST(ParseCidr, SlashZero) {
  const Cidr v4 = parse_cidr("0.0.0.0/0", "--allow");
  EXPECT_TRUE(v4.net.v4);
  EXPECT_EQ(v4.prefix, 0);
  EXPECT_EQ(v4.to_string(), "0.0.0.0/0");
  const Cidr v6 = parse_cidr("::/0", "--allow");
  EXPECT_FALSE(v6.net.v4);
  EXPECT_EQ(v6.prefix, 0);
  EXPECT_EQ(v6.to_string(), "::/0");
}

TEST(ParseCidr, MappedNetworkIsTheV4Network) {
  EXPECT_EQ(parse_cidr("::ffff:10.0.0.0/104", "--allow"), parse_cidr("10.0.0.0/8", "--allow"));
  EXPECT_EQ(parse_cidr("::ffff:0:0/96", "--allow"), parse_cidr("0.0.0.0/0", "--allow"));
  EXPECT_EQ(parse_cidr("::ffff:192.0.2.1", "--allow"), parse_cidr("192.0.2.1", "--allow"));
}

TEST(ParseCidr, PrefixTooLong) {
  EXPECT_EQ(cidr_error("10.0.0.0/33"),
            "--allow 10.0.0.0/33: the prefix length must be 0-32 for an IPv4 network");
  EXPECT_EQ(cidr_error("2001:db8::/129", "--deny"),
            "--deny 2001:db8::/129: the prefix length must be 0-128 for an IPv6 network");
  // A mapped address counts its prefix in IPv6 bits, as written.
  EXPECT_EQ(cidr_error("::ffff:10.0.0.0/129"),
            "--allow ::ffff:10.0.0.0/129: the prefix length must be 0-128 for an IPv6 network");
  EXPECT_EQ(cidr_error("10.0.0.0/99999999999999999999"),
            "--allow 10.0.0.0/99999999999999999999: the prefix length must be 0-32 for an IPv4 "
            "network");
}

TEST(ParseCidr, PrefixNotANumber) {
  for (const char* bad : {"10.0.0.0/", "10.0.0.0/x", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8 ",
                          "10.0.0.0/ 8", "10.0.0.0/8/8", "10.0.0.0/0x8"}) {
    const std::string e = cidr_error(bad);
    EXPECT_NE(e.find("--allow " + std::string(bad) + ": "), std::string::npos) << e;
    EXPECT_NE(e.find("the prefix length must be 0-32 for an IPv4 network"), std::string::npos) << e;
  }
}

TEST(ParseCidr, NotAnAddress) {
  EXPECT_EQ(cidr_error("foo", "--deny"),
            "--deny foo: not an IP address or CIDR network (e.g. 192.0.2.0/24 or 2001:db8::/32)");
  for (const char* bad : {"foo/8", "/8", "10.0.0/8", "10.0.0.0.0/8", "example.com", "fe80::1%eth0",
                          "[2001:db8::]/32", " 10.0.0.0/8"}) {
    const std::string e = cidr_error(bad);
    EXPECT_NE(e.find("--allow " + std::string(bad) + ": not an IP address or CIDR network"),
              std::string::npos)
        << e;
  }
}

TEST(ParseCidr, Empty) {
  EXPECT_EQ(cidr_error(""),
            "--allow needs an IP address or CIDR network (e.g. 192.0.2.0/24 or 2001:db8::/32)");
}

TEST(ParseCidr, HostBitsSuggestTheNetwork) {
  EXPECT_EQ(cidr_error("10.1.2.3/8"),
            "--allow 10.1.2.3/8: the address has bits set below its /8 prefix — did you mean "
            "10.0.0.0/8?");
  EXPECT_EQ(cidr_error("192.0.2.130/25", "--deny"),
            "--deny 192.0.2.130/25: the address has bits set below its /25 prefix — did you mean "
            "192.0.2.128/25?");
  EXPECT_EQ(cidr_error("2001:db8::1/64"),
            "--allow 2001:db8::1/64: the address has bits set below its /64 prefix — did you "
            "mean 2001:db8::/64?");
  EXPECT_EQ(cidr_error("1.2.3.4/0"),
            "--allow 1.2.3.4/0: the address has bits set below its /0 prefix — did you mean "
            "0.0.0.0/0?");
}

// --- contains ---------------------------------------------------------------

TEST(Contains, V4) {
  const Cidr eight = parse_cidr("10.0.0.0/8", "--allow");
  EXPECT_TRUE(eight.contains(ip("10.0.0.0")));
  EXPECT_TRUE(eight.contains(ip("10.255.255.255")));
  EXPECT_FALSE(eight.contains(ip("11.0.0.0")));
  EXPECT_FALSE(eight.contains(ip("9.255.255.255")));

  const Cidr host = parse_cidr("192.0.2.1", "--allow");
  EXPECT_TRUE(host.contains(ip("192.0.2.1")));
  EXPECT_FALSE(host.contains(ip("192.0.2.0")));
  EXPECT_FALSE(host.contains(ip("192.0.2.2")));

  const Cidr all = parse_cidr("0.0.0.0/0", "--allow");
  EXPECT_TRUE(all.contains(ip("0.0.0.0")));
  EXPECT_TRUE(all.contains(ip("255.255.255.255")));
}

TEST(Contains, PrefixOffAByteBoundary) {
  const Cidr c = parse_cidr("172.16.0.0/12", "--allow");
  EXPECT_TRUE(c.contains(ip("172.31.255.255")));
  EXPECT_FALSE(c.contains(ip("172.32.0.0")));
  EXPECT_FALSE(c.contains(ip("172.15.255.255")));
}

TEST(Contains, V6) {
  const Cidr c = parse_cidr("2001:db8:1:2::/64", "--allow");
  EXPECT_TRUE(c.contains(ip("2001:db8:1:2::1")));
  EXPECT_TRUE(c.contains(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")));
  EXPECT_FALSE(c.contains(ip("2001:db8:1:3::1")));
  EXPECT_FALSE(c.contains(ip("2001:db8:1:1:ffff:ffff:ffff:ffff")));
  const Cidr odd = parse_cidr("2001:db8::/33", "--allow");
  EXPECT_TRUE(odd.contains(ip("2001:db8:7fff::1")));
  EXPECT_FALSE(odd.contains(ip("2001:db8:8000::1")));
}

TEST(Contains, FamiliesDoNotMix) {
  const Cidr all_v4 = parse_cidr("0.0.0.0/0", "--allow");
  EXPECT_FALSE(all_v4.contains(ip("2001:db8::1")));
  EXPECT_FALSE(all_v4.contains(ip("::1")));
  // Its last four bytes are 10.1.2.3, but it is no IPv4 address.
  EXPECT_FALSE(parse_cidr("10.0.0.0/8", "--allow").contains(ip("::10.1.2.3")));

  const Cidr all_v6 = parse_cidr("::/0", "--allow");
  EXPECT_FALSE(all_v6.contains(ip("10.1.2.3")));
  EXPECT_FALSE(all_v6.contains(ip("::ffff:10.1.2.3")));
  EXPECT_TRUE(all_v6.contains(ip("::10.1.2.3")));

  // Written mapped, a rule is an IPv4 one and matches IPv4 peers.
  EXPECT_TRUE(parse_cidr("::ffff:10.0.0.0/104", "--allow").contains(ip("10.1.2.3")));
}

// --- refusal ---------------------------------------------------------------

AccessLists lists(std::vector<std::string> allow, std::vector<std::string> deny) {
  AccessLists l;
  for (const auto& a : allow) l.allow.push_back(parse_cidr(a, "--allow"));
  for (const auto& d : deny) l.deny.push_back(parse_cidr(d, "--deny"));
  return l;
}

TEST(Refusal, EmptyListsAdmitEveryone) {
  EXPECT_EQ(refusal({}, ip("192.0.2.7")), "");
  EXPECT_EQ(refusal({}, ip("2001:db8::1")), "");
}

TEST(Refusal, OutsideTheAllowList) {
  const auto l = lists({"10.0.0.0/8"}, {});
  EXPECT_EQ(refusal(l, ip("10.9.9.9")), "");
  EXPECT_EQ(refusal(l, ip("192.0.2.7")),
            "your address 192.0.2.7 is not allowed on this server (it is outside --allow "
            "10.0.0.0/8)");
  EXPECT_EQ(refusal(l, ip("2001:db8::1")),
            "your address 2001:db8::1 is not allowed on this server (it is outside --allow "
            "10.0.0.0/8)");
}

TEST(Refusal, AllowListsOfSeveralNetworks) {
  EXPECT_EQ(refusal(lists({"10.0.0.0/8", "2001:db8::/32"}, {}), ip("192.0.2.7")),
            "your address 192.0.2.7 is not allowed on this server (it is outside --allow "
            "10.0.0.0/8 and 2001:db8::/32)");
  EXPECT_EQ(refusal(lists({"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"}, {}), ip("192.0.2.7")),
            "your address 192.0.2.7 is not allowed on this server (it is outside --allow "
            "10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16)");
  EXPECT_EQ(refusal(lists({"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1", "fd00::/8"}, {}),
                    ip("192.0.2.7")),
            "your address 192.0.2.7 is not allowed on this server (it is outside --allow "
            "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 and 2 more)");
  EXPECT_EQ(refusal(lists({"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fd00::/8"}, {}),
                    ip("fd00::1")),
            "");
}

TEST(Refusal, DenyWinsOverAllow) {
  const auto l = lists({"10.0.0.0/8"}, {"10.1.0.0/16"});
  EXPECT_EQ(refusal(l, ip("10.2.0.1")), "");
  EXPECT_EQ(refusal(l, ip("10.1.1.1")),
            "your address 10.1.1.1 is refused by this server (--deny 10.1.0.0/16)");
}

TEST(Refusal, DenyAloneRefusesOnlyItself) {
  const auto l = lists({}, {"192.0.2.7", "2001:db8::/32"});
  EXPECT_EQ(refusal(l, ip("192.0.2.8")), "");
  EXPECT_EQ(refusal(l, ip("192.0.2.7")),
            "your address 192.0.2.7 is refused by this server (--deny 192.0.2.7)");
  EXPECT_EQ(refusal(l, ip("2001:db8:5::1")),
            "your address 2001:db8:5::1 is refused by this server (--deny 2001:db8::/32)");
  EXPECT_EQ(refusal(l, ip("2001:db9::1")), "");
}

// --- SourceLimits ---------------------------------------------------------------

TEST(SourceLimits, ConcurrentLimitPerAddress) {
  SourceLimits limits(2, 0);
  const IpAddr a = ip("192.0.2.7"), b = ip("192.0.2.8");
  EXPECT_EQ(limits.take(a, kT0), "");
  EXPECT_EQ(limits.take(a, kT0), "");
  EXPECT_EQ(limits.take(a, kT0),
            "192.0.2.7 already runs 2 tests on this server (limit 2 at once per address) — wait "
            "for one to end");
  EXPECT_EQ(limits.take(b, kT0), "");
  limits.release(a);
  EXPECT_EQ(limits.take(a, kT0), "");
  EXPECT_NE(limits.take(a, kT0), "");
}

TEST(SourceLimits, OneAtATimeSaysOneTest) {
  SourceLimits limits(1, 0);
  EXPECT_EQ(limits.take(ip("192.0.2.7"), kT0), "");
  EXPECT_EQ(limits.take(ip("192.0.2.7"), kT0),
            "192.0.2.7 already runs 1 test on this server (limit 1 at once per address) — wait "
            "for one to end");
}

TEST(SourceLimits, MappedAndPlainV4AreOneSource) {
  SourceLimits limits(1, 0);
  EXPECT_EQ(limits.take(ip("10.1.2.3"), kT0), "");
  EXPECT_NE(limits.take(ip("::ffff:10.1.2.3"), kT0), "");
}

TEST(SourceLimits, V6CountsByTheSlash64) {
  SourceLimits limits(2, 0);
  EXPECT_EQ(limits.take(ip("2001:db8:1:2::1"), kT0), "");
  EXPECT_EQ(limits.take(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), kT0), "");
  EXPECT_EQ(limits.take(ip("2001:db8:1:2::99"), kT0),
            "2001:db8:1:2::/64 already runs 2 tests on this server (limit 2 at once per address; "
            "an IPv6 /64 counts as one) — wait for one to end");
  EXPECT_EQ(limits.take(ip("2001:db8:1:3::1"), kT0), "");
  limits.release(ip("2001:db8:1:2::5"));
  EXPECT_EQ(limits.take(ip("2001:db8:1:2::99"), kT0), "");
  EXPECT_EQ(limits.tracked_sources(), 2u);
}

TEST(SourceLimits, PerMinuteWindow) {
  SourceLimits limits(0, 10);
  const IpAddr a = ip("192.0.2.7");
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(limits.take(a, kT0), "") << i;
    limits.release(a);
  }
  const std::string full_in_23 =
      "192.0.2.7 started 10 tests in the last minute (limit 10 per minute per address) — try "
      "again in 23 s";
  EXPECT_NE(limits.take(a, kT0), "");
  EXPECT_EQ(limits.take(a, kT0 + 37s), full_in_23);
  EXPECT_EQ(limits.take(a, kT0 + 37s + 500ms), full_in_23);  // 22.5 s rounds up
  EXPECT_NE(limits.take(a, kT0 + 59s + 999ms).find("try again in 1 s"), std::string::npos);
  EXPECT_EQ(limits.take(ip("192.0.2.8"), kT0 + 37s), "");
  EXPECT_EQ(limits.take(a, kT0 + 61s), "");
}

TEST(SourceLimits, PerMinuteWindowSlides) {
  SourceLimits limits(0, 2);
  const IpAddr a = ip("2001:db8::1");
  EXPECT_EQ(limits.take(a, kT0), "");
  EXPECT_EQ(limits.take(a, kT0 + 30s), "");
  EXPECT_EQ(limits.take(a, kT0 + 59s),
            "2001:db8::/64 started 2 tests in the last minute (limit 2 per minute per address; an "
            "IPv6 /64 counts as one) — try again in 1 s");
  EXPECT_EQ(limits.take(a, kT0 + 60s), "");  // the start at kT0 has left the window
  EXPECT_NE(limits.take(a, kT0 + 61s).find("try again in 29 s"), std::string::npos);
  EXPECT_EQ(limits.take(a, kT0 + 90s), "");
  EXPECT_NE(limits.take(a, kT0 + 90s).find("try again in 30 s"), std::string::npos);
}

TEST(SourceLimits, RefusedTakesCountForNothing) {
  SourceLimits limits(1, 2);
  const IpAddr a = ip("192.0.2.7");
  EXPECT_EQ(limits.take(a, kT0), "");
  for (int i = 0; i < 5; ++i) EXPECT_NE(limits.take(a, kT0 + 1s), "");
  limits.release(a);
  EXPECT_EQ(limits.take(a, kT0 + 2s), "");
}

TEST(SourceLimits, ZeroIsUnlimited) {
  SourceLimits none(0, 0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(none.take(ip("192.0.2.7"), kT0), "");
  EXPECT_EQ(none.tracked_sources(), 0u);

  SourceLimits per_minute_only(0, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(per_minute_only.take(ip("192.0.2.7"), kT0), "");
  EXPECT_NE(per_minute_only.take(ip("192.0.2.7"), kT0), "");

  SourceLimits at_once_only(3, 0);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(at_once_only.take(ip("192.0.2.7"), kT0 + i * 1ms), "");
    at_once_only.release(ip("192.0.2.7"));
  }
}

TEST(SourceLimits, ReleaseWithoutTakeIsIgnored) {
  SourceLimits limits(1, 0);
  const IpAddr a = ip("192.0.2.7");
  limits.release(a);
  EXPECT_EQ(limits.take(a, kT0), "");
  limits.release(a);
  limits.release(a);
  EXPECT_EQ(limits.take(a, kT0), "");
  EXPECT_NE(limits.take(a, kT0), "");
}

TEST(SourceLimits, ManySourcesAreForgotten) {
  SourceLimits limits(2, 10);
  for (uint32_t i = 0; i < 100'000; ++i) {
    IpAddr a = ip("10.0.0.0");
    a.bytes[13] = static_cast<uint8_t>(i >> 16);
    a.bytes[14] = static_cast<uint8_t>(i >> 8);
    a.bytes[15] = static_cast<uint8_t>(i);
    ASSERT_EQ(limits.take(a, kT0 + i * 100us), "");
    limits.release(a);
  }
  EXPECT_EQ(limits.tracked_sources(), 100'000u);
  EXPECT_EQ(limits.take(ip("192.0.2.7"), kT0 + 2min), "");
  EXPECT_LE(limits.tracked_sources(), 2u);
}

TEST(SourceLimits, ManyV6SourcesAreForgotten) {
  SourceLimits limits(1, 0);
  for (uint32_t i = 0; i < 20'000; ++i) {
    IpAddr a = ip("2001:db8::1");
    a.bytes[6] = static_cast<uint8_t>(i >> 8);
    a.bytes[7] = static_cast<uint8_t>(i);
    ASSERT_EQ(limits.take(a, kT0), "");
    limits.release(a);
  }
  EXPECT_EQ(limits.tracked_sources(), 20'000u);
  EXPECT_EQ(limits.take(ip("192.0.2.7"), kT0 + 2min), "");
  EXPECT_EQ(limits.tracked_sources(), 1u);
}

TEST(SourceLimits, ForgettingKeepsRunningAndRecentSources) {
  SourceLimits limits(1, 1);
  const IpAddr running = ip("192.0.2.1"), recent = ip("192.0.2.2");
  EXPECT_EQ(limits.take(running, kT0), "");  // never released
  EXPECT_EQ(limits.take(recent, kT0 + 90s), "");
  limits.release(recent);
  // Both of these sweep, when `running` started over a minute ago but still
  // runs and `recent` started under a minute ago: neither may be forgotten.
  EXPECT_EQ(limits.take(ip("192.0.2.3"), kT0 + 120s), "");
  EXPECT_EQ(limits.take(ip("192.0.2.4"), kT0 + 140s), "");
  EXPECT_NE(limits.take(running, kT0 + 140s).find("already runs 1 test"), std::string::npos);
  EXPECT_NE(limits.take(recent, kT0 + 140s).find("try again in 10 s"), std::string::npos);
  EXPECT_EQ(limits.take(recent, kT0 + 150s), "");
}

TEST(SourceLimits, ThreadsLoseNoCounts) {
  constexpr uint32_t kLimit = 3;
  SourceLimits limits(kLimit, 1'000'000);
  const std::vector<IpAddr> peers = {ip("192.0.2.1"), ip("192.0.2.2"), ip("2001:db8::1"),
                                     ip("2001:db8::2")};
  const size_t group[] = {0, 1, 2, 2};  // the last two share a /64
  // Tests each source holds by the threads' own count: never over the limit.
  std::atomic<uint32_t> holding[3] = {0, 0, 0};
  std::atomic<uint64_t> granted{0}, over{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10'000; ++i) {
        const size_t k = (i + t) % peers.size();
        if (!limits.take(peers[k], Clock::now()).empty()) continue;
        granted.fetch_add(1, std::memory_order_relaxed);
        if (holding[group[k]].fetch_add(1) + 1 > kLimit) over.fetch_add(1);
        holding[group[k]].fetch_sub(1);
        limits.release(peers[k]);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_GT(granted.load(), 0u);
  EXPECT_EQ(over.load(), 0u);
  for (const IpAddr& p : {peers[0], peers[1], peers[2]}) {
    for (uint32_t i = 0; i < kLimit; ++i) EXPECT_EQ(limits.take(p, Clock::now()), "") << i;
    EXPECT_NE(limits.take(p, Clock::now()).find("already runs 3 tests"), std::string::npos);
  }
}

// --- SourceTicket ---------------------------------------------------------------

TEST(SourceTicket, ReleasesWhenItGoes) {
  SourceLimits limits(1, 0);
  const IpAddr a = ip("192.0.2.7");
  {
    ASSERT_EQ(limits.take(a, kT0), "");
    SourceTicket ticket(&limits, a);
    EXPECT_TRUE(ticket.held());
    EXPECT_NE(limits.take(a, kT0), "");
  }
  EXPECT_EQ(limits.take(a, kT0), "");
}

TEST(SourceTicket, MovesOnce) {
  SourceLimits limits(1, 0);
  const IpAddr a = ip("192.0.2.7"), b = ip("192.0.2.8");
  ASSERT_EQ(limits.take(a, kT0), "");
  SourceTicket first(&limits, a);
  SourceTicket second(std::move(first));
  EXPECT_FALSE(first.held());  // NOLINT(bugprone-use-after-move): that is the point
  EXPECT_TRUE(second.held());
  first.reset();
  EXPECT_NE(limits.take(a, kT0), "");  // still held, by second

  ASSERT_EQ(limits.take(b, kT0), "");
  SourceTicket third(&limits, b);
  third = std::move(second);  // releases b's test, takes over a's
  EXPECT_EQ(limits.take(b, kT0), "");
  EXPECT_NE(limits.take(a, kT0), "");
  third.reset();
  EXPECT_FALSE(third.held());
  EXPECT_EQ(limits.take(a, kT0), "");
}

TEST(SourceTicket, DefaultHoldsNothing) {
  SourceTicket t;
  EXPECT_FALSE(t.held());
  t.reset();
}

// --- AuthFailures -------------------------------------------------------------

TEST(AuthFailures, TenFailuresInAMinuteShutTheDoorUntilTheOldestIsAMinuteOld) {
  AuthFailures f;
  const IpAddr a = ip("192.0.2.7"), b = ip("192.0.2.8");
  for (int i = 0; i < 9; ++i) f.failed(a, kT0 + std::chrono::seconds(i));
  EXPECT_EQ(f.refusal(a, kT0 + 10s), "");
  f.failed(a, kT0 + 10s);
  EXPECT_EQ(f.refusal(a, kT0 + 11s),
            "192.0.2.7 failed to authenticate 10 times in the last minute: refused for 49 s more");
  EXPECT_EQ(f.refusal(b, kT0 + 11s), "") << "another address is not held to it";
  // The first failure (at kT0) leaves the window at kT0 + 60 s: nine remain.
  EXPECT_NE(f.refusal(a, kT0 + 59s), "");
  EXPECT_EQ(f.refusal(a, kT0 + 60s), "");
  // Past all of them, the source is forgotten.
  EXPECT_EQ(f.refusal(a, kT0 + 200s), "");
  EXPECT_EQ(f.tracked_sources(), 0u);
}

TEST(AuthFailures, AnIpv6SourceCountsByItsSlash64) {
  AuthFailures f;
  for (int i = 0; i < 10; ++i) f.failed(ip("2001:db8:1:2::" + std::to_string(i + 1)), kT0);
  EXPECT_NE(f.refusal(ip("2001:db8:1:2::ffff"), kT0 + 1s), "");
  EXPECT_EQ(f.refusal(ip("2001:db8:1:3::1"), kT0 + 1s), "");
}

TEST(AuthFailures, RemembersABoundedNumberOfSources) {
  AuthFailures f;
  for (uint32_t i = 0; i < AuthFailures::kMaxSources + 100; ++i) {
    IpAddr a = ip("10.0.0.0");
    a.bytes[13] = static_cast<uint8_t>(i >> 16);
    a.bytes[14] = static_cast<uint8_t>(i >> 8);
    a.bytes[15] = static_cast<uint8_t>(i);
    f.failed(a, kT0 + std::chrono::milliseconds(i));
  }
  EXPECT_EQ(f.tracked_sources(), AuthFailures::kMaxSources);
}

}  // namespace
}  // namespace flowperf::session
