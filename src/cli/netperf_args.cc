#include "cli/netperf_args.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "core/error.h"
#include "core/suggest.h"
#include "core/units.h"
#include "proto/netperf_wire.h"

namespace flowperf::cli {
namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u;
}

std::string lower(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return u;
}

// The tests this personality runs, by netperf's names: the one list that
// -t, netperf_test_name() and the unknown-test error read.
constexpr std::pair<const char*, NetperfTest> kNetperfTests[] = {
    {"TCP_STREAM", NetperfTest::kTcpStream},
    {"TCP_MAERTS", NetperfTest::kTcpMaerts},
    {"TCP_SENDFILE", NetperfTest::kTcpSendfile},
    {"UDP_STREAM", NetperfTest::kUdpStream},
    {"TCP_RR", NetperfTest::kTcpRr},
    {"TCP_CRR", NetperfTest::kTcpCrr},
    {"TCP_CC", NetperfTest::kTcpCc},
    {"UDP_RR", NetperfTest::kUdpRr},
    {"OMNI", NetperfTest::kOmni},
};

// flowperf's data buffers start on a page boundary (engine::page_buffer).
constexpr uint64_t kPageAlignment = 4096;

Error bad(char opt, std::string_view value, std::string_view why) {
  return usage_error(fmt::format("-{} {}: {}", opt, value, why));
}

// ---- Pairs -------------------------------------------------------------

// Splits "a,b" by netperf's rules. `explicit_pair`: a lone "a" sets only the
// first half; otherwise it sets both.
Pair<std::string> split_pair(std::string_view text, bool explicit_pair, char sep = ',') {
  Pair<std::string> p;
  auto at = text.find(sep);
  if (at == std::string_view::npos) {
    if (!text.empty()) {
      p.first = std::string(text);
      if (!explicit_pair) p.second = std::string(text);
    }
    return p;
  }
  std::string_view a = text.substr(0, at), b = text.substr(at + 1);
  if (!a.empty()) p.first = std::string(a);
  if (!b.empty()) p.second = std::string(b);
  return p;
}

template <typename T, typename F>
Pair<T> convert_pair(const Pair<std::string>& p, F convert) {
  Pair<T> out;
  if (p.first) out.first = convert(*p.first);
  if (p.second) out.second = convert(*p.second);
  return out;
}

template <typename T>
void merge_pair(Pair<T>& into, const Pair<T>& from) {
  if (from.first) into.first = from.first;
  if (from.second) into.second = from.second;
}

// ---- Values --------------------------------------------------------------

