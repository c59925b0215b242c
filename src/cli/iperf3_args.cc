#include "cli/iperf3_args.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <variant>

#include "cli/iperf3_values.h"
#include "core/suggest.h"
#include "core/version.h"

namespace flowperf::cli {
namespace {

using namespace iperf3_values;

// 3.12's limits (iperf.h), the ones its messages name.
constexpr long long kMaxTime = 86400;                  // -t, --idle-timeout
constexpr int kMaxStreams = 128;                       // -P
constexpr uint64_t kMaxBlockSize = 1024 * 1024;        // -l
constexpr uint64_t kMinUdpBlockSize = 16;              // -u -l
constexpr uint64_t kMaxUdpBlockSize = 65535 - 8 - 20;  // -u -l
constexpr double kMaxBuffer = 512.0 * 1024 * 1024;     // -w
constexpr long long kMaxMss = 9 * 1024;                // -M
constexpr long long kMaxBurst = 1000;                  // -b rate/N
constexpr long long kMaxOmit = 60;                     // -O
constexpr long long kMinRcvTimeoutMs = 100;            // --rcv-timeout
constexpr uint64_t kUdpDefaultRate = 1024 * 1024;      // -u without -b
constexpr long long kMaxAffinity = 1024;               // -A

// ---- The option table ------------------------------------------------------

enum class Arg { kNone, kRequired, kOptional };

enum class Id {
  // Both ends
  kPort,
  kFormat,
  kInterval,
  kPidfile,
  kFile,
  kAffinity,
  kBind,
  kBindDev,
  kVerbose,
  kJson,
  kJsonStream,
  kLogfile,
  kForceflush,
  kTimestamps,
  kRcvTimeout,
  kSndTimeout,
  kDebug,
  kVersion,
  kHelp,
  kVersion4,
  kVersion6,
  kJsonStreamFullOutput,
  kCntlKa,
  kMptcp,
  // Server
  kServer,
  kDaemon,
  kOneOff,
  kServerBitrateLimit,
  kIdleTimeout,
  kRsaPrivateKey,
  kAuthorizedUsers,
  kTimeSkew,
  kMaxTests,
  kOneAtATime,
  kServerMaxDuration,
  // Client
  kClient,
  kSctp,
  kXbind,
  kNstreams,
  kUdp,
  kConnectTimeout,
  kBitrate,
  kPacingTimer,
  kFqRate,
  kNoFqPacing,
  kTime,
  kBytes,
  kBlockcount,
  kLength,
  kCport,
  kParallel,
  kReverse,
  kBidir,
  kWindow,
  kCongestion,
  kMss,
  kNodelay,
  kTos,
  kDscp,
  kFlowlabel,
  kZerocopy,
  kOmit,
  kTitle,
  kExtraData,
  kGetServerOutput,
  kUdpCounters64,
  kRepeatingPayload,
  kDontFragment,
  kUsername,
  kRsaPublicKey,
  kUsePkcs1Padding,
  kSkipRxCopy,
  kGsro,
};

struct Option {
  char short_name;        // 0: long only
  const char* long_name;  // nullptr: short only
  Arg arg;
  Id id;
};

// 3.12's options (getopt string "p:f:i:D1VJvsc:ub:t:n:k:l:P:Rw:B:M:N46S:L:ZO:F:A:T:C:dI:hX:"
// and its long options), the ones added up to 3.21 (--json-stream, -m, --cntl-ka,
// --json-stream-full-output, --server-max-duration, --skip-rx-copy, --gsro), and flowperf's own
// two server options.
constexpr Option kOptions[] = {
    {'p', "port", Arg::kRequired, Id::kPort},
    {'f', "format", Arg::kRequired, Id::kFormat},
    {'i', "interval", Arg::kRequired, Id::kInterval},
    {'I', "pidfile", Arg::kRequired, Id::kPidfile},
    {'F', "file", Arg::kRequired, Id::kFile},
    {'A', "affinity", Arg::kRequired, Id::kAffinity},
    {'B', "bind", Arg::kRequired, Id::kBind},
    {0, "bind-dev", Arg::kRequired, Id::kBindDev},
    {'V', "verbose", Arg::kNone, Id::kVerbose},
    {'J', "json", Arg::kNone, Id::kJson},
    {0, "json-stream", Arg::kNone, Id::kJsonStream},
    {0, "json-stream-full-output", Arg::kNone, Id::kJsonStreamFullOutput},
    {0, "cntl-ka", Arg::kOptional, Id::kCntlKa},
    {'m', "mptcp", Arg::kNone, Id::kMptcp},
    {0, "logfile", Arg::kRequired, Id::kLogfile},
    {0, "forceflush", Arg::kNone, Id::kForceflush},
    {0, "timestamps", Arg::kOptional, Id::kTimestamps},
    {0, "rcv-timeout", Arg::kRequired, Id::kRcvTimeout},
    {0, "snd-timeout", Arg::kRequired, Id::kSndTimeout},
    {'d', "debug", Arg::kOptional, Id::kDebug},
    {'v', "version", Arg::kNone, Id::kVersion},
    {'h', "help", Arg::kNone, Id::kHelp},
    {'4', "version4", Arg::kNone, Id::kVersion4},
    {'6', "version6", Arg::kNone, Id::kVersion6},
    {'s', "server", Arg::kNone, Id::kServer},
    {'D', "daemon", Arg::kNone, Id::kDaemon},
    {'1', "one-off", Arg::kNone, Id::kOneOff},
    {0, "server-bitrate-limit", Arg::kRequired, Id::kServerBitrateLimit},
    {0, "idle-timeout", Arg::kRequired, Id::kIdleTimeout},
    {0, "rsa-private-key-path", Arg::kRequired, Id::kRsaPrivateKey},
    {0, "authorized-users-path", Arg::kRequired, Id::kAuthorizedUsers},
    {0, "time-skew-threshold", Arg::kRequired, Id::kTimeSkew},
    {0, "use-pkcs1-padding", Arg::kNone, Id::kUsePkcs1Padding},
    {0, "max-tests", Arg::kRequired, Id::kMaxTests},
    {0, "one-at-a-time", Arg::kNone, Id::kOneAtATime},
    {0, "server-max-duration", Arg::kRequired, Id::kServerMaxDuration},
    {'c', "client", Arg::kRequired, Id::kClient},
    {0, "sctp", Arg::kNone, Id::kSctp},
    {'X', "xbind", Arg::kRequired, Id::kXbind},
    {0, "nstreams", Arg::kRequired, Id::kNstreams},
    {'u', "udp", Arg::kNone, Id::kUdp},
    {0, "connect-timeout", Arg::kRequired, Id::kConnectTimeout},
    {'b', "bitrate", Arg::kRequired, Id::kBitrate},
    {0, "bandwidth", Arg::kRequired, Id::kBitrate},
    {0, "pacing-timer", Arg::kRequired, Id::kPacingTimer},
    {0, "fq-rate", Arg::kRequired, Id::kFqRate},
    {0, "no-fq-socket-pacing", Arg::kNone, Id::kNoFqPacing},
    {'t', "time", Arg::kRequired, Id::kTime},
    {'n', "bytes", Arg::kRequired, Id::kBytes},
    {'k', "blockcount", Arg::kRequired, Id::kBlockcount},
    {'l', "length", Arg::kRequired, Id::kLength},
    {0, "cport", Arg::kRequired, Id::kCport},
    {'P', "parallel", Arg::kRequired, Id::kParallel},
    {'R', "reverse", Arg::kNone, Id::kReverse},
    {0, "bidir", Arg::kNone, Id::kBidir},
    {'w', "window", Arg::kRequired, Id::kWindow},
    {'C', "congestion", Arg::kRequired, Id::kCongestion},
    {0, "linux-congestion", Arg::kRequired, Id::kCongestion},
    {'M', "set-mss", Arg::kRequired, Id::kMss},
    {'N', "no-delay", Arg::kNone, Id::kNodelay},
    {'S', "tos", Arg::kRequired, Id::kTos},
    {0, "dscp", Arg::kRequired, Id::kDscp},
    {'L', "flowlabel", Arg::kRequired, Id::kFlowlabel},
    {'Z', "zerocopy", Arg::kNone, Id::kZerocopy},
    {'O', "omit", Arg::kRequired, Id::kOmit},
    {'T', "title", Arg::kRequired, Id::kTitle},
    {0, "extra-data", Arg::kRequired, Id::kExtraData},
    {0, "get-server-output", Arg::kNone, Id::kGetServerOutput},
    {0, "udp-counters-64bit", Arg::kNone, Id::kUdpCounters64},
    {0, "repeating-payload", Arg::kNone, Id::kRepeatingPayload},
    {0, "dont-fragment", Arg::kNone, Id::kDontFragment},
    {0, "username", Arg::kRequired, Id::kUsername},
    {0, "rsa-public-key-path", Arg::kRequired, Id::kRsaPublicKey},
    {0, "skip-rx-copy", Arg::kNone, Id::kSkipRxCopy},
    {0, "gsro", Arg::kNone, Id::kGsro},
};

const Option* find_short(char c) {
  for (const auto& o : kOptions)
    if (o.short_name != 0 && o.short_name == c) return &o;
  return nullptr;
}

// ---- Results ---------------------------------------------------------------

Iperf3Parse fail(std::string out, std::string err) {
  Iperf3Parse p;
  p.out = std::move(out);
  p.err = std::move(err);
  p.exit_code = 1;
  return p;
}

// getopt's complaint: the message, then the usage text, on stderr.
Iperf3Parse usage_failure(const std::string& what) {
  return fail("", "iperf3: " + what + "\n" + iperf3_usage());
}

// 3.12's main(): "parameter error - ..." and an empty line on stderr, the
// usage text on stdout.
Iperf3Parse parameter_error(const std::string& what) {
  return fail(iperf3_usage(), "iperf3: parameter error - " + what + "\n\n");
}

// An option flowperf parses but does not honour: one line saying why.
Iperf3Parse refusal(const std::string& what) {
  return fail("", "iperf3: parameter error - " + what + "\n");
}

std::string version_text() {
  std::string text = std::string("iperf 3.12 (flowperf ") + kVersion +
                     "): flowperf's iperf3 personality, speaking iperf3 3.12's command line and "
                     "protocol\n";
  struct utsname u {};
  if (::uname(&u) == 0) {
    text += std::string(u.sysname) + " " + u.nodename + " " + u.release + " " + u.version + " " +
            u.machine + "\n";
  }
  return text;
}

// Why --sctp cannot run: the kernel lacks SCTP, or flowperf does.
std::string sctp_refusal(const std::string& shown) {
  int fd = ::socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
  if (fd < 0) {
    int err = errno;
    return shown + ": SCTP is not available in this kernel (socket(AF_INET, SOCK_STREAM, " +
           "IPPROTO_SCTP): " + std::strerror(err) + "); run the test over TCP or UDP (-u)";
  }
  ::close(fd);
  return shown +
         ": this kernel has SCTP, but flowperf's iperf3 personality does not run SCTP tests; "
         "run the test over TCP or UDP (-u)";
}

// "host%dev": the address and the device, or no device. An IPv6 link-local
// literal keeps its "%scope" (3.12's iperf_parse_hostname does the same).
bool names_device(const std::string& spec) {
  auto at = spec.find('%');
  if (at == std::string::npos || at + 1 >= spec.size() || at == 0) return false;
  in6_addr a6{};
  std::string host = spec.substr(0, at);
  if (::inet_pton(AF_INET6, host.c_str(), &a6) == 1 && IN6_IS_ADDR_LINKLOCAL(&a6)) return false;
  return true;
}

// ---- The parser --------------------------------------------------------------

class Parser {
 public:
  Iperf3Parse run(const std::vector<std::string>& argv);