std::optional<long long> to_integer(std::string_view s) {
  long long v = 0;
  if (s.empty()) return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string z(s);
  char* end = nullptr;
  double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

int int_value(char opt, std::string_view text, long long lo, long long hi, const char* what) {
  auto v = to_integer(text);
  if (!v || *v < lo || *v > hi) throw bad(opt, text, fmt::format("{} ({} to {})", what, lo, hi));
  return static_cast<int>(*v);
}

// A byte count as netperf's convert() reads it, with flowperf's units:
// "16384", "64B", "16K" (x1024), "16k" (x1000), "1M", "1G".
uint64_t size_value(char opt, std::string_view text) {
  std::string why;
  auto v = core::parse_size(text, &why);
  if (!v) throw bad(opt, text, "not a byte count (" + why + ")");
  return *v;
}

// The form of a test option's sizes, with an example, for its errors.
std::string_view size_form(char opt) {
  switch (opt) {
    case 'r':
      return "the form is REQUEST[,RESPONSE] in bytes, e.g. -r 32,1024 or -r 1K";
    case 'm':
      return "the form is LOCAL[,REMOTE] send size in bytes, e.g. -m 64K";
    case 'M':
      return "the form is REMOTE[,LOCAL] receive size in bytes, e.g. -M 64K";
    default:
      return "the form is SEND[,RECV] socket buffer size in bytes, e.g. -s 128K or -s 64K,256K";
  }
}

// One size of a test option. netperf reads it with atoi(), which stops at
// the first letter that is not a digit, so "32x32" (other tools' REQxRESP
// habit) is 32 to netperf: the same here. When what follows the 'x' is not
// that same size, netperf would still run 32 and say nothing; this says it.
uint64_t test_size_value(char opt, const std::string& text, std::vector<std::string>* warnings) {
  const size_t x = text.find_first_of("xX");
  const std::string left = x == 0 ? text : text.substr(0, x);
  std::string why;
  auto v = core::parse_size(left, &why);
  if (!v) throw bad(opt, text, fmt::format("not a byte count ({}); {}", why, size_form(opt)));
  if (x == std::string::npos || x == 0) return *v;
  const std::string right = text.substr(x + 1);
  auto after = core::parse_size(right, &why);
  if (!after || *after != *v) {
    std::string w = fmt::format(
        "netperf: warning: -{} {} is read as netperf reads it, {} (what follows the '{}' is "
        "ignored); two different values are written with a comma, e.g. -{} {},{}",
        opt, text, *v, text[x], opt, left, right);
    if (std::find(warnings->begin(), warnings->end(), w) == warnings->end())
      warnings->push_back(std::move(w));
  }
  return *v;
}

uint16_t port_value(char opt, std::string_view text, bool zero_ok) {
  auto v = to_integer(text);
  if (!v || *v < (zero_ok ? 0 : 1) || *v > 65535)
    throw bad(opt, text, fmt::format("a port number is {} to 65535", zero_ok ? 0 : 1));
  return static_cast<uint16_t>(*v);
}

// A pair of byte counts netperf reads but this personality does not apply
// (alignments, offsets, ring widths): checked all the same, as netperf's
// convert() would read them into an int.
void check_size_pair(char opt, std::string_view text, std::string_view what) {
  auto p = split_pair(text, false);
  if (!p.first && !p.second) throw bad(opt, text, fmt::format("give {}", what));
  for (const auto& s : {p.first, p.second})
    if (s && size_value(opt, *s) > INT_MAX) throw bad(opt, text, "at most 2147483647 bytes");
}

// -Y: an IP TOS byte as netperf's parse_ipqos() reads it: a number in C
// notation (0x10 hex, 020 octal, 16 decimal) from 0 to 255, or a DSCP or
// TOS name (af11 ... af43, cs0 ... cs7, ef, lowdelay, throughput, reliability).
int tos_value(char opt, std::string_view text) {
  static const std::pair<const char*, int> kNames[] = {
      {"af11", 0x28}, {"af12", 0x30},     {"af13", 0x38},       {"af21", 0x48},
      {"af22", 0x50}, {"af23", 0x58},     {"af31", 0x68},       {"af32", 0x70},
      {"af33", 0x78}, {"af41", 0x88},     {"af42", 0x90},       {"af43", 0x98},
      {"cs0", 0x00},  {"cs1", 0x20},      {"cs2", 0x40},        {"cs3", 0x60},
      {"cs4", 0x80},  {"cs5", 0xa0},      {"cs6", 0xc0},        {"cs7", 0xe0},
      {"ef", 0xb8},   {"lowdelay", 0x10}, {"throughput", 0x08}, {"reliability", 0x04},
  };
  const std::string t = lower(text);
  for (const auto& [name, value] : kNames)
    if (t == name) return value;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(t.c_str(), &end, 0);
  if (t.empty() || end != t.c_str() + t.size() || errno != 0 || v < 0 || v > 255 ||
      !std::isxdigit(static_cast<unsigned char>(t[0])))
    throw bad(opt, text,
              "not an IP TOS: give a number from 0 to 255 (0x10 for hex) or a name such as "
              "lowdelay, throughput, reliability, ef, af11 or cs1");
  return static_cast<int>(v);
}

// -K: a TCP congestion control name, as the kernel takes it (at most 15
// characters: TCP_CA_NAME_MAX is 16 with the NUL).
void congestion_control_value(char opt, std::string_view text) {
  bool ok = !text.empty() && text.size() <= 15;
  for (char c : text)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  if (!ok)
    throw bad(opt, text,
              "not a congestion control name (letters, digits, _ and -, at most 15 characters, "
              "e.g. cubic or bbr)");
}

// netperf's address-family words: anything with a 6 is IPv6, "inet" or a 4
// is IPv4, "unspec" or 0 is either.
IpFamily family_value(char opt, std::string_view text) {
  std::string t = lower(text);
  if (t.find('6') != std::string::npos) return IpFamily::kV6;
  if (t.find("inet") != std::string::npos || t.find('4') != std::string::npos) return IpFamily::kV4;
  if (t.find("unspec") != std::string::npos || t.find('0') != std::string::npos)
    return IpFamily::kAny;
  throw bad(opt, text, "unknown address family (use inet, inet6, 4, 6 or unspec)");
}

// -d: names or numbers, '|' to combine ("send|recv", "rr", "6", "0x2").
int direction_value(std::string_view text) {
  int bits = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t bar = text.find('|', start);
    std::string_view word =
        text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    std::string w = lower(word);
    if (w.empty()) {
      // "send|" — nothing to add
    } else if (w == "xmit" || w == "send" || w == "stream" || w == "transmit") {
      bits |= kNetperfXmit;
    } else if (w == "recv" || w == "receive" || w == "maerts") {
      bits |= kNetperfRecv;
    } else if (w == "rr") {
      bits |= kNetperfXmit | kNetperfRecv;
    } else {
      char* end = nullptr;
      long v = std::strtol(w.c_str(), &end, 0);
      if (end != w.c_str() + w.size() || v < 0 || (v & ~(kNetperfXmit | kNetperfRecv)) != 0)
        throw bad('d', text,
                  "unknown direction (use send, recv, rr, or the bits 2 = send, 4 = receive)");
      bits |= static_cast<int>(v);
    }
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return bits;
}

// ---- A small getopt ----------------------------------------------------

enum class ArgKind {
  kFlag,            // no value
  kValue,           // a value, attached or the next word (which may start with '-')
  kOptionalNumber,  // -c/-C: the next word is its value if it starts with a digit
  kOptionalWord,    // -k/-o/-O: the next word is its value unless it starts with '-'
};

struct Option {
  char letter;
  ArgKind kind;
};

using Handler = std::function<void(char letter, const std::optional<std::string>& value)>;

// Reads argv[from..] like getopt: returns the index after `--` (or argc).
int scan(int argc, const char* const* argv, int from, const std::vector<Option>& options,
         const Handler& handle, std::vector<std::string>* strays, const char* where) {
  auto find = [&](char c) -> const Option* {
    for (const auto& o : options)
      if (o.letter == c) return &o;
    return nullptr;
  };
  int i = from;
  while (i < argc) {
    std::string_view word = argv[i];
    if (word == "--") return i + 1;
    if (word.size() < 2 || word[0] != '-') {
      strays->emplace_back(word);
      ++i;
      continue;
    }
    ++i;
    for (size_t j = 1; j < word.size(); ++j) {
      char c = word[j];
      const Option* o = find(c);
      if (!o)
        throw usage_error(fmt::format(
            "-{}: not a netperf {} option; run `netperf -h` (global) or `netperf -- -h` (test)", c,
            where));
      if (o->kind == ArgKind::kValue) {
        std::optional<std::string> value;
        if (j + 1 < word.size()) {
          value = std::string(word.substr(j + 1));
        } else if (i < argc) {
          value = argv[i++];
        } else {
          throw usage_error(fmt::format("-{}: this option needs a value", c));
        }
        handle(c, value);
        break;
      }
      std::optional<std::string> value;
      const bool last = j + 1 == word.size();
      if (last && i < argc && argv[i][0] != '\0') {
        if (o->kind == ArgKind::kOptionalNumber &&
            std::isdigit(static_cast<unsigned char>(argv[i][0])))
          value = argv[i++];
        else if (o->kind == ArgKind::kOptionalWord && argv[i][0] != '-')
          value = argv[i++];
      }
      handle(c, value);
    }
  }
  return argc;
}

// ---- Global options ----------------------------------------------------

const std::vector<Option>& global_options() {
  static const std::vector<Option> o = {
      {'A', ArgKind::kValue}, {'a', ArgKind::kValue},          {'b', ArgKind::kValue},
      {'B', ArgKind::kValue}, {'C', ArgKind::kOptionalNumber}, {'c', ArgKind::kOptionalNumber},
      {'d', ArgKind::kFlag},  {'D', ArgKind::kValue},          {'f', ArgKind::kValue},
      {'F', ArgKind::kValue}, {'H', ArgKind::kValue},          {'h', ArgKind::kFlag},
      {'i', ArgKind::kValue}, {'I', ArgKind::kValue},          {'j', ArgKind::kFlag},
      {'k', ArgKind::kValue}, {'K', ArgKind::kValue},          {'l', ArgKind::kValue},
      {'L', ArgKind::kValue}, {'n', ArgKind::kValue},          {'N', ArgKind::kFlag},
      {'O', ArgKind::kValue}, {'o', ArgKind::kValue},          {'P', ArgKind::kValue},
      {'p', ArgKind::kValue}, {'r', ArgKind::kFlag},           {'S', ArgKind::kFlag},
      {'s', ArgKind::kValue}, {'t', ArgKind::kValue},          {'T', ArgKind::kValue},
      {'v', ArgKind::kValue}, {'V', ArgKind::kFlag},           {'W', ArgKind::kValue},
      {'w', ArgKind::kValue}, {'y', ArgKind::kValue},          {'Y', ArgKind::kValue},
      {'Z', ArgKind::kValue}, {'4', ArgKind::kFlag},           {'6', ArgKind::kFlag},
  };
  return o;
}

// Thrown internally to stop parsing at -h or -V, as netperf exits there.
struct StopParsing {};

void global_option(NetperfArgs& a, char c, const std::optional<std::string>& value) {
  const std::string v = value.value_or("");
  switch (c) {
    case 'h':
      a.action = NetperfAction::kGlobalHelp;
      throw StopParsing{};
    case 'V':
      a.action = NetperfAction::kVersion;
      throw StopParsing{};
    case 't': {
      a.test_name = upper(v);
      auto t = parse_netperf_test(a.test_name);
      // netperf's words ("The test you requested (FOO) is unknown to this
      // netperf"), on one line that names the option.
      if (!t) {
        std::vector<std::string> known;
        for (const auto& [n, test] : kNetperfTests) known.emplace_back(n);
        const std::string near = core::nearest(a.test_name, known);
        throw bad(
            't', v,
            fmt::format("the test you requested is unknown to this netperf ({}known: {})",
                        near.empty() ? "" : "did you mean " + near + "? ", fmt::join(known, ", ")));
      }
      a.test = *t;
      break;
    }
    case 'H': {
      auto p = split_pair(v, true);
      if (p.first) a.host = *p.first;
      if (p.second) a.family = family_value('H', *p.second);
      break;
    }
    case 'L': {
      auto p = split_pair(v, true);
      if (p.first) a.local_host = *p.first;
      if (p.second) a.local_family = family_value('L', *p.second);
      break;
    }
    case 'p': {
      auto p = split_pair(v, true);
      if (!p.first && !p.second) throw bad('p', v, "give a port, or port,localport");
      if (p.first) a.port = port_value('p', *p.first, false);
      if (p.second) a.local_port = port_value('p', *p.second, true);
      break;
    }
    case 'l': {
      if (!v.empty() && v[0] == '-') {
        std::string why;
        auto n = core::parse_size(std::string_view(v).substr(1), &why);
        if (!n) throw bad('l', v, "not a byte or transaction count (" + why + ")");
        if (*n == 0) throw bad('l', v, "a test length must not be 0");
        a.count = *n;
      } else {
        auto d = to_double(v);
        if (!d || *d <= 0)
          throw bad('l', v,
                    "give seconds (more than 0), or a negative count of bytes (stream tests) or "
                    "transactions (RR tests)");
        a.duration_s = *d;
        a.count = 0;
      }
      break;
    }
    case 'v':
      a.verbosity = int_value('v', v, 0, 1000, "a verbosity level");
      break;
    case 'P':
      a.headers = int_value('P', v, -1000000, 1000000, "0 hides the headers, 1 shows them") != 0;
      break;
    case 'f': {
      static const std::string_view kUnits = "GMKgmkBbx";
      if (v.empty() || kUnits.find(v[0]) == std::string_view::npos)
        throw bad('f', v,
                  "unknown unit (G, M, K: 2^30, 2^20, 2^10 bytes/s; g, m, k: 10^9, 10^6, "
                  "10^3 bits/s; B bytes, b bits, x transactions)");
      a.unit = v[0];
      break;
    }
    case 'D': {
      auto p = split_pair(v, true);
      if (!p.first) throw bad('D', v, "give the interim interval in seconds");
      auto d = to_double(*p.first);
      if (!d || *d == 0 || std::fabs(*d) < 0.01)
        throw bad('D', v,
                  "the interim interval is seconds, at least 0.01 (negative: timestamp "
                  "every unit of work)");
      a.interim_s = std::fabs(*d);
      a.interim_timestamp = *d < 0;
      // The second value is netperf's first guess of units per interval; it
      // only tunes how often netperf reads the clock, so it changes nothing here.
      if (p.second) size_value('D', *p.second);
      break;
    }
    case 'c':
    case 'C': {
      std::optional<double> rate;
      if (value) {
        rate = to_double(*value);
        if (!rate || *rate < 0) throw bad(c, *value, "a CPU rate is a non-negative number");
      }
      (c == 'c' ? a.local_cpu : a.remote_cpu) = true;
      // A rate calibrates netperf's looper CPU methods; Linux's /proc/stat
      // method (the one flowperf uses, as netperf does on Linux) has no use for it.
      if (rate)
        throw bad(c, *value,
                  "a CPU rate calibrates netperf's looper CPU methods; flowperf reads CPU use "
                  "from /proc/stat, which needs none: give -c or -C without a rate");
      break;
    }
    case 'I': {
      auto p = split_pair(v, false);
      if (p.first) {
        int level = int_value('I', *p.first, 0, 100, "a confidence level");
        if (level != 95 && level != 99) throw bad('I', v, "the confidence level is 95 or 99");
        a.confidence_level = level;
      }
      // Like every pair option, a lone value sets both: `-I 99` asks for a
      // 99% interval 99% wide, as in netperf.
      if (p.second) {
        auto w = to_double(*p.second);
        if (!w || *w <= 0) throw bad('I', v, "the interval width is a percentage above 0");
        a.confidence_width = *w;
      }
      if (a.confidence_width == 0) a.confidence_width = 5;
      if (a.iterations_min == 1) a.iterations_min = 3;
      if (a.iterations_max == 1) a.iterations_max = 10;
      break;
    }
    case 'i': {
      auto p = convert_pair<int>(split_pair(v, false), [&](const std::string& s) {
        return int_value('i', s, 1, 1000, "an iteration count");
      });
      if (p.first) a.iterations_max = *p.first;
      if (p.second) a.iterations_min = *p.second;
      // netperf keeps both within 3..30 and max >= min.
      a.iterations_max = std::clamp(std::max(a.iterations_max, a.iterations_min), 3, 30);
      a.iterations_min = std::clamp(a.iterations_min, 3, 30);
      if (a.confidence_level == 0) a.confidence_level = 99;
      if (a.confidence_width == 0) a.confidence_width = 5;
      break;
    }
    case 'T': {
      auto p = convert_pair<int>(split_pair(v, false), [&](const std::string& s) {
        return int_value('T', s, 0, 1 << 20, "a CPU number");
      });
      merge_pair(a.cpu_bind, p);
      break;
    }
    case 'B':
      a.brand = v;
      break;
    case 'F': {
      merge_pair(a.fill_file, split_pair(v, true));
      // Ours fills our send buffers; the server's is not asked for (a
      // server never reads a file its client names).
      if (a.fill_file.second)
        throw bad('F', v,
                  "a fill file for the server (,rfill) is not sent: a server never reads a file "
                  "its client names; give -F lfill alone");
      break;
    }
    case 'Y': {
      auto p = split_pair(v, false);
      if (!p.first && !p.second) throw bad('Y', v, "give local[,remote] IP TOS values");
      for (const auto& tos : {p.first, p.second})
        if (tos) tos_value('Y', *tos);
      merge_pair(a.tos, p);
      break;
    }
    case 'y': {
      auto p = convert_pair<int>(split_pair(v, false), [&](const std::string& s) {
        return int_value('y', s, -1, 1 << 20, "a socket priority");
      });
      merge_pair(a.priority, p);
      break;
    }
    case 's':
      a.wait_s = int_value('s', v, 0, 86400, "seconds to wait before the test");
      break;
    case 'S':
      a.keepalive = true;
      break;
    case 'Z':
      a.passphrase = v.substr(0, proto::netperf::kDataWords * 4 - 1);  // what fits, as netperf
      break;
    case 'N':
      a.no_control = true;
      break;
    case 'd':
      throw usage_error(
          "-d: netperf's debug output is not reproduced; for the control exchange, run "
          "flowperf's netserver in the foreground (netserver -D) and read its log");
      break;
    case '4':
      a.family = a.local_family = IpFamily::kV4;
      break;
    case '6':
      a.family = a.local_family = IpFamily::kV6;
      break;
    case 'a':
    case 'A': {
      check_size_pair(c, v, "send[,recv] buffer alignments");
      // flowperf's buffers (netperf's end and its netserver's) start on a
      // page boundary, which meets every alignment that divides a page.
      // -A also travels in the request, for a real netserver to apply.
      auto p = split_pair(v, false);
      for (const auto& al : {p.first, p.second})
        if (al) {
          const uint64_t n = size_value(c, *al);
          if (n == 0 || n > kPageAlignment || (n & (n - 1)) != 0)
            throw bad(c, *al,
                      "an alignment is a power of two up to 4096: flowperf's buffers start on a "
                      "page boundary, which meets those and no larger one");
        }
      if (c == 'A')
        merge_pair(a.remote_alignment, convert_pair<uint64_t>(p, [&](const std::string& s) {
                     return size_value(c, s);
                   }));
      break;
    }
    case 'o':
    case 'O': {
      check_size_pair(c, v, "send[,recv] buffer offsets");
      auto p = split_pair(v, false);
      for (const auto& off : {p.first, p.second})
        if (off && size_value(c, *off) != 0)
          throw bad(c, *off,
                    "an offset into the buffers is not supported: flowperf's buffers start on a "
                    "page boundary; drop -o/-O (0 is accepted)");
      break;
    }
    case 'W':
      check_size_pair(c, v, "send[,recv] buffer ring widths");
      throw bad('W', v,
                "each flowperf flow sends and receives through one buffer, kept in cache; a ring "
                "of buffers to defeat the cache is not supported: drop -W");
    case 'w':
    case 'b':
      // As netperf 2.7.1 is built by default (no --enable-intervals).
      throw bad(c, v,
                "paced bursts are not built into flowperf's netperf (netperf 2.7.1's default "
                "build lacks them too: \"Packet rate control is not compiled in.\"); for a "
                "paced UDP stream use flowperf -t UDP_STREAM -b RATE");
    case 'k':
    case 'K':
      throw bad(c, v,
                "dirtying buffers before each send is not supported (netperf 2.7.1's default "
                "build says \"I don't know how to get dirty.\"); drop -k/-K");
    case 'n':
      int_value('n', v, 1, 1 << 20, "a CPU count");
      throw bad('n', v,
                "flowperf reads the CPU count and CPU use from /proc/stat; a count given by hand "
                "is not used: drop -n");
    case 'r':
      a.result_confidence_only = true;
      break;
    case 'j':
      break;  // statistics: always kept
    default:
      break;
  }
}

// ---- Test options --------------------------------------------------------

const std::vector<Option>& test_options() {
  static const std::vector<Option> o = {
      {'a', ArgKind::kFlag},  {'B', ArgKind::kFlag},         {'b', ArgKind::kValue},
      {'c', ArgKind::kFlag},  {'C', ArgKind::kFlag},         {'d', ArgKind::kValue},
      {'D', ArgKind::kFlag},  {'e', ArgKind::kValue},        {'f', ArgKind::kFlag},
      {'F', ArgKind::kFlag},  {'g', ArgKind::kFlag},         {'G', ArgKind::kValue},
      {'h', ArgKind::kFlag},  {'H', ArgKind::kValue},        {'i', ArgKind::kValue},
      {'I', ArgKind::kFlag},  {'j', ArgKind::kValue},        {'k', ArgKind::kOptionalWord},
      {'K', ArgKind::kValue}, {'l', ArgKind::kValue},        {'L', ArgKind::kValue},
      {'m', ArgKind::kValue}, {'M', ArgKind::kValue},        {'n', ArgKind::kFlag},
      {'N', ArgKind::kFlag},  {'o', ArgKind::kOptionalWord}, {'O', ArgKind::kOptionalWord},
      {'p', ArgKind::kValue}, {'P', ArgKind::kValue},        {'q', ArgKind::kValue},
      {'r', ArgKind::kValue}, {'R', ArgKind::kValue},        {'s', ArgKind::kValue},
      {'S', ArgKind::kValue}, {'t', ArgKind::kValue},        {'T', ArgKind::kValue},
      {'u', ArgKind::kValue}, {'U', ArgKind::kFlag},         {'V', ArgKind::kFlag},
      {'w', ArgKind::kValue}, {'W', ArgKind::kValue},        {'4', ArgKind::kFlag},
      {'6', ArgKind::kFlag},
  };
  return o;
}

struct TestScan {
  bool implicit_direction = false;  // OMNI: -m/-M/-r add direction bits
  bool direction_set = false;
  std::optional<spec::Protocol> by_T, by_t;
};

// "name[/mask][,family]" of the test -H and -L.
void data_address(char opt, const std::string& v, std::string* host, IpFamily* family) {
  auto p = split_pair(v, true);
  if (p.first) *host = p.first->substr(0, p.first->find('/'));
  if (p.second) *family = family_value(opt, *p.second);
}

void test_option(NetperfArgs& a, TestScan& t, char c, const std::optional<std::string>& value) {
  const std::string v = value.value_or("");
  auto sizes = [&](bool explicit_pair) {
    return convert_pair<uint64_t>(split_pair(v, explicit_pair), [&](const std::string& s) {
      return test_size_value(c, s, &a.warnings);
    });
  };
  switch (c) {
    case 'h':
      a.action = NetperfAction::kTestHelp;
      throw StopParsing{};
    case 'm': {
      auto p = sizes(true);
      if (!p.first && !p.second)
        throw bad('m', v, fmt::format("give local[,remote] send sizes: {}", size_form('m')));
      merge_pair(a.send_size, p);
      if (t.implicit_direction) {
        if (p.first) a.direction |= kNetperfXmit;
        if (p.second) a.direction |= kNetperfRecv;
      }
      break;
    }
    case 'M': {
      auto p = sizes(true);
      if (!p.first && !p.second)
        throw bad('M', v, fmt::format("give remote[,local] receive sizes: {}", size_form('M')));
      merge_pair(a.recv_size, p);
      if (t.implicit_direction) {
        if (p.first) a.direction |= kNetperfXmit;
        if (p.second) a.direction |= kNetperfRecv;
      }
      break;
    }
    case 's':
    case 'S': {
      auto p = sizes(false);
      if (!p.first && !p.second)
        throw bad(c, v, fmt::format("give send[,recv] socket buffer sizes: {}", size_form(c)));
      merge_pair(c == 's' ? a.local_buf : a.remote_buf, p);
      break;
    }
    case 'r': {
      auto p = sizes(false);
      if (!p.first && !p.second)
        throw bad('r', v, fmt::format("give request[,response] sizes: {}", size_form('r')));
      merge_pair(a.rr_size, p);
      if (t.implicit_direction) a.direction |= kNetperfXmit | kNetperfRecv;
      break;
    }
    case 'D':
      a.nodelay = true;
      break;
    case 'b':
      a.first_burst = int_value('b', v, 0, 1 << 20, "a number of requests");
      break;
    case 'c':
      a.connection_test = true;
      break;
    case 'C':
      a.cork = true;
      break;
    case 'd':
      // netperf honours -d for OMNI only; the named tests have a fixed direction.
      if (a.test == NetperfTest::kOmni) {
        a.direction = direction_value(v);
        t.implicit_direction = false;
        t.direction_set = true;
      } else {
        direction_value(v);
      }
      break;
    case 'T': {
      std::string p = lower(v);
      if (p == "tcp")
        t.by_T = spec::Protocol::kTcp;
      else if (p == "udp")
        t.by_T = spec::Protocol::kUdp;
      else if (p == "sctp" || p == "sdp" || p == "dccp" || p == "udplite")
        throw bad('T', v, "flowperf's netperf runs tcp and udp only");
      else
        throw bad('T', v, "unknown protocol (use tcp or udp)");
      break;
    }
    case 't': {
      std::string p = lower(v);
      if (p.find("stream") != std::string::npos)
        t.by_t = spec::Protocol::kTcp;
      else if (p.find("dgram") != std::string::npos)
        t.by_t = spec::Protocol::kUdp;
      else
        throw bad('t', v, "unknown socket type (use stream or dgram)");
      break;
    }
    case 'H':
      data_address('H', v, &a.data_host, &a.data_family);
      break;
    case 'L':
      data_address('L', v, &a.data_local_host, &a.data_family);
      break;
    case 'P': {
      auto p = split_pair(v, false);
      if (!p.first && !p.second) throw bad('P', v, "give local[,remote] data ports");
      for (const auto& port : {p.first, p.second})
        if (port) port_value('P', *port, true);
      merge_pair(a.data_ports, p);
      break;
    }
    case 'K': {
      auto p = split_pair(v, false);
      if (!p.first && !p.second) throw bad('K', v, "give local[,remote] congestion control names");
      for (const auto& name : {p.first, p.second})
        if (name) congestion_control_value('K', *name);
      merge_pair(a.cong_control, p);
      break;
    }
    case 'u':
      a.uuid = v;
      break;
    case 'k':
    case 'o':
    case 'O': {
      a.omni_style = c == 'k'   ? OmniOutputStyle::kKeyval
                     : c == 'o' ? OmniOutputStyle::kCsv
                                : OmniOutputStyle::kHuman;
      a.omni_selection = v;
      if (v == "?") {
        a.action = c == 'O' ? NetperfAction::kListSelectors : NetperfAction::kListSelectorsCsv;
        throw StopParsing{};
      }
      break;
    }
    case '4':
      a.data_family = IpFamily::kV4;
      break;
    case '6':
      a.data_family = IpFamily::kV6;
      break;
    case 'p':
      throw bad('p', v,
                "a range of client ports for TCP_CRR is not supported; -P local,remote fixes the "
                "data connection's ports");
    case 'R':
      int_value('R', v, 0, 1, "0 or 1");
      throw bad('R', v,
                "flowperf does not set SO_DONTROUTE on data sockets (routing is always allowed); "
                "drop -R");
    case 'f':
      throw usage_error(
          "test option -f: IP_MTU_DISCOVER (don't fragment) is not set by flowperf's netperf; "
          "drop -f");
    case 'F':
      throw usage_error(
          "test option -F: TCP Fast Open is not supported by flowperf's netperf; drop -F");
    case 'n':
      break;  // a connected UDP socket here: flowperf's netperf always connects its own
    case 'N':
      throw usage_error(
          "test option -N: flowperf's netperf does not ask netserver to connect its UDP socket; "
          "drop -N");
    case 'e':
      // UDP_RR's receive timeout, seconds: a lost datagram must not stall
      // the test. flowperf's UDP_RR never waits that long: it gives each
      // transaction a few round trips (at least 50 us), counts it as lost
      // and goes on. flent probes for -e and passes it to every UDP_RR.
      int_value('e', v, 0, 86400, "a receive timeout in seconds");
      break;
    case 'G':
    case 'j':
    case 'l':
    case 'q':
    case 'w':
    case 'W':
    case 'a':
    case 'B':
    case 'g':
    case 'U':
    case 'V':
      throw usage_error(fmt::format(
          "test option -{}: not applied by flowperf's netperf (netperf 2.7's test help does not "
          "list it either); see netperf -t omni -- -h",
          c));
    case 'i':
    case 'I':
    default:
      break;
  }
}

// The direction a named test implies (netperf's defaults per legacy name).
int legacy_direction(NetperfTest t) {
  switch (t) {
    case NetperfTest::kTcpMaerts:
      return kNetperfRecv;
    case NetperfTest::kTcpRr:
    case NetperfTest::kTcpCrr:
    case NetperfTest::kUdpRr:
      return kNetperfXmit | kNetperfRecv;
    case NetperfTest::kTcpCc:
      return 0;
    default:
      return kNetperfXmit;
  }
}

void scan_test_options(NetperfArgs& a, int argc, const char* const* argv, int from) {
  TestScan t;
  a.direction = legacy_direction(a.test);
  a.connection_test = a.test == NetperfTest::kTcpCrr || a.test == NetperfTest::kTcpCc;
  a.protocol = (a.test == NetperfTest::kUdpStream || a.test == NetperfTest::kUdpRr)
                   ? spec::Protocol::kUdp
                   : spec::Protocol::kTcp;
  if (a.test == NetperfTest::kOmni) {
    a.direction = 0;
    t.implicit_direction = true;
  }
  scan(
      argc, argv, from, test_options(),
      [&](char c, const std::optional<std::string>& v) { test_option(a, t, c, v); }, &a.strays,
      "test");
  if (a.test == NetperfTest::kOmni) {
    if (t.by_T && t.by_t && *t.by_T != *t.by_t)
      throw usage_error("-T and -t disagree: a stream socket is TCP, a dgram socket is UDP");
    if (t.by_T)
      a.protocol = *t.by_T;
    else if (t.by_t)
      a.protocol = *t.by_t;
    if (a.direction == 0 && !a.connection_test) a.direction = kNetperfXmit;
  }
}

std::string join_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i) line += ' ';
    line += argv[i];
  }
  return line;
}

}  // namespace

int parse_netperf_tos(std::string_view text) { return tos_value('Y', text); }

std::optional<NetperfTest> parse_netperf_test(std::string_view name) {
  std::string u = upper(name);
  for (const auto& [n, t] : kNetperfTests)
    if (u == n) return t;
  return std::nullopt;
}

const char* netperf_test_name(NetperfTest test) {
  for (const auto& [n, t] : kNetperfTests)
    if (t == test) return n;
  return "?";
}

NetperfArgs parse_netperf_args(int argc, const char* const* argv) {
  NetperfArgs a;
  a.command_line = join_command_line(argc, argv);
  try {
    int next = scan(
        argc, argv, 1, global_options(),
        [&](char c, const std::optional<std::string>& v) { global_option(a, c, v); }, &a.strays,
        "global");
    // netperf reads test options for every test it knows, `--` or not, so
    // the per-test defaults (direction, protocol) are always set.
    scan_test_options(a, argc, argv, next);
  } catch (const StopParsing&) {
  }
  return a;
}

}  // namespace flowperf::cli