 private:
  // Applies one option; a result ends parsing (help, version, an error).
  std::optional<Iperf3Parse> apply(const Option& o, const std::optional<std::string>& value,
                                   const std::string& shown);
  std::optional<Iperf3Parse> finish();

  void refuse(const std::string& why) {
    if (refused_.empty()) refused_ = why;
  }

  Iperf3Args a_;
  bool role_client_ = false, role_server_ = false;
  // 3.12's flags: options only a server or only a client may be given.
  bool server_flag_ = false, client_flag_ = false;
  bool duration_flag_ = false, rcv_timeout_flag_ = false;
  // The authentication options given (an empty value counts, as in 3.12).
  bool private_key_given_ = false, users_given_ = false, username_given_ = false,
       public_key_given_ = false, skew_flag_ = false;
  long long length_ = 0;
  std::string refused_;  // the first refused option's reason
};

std::string bad_value(const std::string& shown, const std::string& value,
                      const std::string& expected) {
  return "invalid value '" + value + "' for " + shown + " (expected " + expected + ")";
}

std::optional<Iperf3Parse> Parser::apply(const Option& o, const std::optional<std::string>& value,
                                         const std::string& shown) {
  const std::string v = value.value_or("");
  auto whole = [&](const char* expected, long long lo, long long hi,
                   const std::string& range_msg) -> std::variant<long long, Iperf3Parse> {
    auto n = parse_int(v);
    if (!n) return parameter_error(bad_value(shown, v, expected));
    if (*n < lo || *n > hi) return parameter_error(range_msg);
    return *n;
  };
  // A size (base 1024) that is not negative and fits 64 bits.
  auto size = [&](const char* expected) -> std::variant<uint64_t, Iperf3Parse> {
    auto d = parse_suffixed(v, 1024.0);
    if (!d || *d < 0 || *d >= 18446744073709551616.0)
      return parameter_error(bad_value(shown, v, expected));
    return static_cast<uint64_t>(*d);
  };
  auto rate = [&](const std::string& text) -> std::optional<uint64_t> {
    auto d = parse_suffixed(text, 1000.0);
    if (!d || *d < 0 || *d >= 18446744073709551616.0) return std::nullopt;
    return static_cast<uint64_t>(*d);
  };
  const std::string port_msg = "port number must be between 1 and 65535 inclusive";

  switch (o.id) {
    case Id::kPort: {
      auto r = whole("a port number", 1, 65535, port_msg);
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.port = static_cast<uint16_t>(std::get<long long>(r));
      break;
    }
    case Id::kFormat: {
      // 3.12 reads the first character only ("-f m" and "-f mbits" alike).
      static constexpr std::string_view kFormats = "kmgtKMGT";
      if (v.empty() || kFormats.find(v[0]) == std::string_view::npos)
        return parameter_error("bad format specifier (valid formats are in the set [kmgtKMGT])");
      a_.format = v[0];
      break;
    }
    case Id::kInterval: {
      auto d = parse_double(v);
      if (!d || *d < 0) return parameter_error(bad_value(shown, v, "a number of seconds"));
      if (*d != 0 && (*d < 0.1 || *d > 60))
        return parameter_error("invalid report interval (min = 0.1, max = 60 seconds)");
      a_.interval_s = *d;
      break;
    }
    case Id::kPidfile:
      a_.pidfile = v;
      break;
    case Id::kFile:
      refuse(shown +
             ": sending or receiving a file is not implemented in flowperf's iperf3 personality");
      break;
    case Id::kAffinity: {
      auto comma = v.find(',');
      auto local = parse_int_base0(v.substr(0, comma));
      std::optional<long long> remote;
      if (comma != std::string::npos) remote = parse_int(v.substr(comma + 1));
      const char* expected = "n or n,m, CPU numbers from 0 to 1024";
      if (!local || *local < 0 || *local > kMaxAffinity)
        return parameter_error(bad_value(shown, v, expected));
      if (comma != std::string::npos && (!remote || *remote < 0 || *remote > kMaxAffinity))
        return parameter_error(bad_value(shown, v, expected));
      a_.affinity_local = static_cast<int>(*local);
      if (remote) {
        a_.affinity_remote = static_cast<int>(*remote);
        client_flag_ = true;
      }
      break;
    }
    case Id::kBind:
      if (names_device(v))
        refuse(shown + " " + v +
               ": binding to a device with -B host%dev is not supported; use -B with an address");
      a_.bind_host = v;
      break;
    case Id::kBindDev:
      refuse(shown +
             ": binding to a network device (SO_BINDTODEVICE) is not supported; use -B with an "
             "address");
      break;
    case Id::kVerbose:
      a_.verbose = true;
      break;
    case Id::kJson:
      a_.json = true;
      break;
    case Id::kJsonStream:
      a_.json_stream = true;  // 3.17's line-per-event JSON (the client's; a server refuses it)
      break;
    case Id::kJsonStreamFullOutput:
      a_.json_stream_full_output = true;  // either end; without --json-stream it changes nothing
      break;
    case Id::kCntlKa: {
      // "=IDLE/INTERVAL/COUNT", each part optional ("=30", "=/5", "=//3"):
      // seconds, seconds and probes; an empty or absent part keeps the
      // system's value.
      net::Keepalive k;
      if (value) {
        int* parts[] = {&k.idle_s, &k.interval_s, &k.count};
        std::string rest = v;
        for (int i = 0; i < 3; ++i) {
          const auto slash = rest.find('/');
          const std::string part = rest.substr(0, slash);
          if (!part.empty()) {
            auto n = parse_int(part);
            if (!n || *n < 0 || *n > INT_MAX)
              return parameter_error(bad_value(
                  shown, v, "IDLE/INTERVAL/COUNT, each a whole number or empty (e.g. 30/5/3)"));
            *parts[i] = static_cast<int>(*n);
          }
          if (slash == std::string::npos) {
            rest.clear();
            break;
          }
          rest = rest.substr(slash + 1);
          if (i == 2)
            return parameter_error(
                bad_value(shown, v, "IDLE/INTERVAL/COUNT: at most three parts (e.g. 30/5/3)"));
        }
      }
      // 3.21's check on the values given (the system's fill in the others
      // once the connection is made, and are checked again then).
      if (k.idle_s != 0 &&
          static_cast<long long>(k.idle_s) <= static_cast<long long>(k.interval_s) * k.count)
        return parameter_error(
            "control connection Keepalive period should be larger than the full retry period "
            "(interval * count): ");
      a_.control_keepalive = k;
      break;
    }
    case Id::kMptcp:
      refuse(shown +
             ": MPTCP data connections are not implemented in flowperf's iperf3 personality "
             "yet; run without -m (plain TCP)");
      break;
    case Id::kLogfile:
      a_.logfile = v;
      break;
    case Id::kForceflush:
      a_.forceflush = true;
      break;
    case Id::kTimestamps:
      a_.timestamps = v;  // "" without "=format": iperf3's default format
      break;
    case Id::kRcvTimeout: {
      auto r = whole("a number of milliseconds", kMinRcvTimeoutMs, kMaxTime * 1000,
                     "receive timeout value is incorrect or not in range");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.rcv_timeout_ms = static_cast<int>(std::get<long long>(r));
      rcv_timeout_flag_ = true;
      break;
    }
    case Id::kSndTimeout:
      refuse(shown +
             ": a send timeout (TCP_USER_TIMEOUT) is not implemented in flowperf's "
             "iperf3 personality");
      break;
    case Id::kDebug: {
      if (!value) {
        a_.debug = 4;
        break;
      }
      // "-d=3" (getopt would hand "=3" to atoi) is read as "-d3".
      std::string level = (o.short_name == 'd' && !v.empty() && v[0] == '=') ? v.substr(1) : v;
      auto n = parse_int(level);
      if (!n) return parameter_error(bad_value(shown, v, "a debug level from 1 to 4"));
      a_.debug = *n < 0 ? 4 : static_cast<int>(std::min<long long>(*n, INT_MAX));
      break;
    }
    case Id::kVersion: {
      Iperf3Parse p;
      p.out = version_text();
      return p;
    }
    case Id::kHelp: {
      Iperf3Parse p;
      p.out = iperf3_usage();
      return p;
    }
    case Id::kVersion4:
      a_.family = IpFamily::kV4;
      break;
    case Id::kVersion6:
      a_.family = IpFamily::kV6;
      break;

    case Id::kServer:
      if (role_client_) return parameter_error("cannot be both server and client");
      role_server_ = true;
      a_.mode = Iperf3Args::Mode::kServer;
      break;
    case Id::kDaemon:
      a_.daemon = true;
      server_flag_ = true;
      break;
    case Id::kOneOff:
      a_.one_off = true;
      server_flag_ = true;
      break;
    case Id::kServerMaxDuration: {
      auto r = whole("a number of seconds, 0 to 86400", 0, kMaxTime,
                     "test duration valid values are 0 to 86400 seconds");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.server_max_duration_s = static_cast<int>(std::get<long long>(r));
      server_flag_ = true;
      break;
    }
    case Id::kServerBitrateLimit:
      server_flag_ = true;
      refuse(shown +
             ": a total bitrate limit for the server is not implemented in flowperf's "
             "iperf3 personality");
      break;
    case Id::kIdleTimeout: {
      auto r = whole("a number of seconds", 1, kMaxTime,
                     "idle timeout parameter is not positive or larger than allowed limit");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.idle_timeout_s = static_cast<int>(std::get<long long>(r));
      server_flag_ = true;
      break;
    }
    case Id::kRsaPrivateKey:
      a_.rsa_private_key_path = v;
      private_key_given_ = true;
      break;
    case Id::kAuthorizedUsers:
      a_.authorized_users_path = v;
      users_given_ = true;
      break;
    case Id::kTimeSkew: {
      // 3.12 reads it with atoi and takes only a positive number.
      auto n = parse_int(v);
      if (!n || *n <= 0) return parameter_error("skew threshold must be a positive number");
      a_.time_skew_threshold_s = static_cast<int>(std::min<long long>(*n, INT_MAX));
      skew_flag_ = true;
      break;
    }
    case Id::kUsePkcs1Padding:
      a_.use_pkcs1_padding = true;
      break;
    case Id::kUsername:
      a_.username = v;
      username_given_ = true;
      break;
    case Id::kRsaPublicKey:
      a_.rsa_public_key_path = v;
      public_key_given_ = true;
      break;
    case Id::kMaxTests: {
      auto r = whole("a number of tests, 1 or more", 1, UINT32_MAX,
                     "--max-tests must be between 1 and 4294967295 (tests served at once)");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.max_tests = static_cast<uint32_t>(std::get<long long>(r));
      server_flag_ = true;
      break;
    }
    case Id::kOneAtATime:
      a_.one_at_a_time = true;
      server_flag_ = true;
      break;

    case Id::kClient:
      if (role_server_) return parameter_error("cannot be both server and client");
      role_client_ = true;
      a_.mode = Iperf3Args::Mode::kClient;
      if (names_device(v))
        refuse(shown + " " + v +
               ": binding to a device with -c host%dev is not supported; give the host alone");
      a_.host = v;
      break;
    case Id::kSctp:
    case Id::kNstreams:
      client_flag_ = true;
      refuse(sctp_refusal(shown));
      break;
    case Id::kXbind:
      refuse(shown +
             ": binding SCTP associations is not supported: flowperf's iperf3 "
             "personality does not run SCTP tests");
      break;
    case Id::kUdp:
      a_.udp = true;
      client_flag_ = true;
      break;
    case Id::kConnectTimeout: {
      auto r = size("a number of milliseconds");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      uint64_t ms = std::get<uint64_t>(r);
      if (ms > INT32_MAX) return parameter_error(bad_value(shown, v, "at most 2147483647 ms"));
      a_.connect_timeout_ms = static_cast<int>(ms);
      client_flag_ = true;
      break;
    }
    case Id::kBitrate: {
      auto slash = v.find('/');
      std::string text = v.substr(0, slash);
      if (slash != std::string::npos) {
        auto burst = parse_int(v.substr(slash + 1));
        if (!burst || *burst <= 0 || *burst > kMaxBurst)
          return parameter_error("invalid burst count (maximum = 1000)");
        a_.burst = static_cast<uint32_t>(*burst);
      }
      auto bits = rate(text);
      if (!bits)
        return parameter_error(
            bad_value(shown, v, "bits/s with an optional K, M, G or T and /burst, such as 10M"));
      a_.bitrate = *bits;
      a_.bitrate_given = true;
      client_flag_ = true;
      break;
    }
    case Id::kPacingTimer: {
      auto r = size("a number of microseconds");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      uint64_t us = std::get<uint64_t>(r);
      if (us > UINT32_MAX)
        return parameter_error(bad_value(shown, v, "at most 4294967295 microseconds"));
      a_.pacing_timer_us = static_cast<uint32_t>(us);
      client_flag_ = true;
      break;
    }
    case Id::kFqRate: {
      auto bits = rate(v);
      if (!bits)
        return parameter_error(
            bad_value(shown, v, "bits/s with an optional K, M, G or T, such as 100M"));
      a_.fq_rate = *bits;
      client_flag_ = true;
      break;
    }
    case Id::kNoFqPacing:  // deprecated in 3.12: pacing off
      a_.fq_rate = 0;
      client_flag_ = true;
      break;
    case Id::kTime: {
      auto n = parse_int(v);
      if (!n || *n < 0) return parameter_error(bad_value(shown, v, "a whole number of seconds"));
      if (*n > kMaxTime) return parameter_error("test duration too long (maximum = 86400 seconds)");
      a_.duration_s = static_cast<int>(*n);
      duration_flag_ = true;
      client_flag_ = true;
      break;
    }
    case Id::kBytes: {
      auto r = size("a number of bytes with an optional K, M, G or T");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.bytes = std::get<uint64_t>(r);
      client_flag_ = true;
      break;
    }
    case Id::kBlockcount: {
      auto r = size("a number of blocks with an optional K, M, G or T");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.blocks = std::get<uint64_t>(r);
      client_flag_ = true;
      break;
    }
    case Id::kLength: {
      // Checked after all options: the limit depends on -u (3.12 does the same).
      auto r = size("a number of bytes with an optional K, M, G or T");
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      uint64_t n = std::get<uint64_t>(r);
      length_ =
          n > kMaxBlockSize ? static_cast<long long>(kMaxBlockSize) + 1 : static_cast<long long>(n);
      client_flag_ = true;
      break;
    }
    case Id::kCport: {
      auto r = whole("a port number", 1, 65535, port_msg);
      if (auto* e = std::get_if<Iperf3Parse>(&r)) return *e;
      a_.cport = static_cast<uint16_t>(std::get<long long>(r));
      break;
    }
    case Id::kParallel: {
      auto n = parse_int(v);
      if (!n) return parameter_error(bad_value(shown, v, "a number of streams from 1 to 128"));
      if (*n > kMaxStreams)
        return parameter_error("number of parallel streams too large (maximum = 128)");
      if (*n < 1)
        return parameter_error("number of parallel streams must be at least 1 (-P 1 to -P 128)");
      a_.parallel = static_cast<int>(*n);
      client_flag_ = true;
      break;
    }
    case Id::kReverse:
      if (a_.bidir) return parameter_error("cannot be both reverse and bidirectional");
      a_.reverse = true;
      client_flag_ = true;
      break;
    case Id::kBidir:
      if (a_.reverse) return parameter_error("cannot be both reverse and bidirectional");
      a_.bidir = true;
      client_flag_ = true;
      break;
    case Id::kWindow: {
      auto d = parse_suffixed(v, 1024.0);
      if (!d || *d < 0)
        return parameter_error(
            bad_value(shown, v, "a number of bytes with an optional K, M, G or T"));
      if (*d > kMaxBuffer)
        return parameter_error("socket buffer size too large (maximum = 536870912 bytes)");
      a_.window = static_cast<uint32_t>(*d);
      client_flag_ = true;
      break;
    }
    case Id::kCongestion:
      a_.congestion = v;
      client_flag_ = true;
      break;
    case Id::kMss: {
      auto n = parse_int(v);
      if (!n || *n < 0) return parameter_error(bad_value(shown, v, "a number of bytes"));
      if (*n > kMaxMss) return parameter_error("TCP MSS too large (maximum = 9216 bytes)");
      a_.mss = static_cast<int>(*n);
      client_flag_ = true;
      break;
    }
    case Id::kNodelay:
      a_.nodelay = true;
      client_flag_ = true;
      break;
    case Id::kTos: {
      auto n = parse_int_base0(v);
      if (!n || *n < 0 || *n > 255)
        return parameter_error("bad TOS value (must be between 0 and 255 inclusive)");
      a_.tos = static_cast<int>(*n);
      client_flag_ = true;
      break;
    }
    case Id::kDscp: {
      auto tos = parse_dscp(v);
      if (!tos) return parameter_error("bad TOS value (must be between 0 and 255 inclusive)");
      a_.tos = *tos;
      client_flag_ = true;
      break;
    }
    case Id::kFlowlabel: {
      auto n = parse_int_base0(v);
      if (!n || *n < 1 || *n > 0xFFFFF) return parameter_error("unable to set IPv6 flow label");
      a_.flowlabel = static_cast<int>(*n);
      client_flag_ = true;
      break;
    }
    case Id::kZerocopy:
      a_.zerocopy = true;
      client_flag_ = true;
      break;
    case Id::kOmit: {
      auto n = parse_int(v);
      if (!n) return parameter_error(bad_value(shown, v, "a whole number of seconds, 0 to 60"));
      if (*n < 0 || *n > kMaxOmit) return parameter_error("bogus value for --omit");
      a_.omit_s = static_cast<int>(*n);
      client_flag_ = true;
      break;
    }
    case Id::kTitle:
      a_.title = v;
      client_flag_ = true;
      break;
    case Id::kExtraData:
      a_.extra_data = v;
      client_flag_ = true;
      break;
    case Id::kGetServerOutput:
      a_.get_server_output = true;
      client_flag_ = true;
      break;
    case Id::kUdpCounters64:  // not client-only in 3.12: a server may be told too
      a_.udp_counters_64bit = true;
      break;
    case Id::kRepeatingPayload:
      a_.repeating_payload = true;
      client_flag_ = true;
      break;
    case Id::kDontFragment:
      a_.dont_fragment = true;
      client_flag_ = true;
      break;
    case Id::kSkipRxCopy:
      client_flag_ = true;
      refuse(shown +
             ": receiving with MSG_TRUNC (no copy) is not implemented in flowperf's iperf3 "
             "personality yet; run without it");
      break;
    case Id::kGsro:
      client_flag_ = true;
      refuse(shown +
             ": UDP GSO/GRO for iperf3 tests is not implemented in flowperf's iperf3 personality "
             "yet; run without it");
      break;
  }
  return std::nullopt;
}

// The checks 3.12 makes once every option is read, in its order.
std::optional<Iperf3Parse> Parser::finish() {
  if (role_client_ && server_flag_)
    return parameter_error("some option you are trying to set is server only");
  if (role_server_ && client_flag_)
    return parameter_error("some option you are trying to set is client only");
  // Authentication: each end's two paths go together, and neither end takes
  // the other's.
  const bool private_key = private_key_given_, users = users_given_, username = username_given_,
             public_key = public_key_given_;
  if (role_server_ && (username || public_key))
    return parameter_error("some option you are trying to set is client only");
  if (role_client_ && username != public_key)
    return parameter_error(
        "you must specify a username, password, and path to a valid RSA public key");
  if (role_client_ && (private_key || users || skew_flag_))
    return parameter_error("some option you are trying to set is server only");
  if (role_client_ && rcv_timeout_flag_ && !a_.reverse && !a_.bidir)
    return parameter_error("client receive timeout is valid only in receiving mode");
  if (role_server_ && private_key != users)
    return parameter_error(
        "you must specify a path to a valid RSA private key and a user credential file");
  a_.client_auth = role_client_ && username;
  a_.server_auth = role_server_ && private_key;
  if (a_.use_pkcs1_padding && !a_.client_auth && !a_.server_auth)
    return parameter_error(
        role_client_ ? "--use-pkcs1-padding pads the --username token: give --username and "
                       "--rsa-public-key-path too"
                     : "--use-pkcs1-padding is for the tokens --rsa-private-key-path opens: give "
                       "--rsa-private-key-path and --authorized-users-path too");
  if (length_ > static_cast<long long>(kMaxBlockSize))
    return parameter_error("block size too large (maximum = 1048576 bytes)");
  if (a_.udp && length_ > 0 &&
      (length_ < static_cast<long long>(kMinUdpBlockSize) ||
       length_ > static_cast<long long>(kMaxUdpBlockSize)))
    return parameter_error("block size invalid (minimum = 16 bytes, maximum = 65507 bytes)");
  a_.length = static_cast<uint32_t>(length_);
  if (!a_.bitrate_given) a_.bitrate = a_.udp ? kUdpDefaultRate : 0;
  if ((a_.bytes != 0 || a_.blocks != 0) && !duration_flag_) a_.duration_s = 0;
  if ((duration_flag_ && a_.bytes != 0) || (duration_flag_ && a_.blocks != 0) ||
      (a_.bytes != 0 && a_.blocks != 0))
    return parameter_error("only one test end condition (-t, -n, -k) may be specified");
  if (!role_client_ && !role_server_)
    return parameter_error("must either be a client (-c) or server (-s)");
  return std::nullopt;
}

Iperf3Parse Parser::run(const std::vector<std::string>& argv) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (word == "--") break;                          // the rest are operands, which iperf3 ignores
    if (word.size() < 2 || word[0] != '-') continue;  // operands: ignored, as getopt permutes

    if (word[1] == '-') {  // a long option: exact name, or an unambiguous prefix
      auto eq = word.find('=');
      std::string name = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const Option* found = nullptr;
      std::vector<const Option*> prefixed;
      for (const auto& o : kOptions) {
        if (o.long_name == nullptr) continue;
        std::string_view ln = o.long_name;
        if (ln == name) {
          found = &o;
          break;
        }
        if (ln.substr(0, name.size()) == name) prefixed.push_back(&o);
      }
      if (!found && !prefixed.empty()) {
        bool same = true;  // getopt accepts a prefix of names that all mean one option
        for (const auto* o : prefixed)
          same = same && o->id == prefixed[0]->id && o->arg == prefixed[0]->arg;
        if (same) {
          found = prefixed[0];
        } else {
          std::string what = "option '" + word.substr(0, eq) + "' is ambiguous; possibilities:";
          for (const auto* o : prefixed) what += std::string(" '--") + o->long_name + "'";
          return usage_failure(what);
        }
      }
      if (!found) {
        // getopt's line as iperf3 prints it, then the nearest long option.
        std::vector<std::string> names;
        for (const auto& o : kOptions)
          if (o.long_name != nullptr) names.push_back(std::string("--") + o.long_name);
        const std::string near = core::nearest(word.substr(0, eq), names);
        return usage_failure("unrecognized option '" + word + "'" +
                             (near.empty() ? "" : "\niperf3: did you mean '" + near + "'?"));
      }
      std::string shown = std::string("--") + found->long_name;
      std::optional<std::string> value;
      if (eq != std::string::npos) {
        if (found->arg == Arg::kNone)
          return usage_failure("option '" + shown + "' doesn't allow an argument");
        value = word.substr(eq + 1);
      } else if (found->arg == Arg::kRequired) {
        if (i + 1 >= argv.size())
          return usage_failure("option '" + shown + "' requires an argument");
        value = argv[++i];
      }
      if (auto stop = apply(*found, value, shown)) return *stop;
      continue;
    }

    // Short options, bundled: "-uR", "-t5", "-t 5", "-d3".
    for (size_t j = 1; j < word.size(); ++j) {
      char c = word[j];
      const Option* o = find_short(c);
      if (!o) return usage_failure(std::string("invalid option -- '") + c + "'");
      std::string shown = std::string("-") + c;
      std::optional<std::string> value;
      bool rest_used = false;
      if (o->arg != Arg::kNone) {
        if (j + 1 < word.size()) {
          value = word.substr(j + 1);
          rest_used = true;
        } else if (o->arg == Arg::kRequired) {
          if (i + 1 >= argv.size())
            return usage_failure(std::string("option requires an argument -- '") + c + "'");
          value = argv[++i];
        }
      }
      if (auto stop = apply(*o, value, shown)) return *stop;
      if (rest_used) break;
    }
  }

  if (!refused_.empty()) return refusal(refused_);
  if (auto stop = finish()) return *stop;
  Iperf3Parse p;
  p.args = a_;
  return p;
}

}  // namespace

Iperf3Parse parse_iperf3_args(const std::vector<std::string>& argv) { return Parser().run(argv); }

}  // namespace flowperf::cli
