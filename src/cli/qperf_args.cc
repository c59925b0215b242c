#include "cli/qperf_args.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "core/suggest.h"
#include "spec/test_spec.h"

namespace flowperf::cli::qperf {
namespace {

// What an option does with the next word (or without one).
enum class Kind {
  // Set a parameter from the next word.
  kInt,
  kSize,
  kTime,
  kText,
  kAffinity,
  kServiceLevel,
  // Set a parameter to 1.
  kSet1,
  // Everything else.
  kHelp,
  kHost,
  kLoop,
  kListenPort,
  kPrecision,
  kWaitServer,
  kBits,
  kUnifyNodes,
  kUnifyUnits,
  kVerbose,
  kVerboseConf,
  kVerboseStat,
  kVerboseTime,
  kVerboseUsed,
  kMore,
  kMoreConf,
  kMoreStat,
  kMoreTime,
  kMoreUsed,
  kVersion,
  kDebug,
};

enum Sides : unsigned { kNone = 0, kLoc = 1, kRem = 2, kBoth = 3 };

struct Option {
  const char* name;
  Kind kind;
  Param param = Param::kAccessRecv;  // for the parameter kinds
  unsigned sides = kNone;
  bool server = false;  // a server option: using it alone still starts a server
};

bool takes_word(Kind k) {
  switch (k) {
    case Kind::kInt:
    case Kind::kSize:
    case Kind::kTime:
    case Kind::kText:
    case Kind::kAffinity:
    case Kind::kServiceLevel:
    case Kind::kHost:
    case Kind::kLoop:
    case Kind::kListenPort:
    case Kind::kPrecision:
    case Kind::kWaitServer:
      return true;
    default:
      return false;
  }
}

// What the next word should be, for "missing argument" messages.
const char* word_for(Kind k) {
  switch (k) {
    case Kind::kSize:
      return "a size such as 64K";
    case Kind::kTime:
    case Kind::kWaitServer:
      return "a time in seconds, or with m, h or d";
    case Kind::kText:
      return "a value";
    case Kind::kAffinity:
      return "a CPU number or any";
    case Kind::kHost:
      return "a host name or address";
    case Kind::kLoop:
      return "Var:Init:Last:Incr";
    case Kind::kListenPort:
      return "a port number";
    default:
      return "a number";
  }
}

const std::vector<Option>& options() {
  using K = Kind;
  using P = Param;
  static const std::vector<Option> table = {
      {"--access_recv", K::kInt, P::kAccessRecv, kBoth},
      {"-ar", K::kInt, P::kAccessRecv, kBoth},
      {"-ar1", K::kSet1, P::kAccessRecv, kBoth},
      {"--alt_port", K::kInt, P::kAltPort, kBoth},
      {"-ap", K::kInt, P::kAltPort, kBoth},
      {"--loc_alt_port", K::kInt, P::kAltPort, kLoc},
      {"-lap", K::kInt, P::kAltPort, kLoc},
      {"--rem_alt_port", K::kInt, P::kAltPort, kRem},
      {"-rap", K::kInt, P::kAltPort, kRem},
      {"--cpu_affinity", K::kAffinity, P::kAffinity, kBoth},
      {"-ca", K::kAffinity, P::kAffinity, kBoth},
      {"--loc_cpu_affinity", K::kAffinity, P::kAffinity, kLoc},
      {"-lca", K::kAffinity, P::kAffinity, kLoc},
      {"--rem_cpu_affinity", K::kAffinity, P::kAffinity, kRem},
      {"-rca", K::kAffinity, P::kAffinity, kRem},
      {"--debug", K::kDebug, P::kAccessRecv, kNone, true},
      {"-D", K::kDebug, P::kAccessRecv, kNone, true},
      {"--flip", K::kInt, P::kFlip, kBoth},
      {"-f", K::kInt, P::kFlip, kBoth},
      {"-f1", K::kSet1, P::kFlip, kBoth},
      {"--help", K::kHelp},
      {"-h", K::kHelp},
      {"--host", K::kHost},
      {"-H", K::kHost},
      {"--id", K::kText, P::kId, kBoth},
      {"-i", K::kText, P::kId, kBoth},
      {"--loc_id", K::kText, P::kId, kLoc},
      {"-li", K::kText, P::kId, kLoc},
      {"--rem_id", K::kText, P::kId, kRem},
      {"-ri", K::kText, P::kId, kRem},
      {"--listen_port", K::kListenPort, P::kAccessRecv, kNone, true},
      {"-lp", K::kListenPort, P::kAccessRecv, kNone, true},
      {"--loop", K::kLoop},
      {"-oo", K::kLoop},
      {"--msg_size", K::kSize, P::kMsgSize, kBoth},
      {"-m", K::kSize, P::kMsgSize, kBoth},
      {"--mtu_size", K::kSize, P::kMtuSize, kBoth},
      {"-mt", K::kSize, P::kMtuSize, kBoth},
      {"--no_msgs", K::kInt, P::kNoMsgs, kBoth},
      {"-n", K::kInt, P::kNoMsgs, kBoth},
      {"--cq_poll", K::kInt, P::kPollMode, kBoth},
      {"-cp", K::kInt, P::kPollMode, kBoth},
      {"-cp1", K::kSet1, P::kPollMode, kBoth},
      {"--loc_cq_poll", K::kInt, P::kPollMode, kLoc},
      {"-lcp", K::kInt, P::kPollMode, kLoc},
      {"-lcp1", K::kSet1, P::kPollMode, kLoc},
      {"--rem_cq_poll", K::kInt, P::kPollMode, kRem},
      {"-rcp", K::kInt, P::kPollMode, kRem},
      {"-rcp1", K::kSet1, P::kPollMode, kRem},
      {"--ip_port", K::kInt, P::kPort, kBoth},
      {"-ip", K::kInt, P::kPort, kBoth},
      {"--precision", K::kPrecision},
      {"-e", K::kPrecision},
      {"--rd_atomic", K::kInt, P::kRdAtomic, kBoth},
      {"-nr", K::kInt, P::kRdAtomic, kBoth},
      {"--loc_rd_atomic", K::kInt, P::kRdAtomic, kLoc},
      {"-lnr", K::kInt, P::kRdAtomic, kLoc},
      {"--rem_rd_atomic", K::kInt, P::kRdAtomic, kRem},
      {"-rnr", K::kInt, P::kRdAtomic, kRem},
      {"--service_level", K::kServiceLevel, P::kServiceLevel, kBoth},
      {"-sl", K::kServiceLevel, P::kServiceLevel, kBoth},
      {"--loc_service_level", K::kServiceLevel, P::kServiceLevel, kLoc},
      {"-lsl", K::kServiceLevel, P::kServiceLevel, kLoc},
      {"--rem_service_level", K::kServiceLevel, P::kServiceLevel, kRem},
      {"-rsl", K::kServiceLevel, P::kServiceLevel, kRem},
      {"--sock_buf_size", K::kSize, P::kSockBufSize, kBoth},
      {"-sb", K::kSize, P::kSockBufSize, kBoth},
      {"--loc_sock_buf_size", K::kSize, P::kSockBufSize, kLoc},
      {"-lsb", K::kSize, P::kSockBufSize, kLoc},
      {"--rem_sock_buf_size", K::kSize, P::kSockBufSize, kRem},
      {"-rsb", K::kSize, P::kSockBufSize, kRem},
      {"--src_path_bits", K::kSize, P::kSrcPathBits, kBoth},
      {"-sp", K::kSize, P::kSrcPathBits, kBoth},
      {"--loc_src_path_bits", K::kSize, P::kSrcPathBits, kLoc},
      {"-lsp", K::kSize, P::kSrcPathBits, kLoc},
      {"--rem_src_path_bits", K::kSize, P::kSrcPathBits, kRem},
      {"-rsp", K::kSize, P::kSrcPathBits, kRem},
      {"--static_rate", K::kText, P::kStaticRate, kBoth},
      {"-sr", K::kText, P::kStaticRate, kBoth},
      {"--loc_static_rate", K::kText, P::kStaticRate, kLoc},
      {"-lsr", K::kText, P::kStaticRate, kLoc},
      {"--rem_static_rate", K::kText, P::kStaticRate, kRem},
      {"-rsr", K::kText, P::kStaticRate, kRem},
      {"--time", K::kTime, P::kTime, kBoth},
      {"-t", K::kTime, P::kTime, kBoth},
      {"--timeout", K::kTime, P::kTimeout, kBoth},
      {"-to", K::kTime, P::kTimeout, kBoth},
      {"--loc_timeout", K::kTime, P::kTimeout, kLoc, true},
      {"-lto", K::kTime, P::kTimeout, kLoc, true},
      {"--rem_timeout", K::kTime, P::kTimeout, kRem},
      {"-rto", K::kTime, P::kTimeout, kRem},
      {"--unify_nodes", K::kUnifyNodes},
      {"-un", K::kUnifyNodes},
      {"--unify_units", K::kUnifyUnits},
      {"-uu", K::kUnifyUnits},
      {"--use_bits_per_sec", K::kBits},
      {"-ub", K::kBits},
      {"--use_cm", K::kInt, P::kUseCm, kBoth},
      {"-cm", K::kInt, P::kUseCm, kBoth},
      {"-cm1", K::kSet1, P::kUseCm, kBoth},
      {"--verbose", K::kVerbose},
      {"-v", K::kVerbose},
      {"--verbose_conf", K::kVerboseConf},
      {"-vc", K::kVerboseConf},
      {"--verbose_stat", K::kVerboseStat},
      {"-vs", K::kVerboseStat},
      {"--verbose_time", K::kVerboseTime},
      {"-vt", K::kVerboseTime},
      {"--verbose_used", K::kVerboseUsed},
      {"-vu", K::kVerboseUsed},
      {"--verbose_more", K::kMore},
      {"-vv", K::kMore},
      {"--verbose_more_conf", K::kMoreConf},
      {"-vvc", K::kMoreConf},
      {"--verbose_more_stat", K::kMoreStat},
      {"-vvs", K::kMoreStat},
      {"--verbose_more_time", K::kMoreTime},
      {"-vvt", K::kMoreTime},
      {"--verbose_more_used", K::kMoreUsed},
      {"-vvu", K::kMoreUsed},
      {"--version", K::kVersion},
      {"-V", K::kVersion},
      {"--wait_server", K::kWaitServer},
      {"-ws", K::kWaitServer},
  };
  return table;
}

// Names older qperf versions used; they still work, with a warning.
const std::pair<const char*, const char*> kRenamed[] = {
    {"--affinity", "--cpu_affinity"},
    {"-a", "-ca"},
    {"--loc_affinity", "--loc_cpu_affinity"},
    {"-la", "-lca"},
    {"--rem_affinity", "--rem_cpu_affinity"},
    {"-ra", "-rca"},
    {"--rate", "--static_rate"},
    {"-r", "-sr"},
    {"--loc_rate", "--loc_static_rate"},
    {"-lr", "-lsr"},
    {"--rem_rate", "--rem_static_rate"},
    {"-rr", "-rsr"},
    {"--port", "--ip_port"},
    {"-p", "-ip"},
    {"--poll", "--cq_poll"},
    {"-P", "-cp"},
    {"--loc_poll", "--loc_cq_poll"},
    {"-lP", "-lcp"},
    {"--rem_poll", "--rem_cq_poll"},
    {"-rP", "-rcp"},
    {"-R", "-nr"},
    {"-lR", "-lnr"},
    {"-rR", "-rnr"},
    {"-T", "-to"},
    {"-lT", "-lto"},
    {"-rT", "-rto"},
    {"-S", "-sb"},
    {"-lS", "-lsb"},
    {"-rS", "-rsb"},
    {"--wait", "--wait_server"},
    {"-W", "-ws"},
    {"-vC", "-vvc"},
    {"-vS", "-vvs"},
    {"-vT", "-vvt"},
    {"-vU", "-vvu"},
    {"-aro", "-ar1"},
    {"-cmo", "-cm1"},
    {"-fo", "-f1"},
    {"-cpo", "-cp1"},
    {"-lcpo", "-lcp1"},
    {"-rcpo", "-rcp1"},
    {"-Ar", "-ar"},
    {"-M", "-mt"},
    {"-u", "-uu"},
};

const Option* find_option(std::string_view name) {
  for (const auto& o : options())
    if (name == o.name) return &o;
  return nullptr;
}

// A loop variable is an option's name without its dashes: "msg_size", "m".
const Option* find_loop_variable(std::string_view name) {
  for (const auto& o : options()) {
    std::string_view n = o.name;
    n.remove_prefix(n.starts_with("--") ? 2 : 1);
    if (n == name) return &o;
  }
  return nullptr;
}

constexpr double kMaxSeconds = 31'536'000;  // a year, as the engine allows
constexpr size_t kMaxRuns = 10'000;

struct Loop {
  const Option* option;
  std::string typed;  // the whole -oo argument, for messages
  double init = 0, last = 0, incr = 0;
  bool multiply = false;
};

// The settings in force at one point of the command line.
struct State {
  std::string host;
  uint16_t listen_port = kDefaultListenPort;
  double wait_server_s = 5;
  Params params;
  report::QperfDisplay display;
  std::vector<Loop> loops;
};

Error bad(std::string_view option, std::string_view word, std::string_view why) {
  return usage_error(fmt::format("{} {}: {}", option, word, why));
}

uint64_t parse_count(std::string_view option, std::string_view word, uint64_t max) {
  bool digits = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (!digits) throw bad(option, word, "expected a whole number (0 or more)");
  if (word.size() > 19) throw bad(option, word, fmt::format("at most {}", max));
  uint64_t v = std::stoull(std::string(word));
  if (v > max) throw bad(option, word, fmt::format("at most {}", max));
  return v;
}

void set_param(State& st, const Option& o, std::string_view typed, double num,
               std::string text = "") {
  Setting& s = st.params[o.param];
  for (Value* v : {(o.sides & kLoc) ? &s.loc : nullptr, (o.sides & kRem) ? &s.rem : nullptr}) {
    if (!v) continue;
    v->num = num;
    v->text = text;
    v->set_by = std::string(typed);
  }
}

void apply_value(State& st, const Option& o, std::string_view typed, std::string_view word) {
  std::string why;
  switch (o.kind) {
    case Kind::kInt: {
      uint64_t max = o.param == Param::kPort ? 65535 : UINT32_MAX;
      set_param(st, o, typed, static_cast<double>(parse_count(typed, word, max)));
      break;
    }
    case Kind::kSize: {
      uint64_t bytes = 0;
      if (!parse_qperf_size(word, &bytes, &why)) throw bad(typed, word, why);
      if (bytes > UINT32_MAX) throw bad(typed, word, "at most 4294967295 bytes (4 GiB - 1)");
      set_param(st, o, typed, static_cast<double>(bytes));
      break;
    }
    case Kind::kTime: {
      double s = 0;
      if (!parse_qperf_time(word, &s, &why)) throw bad(typed, word, why);
      if (s > kMaxSeconds) throw bad(typed, word, "at most 31536000 seconds (a year)");
      if (o.param == Param::kTimeout && !(s > 0))
        throw bad(typed, word, "the timeout must be more than 0 seconds (qperf's default is 5)");
      set_param(st, o, typed, s);
      break;
    }
    case Kind::kText:
      set_param(st, o, typed, 0, std::string(word));
      break;
    case Kind::kAffinity: {
      if (word == "any") {
        set_param(st, o, typed, -1, "");
        break;
      }
      uint64_t cpu = parse_count(typed, word, CPU_SETSIZE - 1);
      set_param(st, o, typed, static_cast<double>(cpu), std::string(word));
      break;
    }
    case Kind::kServiceLevel: {
      uint64_t sl = parse_count(typed, word, UINT32_MAX);
      if (sl > 15) throw bad(typed, word, "the service level must be from 0 to 15");
      set_param(st, o, typed, static_cast<double>(sl));
      break;
    }
    case Kind::kHost:
      if (word.empty()) throw bad(typed, "''", "the host name is empty");
      st.host = std::string(word);
      break;
    case Kind::kListenPort: {
      uint64_t port = parse_count(typed, word, 65535);
      if (port == 0) throw bad(typed, word, "the port must be from 1 to 65535");
      st.listen_port = static_cast<uint16_t>(port);
      break;
    }
    case Kind::kPrecision:
      st.display.precision = static_cast<int>(parse_count(typed, word, 17));
      break;
    case Kind::kWaitServer: {
      double s = 0;
      if (!parse_qperf_time(word, &s, &why)) throw bad(typed, word, why);
      st.wait_server_s = std::min(s, kMaxSeconds);
      break;
    }
    default:
      break;
  }
}

void apply_flag(State& st, const Option& o, std::string_view typed) {
  report::QperfVerbosity& v = st.display.verbose;
  switch (o.kind) {
    case Kind::kSet1:
      set_param(st, o, typed, 1);
      break;
    case Kind::kBits:
      st.display.bits_per_sec = true;
      break;
    case Kind::kUnifyNodes:
      st.display.unify_nodes = true;
      break;
    case Kind::kUnifyUnits:
      st.display.unify_units = true;
      break;
    case Kind::kVerbose:  // raises each class to at least 1
      v.conf = std::max(v.conf, 1);
      v.stat = std::max(v.stat, 1);
      v.time = std::max(v.time, 1);
      v.used = std::max(v.used, 1);
      break;
    case Kind::kVerboseConf:
      v.conf = 1;
      break;
    case Kind::kVerboseStat:
      v.stat = 1;
      break;
    case Kind::kVerboseTime:
      v.time = 1;
      break;
    case Kind::kVerboseUsed:
      v.used = 1;
      break;
    case Kind::kMore:
      v = {2, 2, 2, 2};
      break;
    case Kind::kMoreConf:
      v.conf = 2;
      break;
    case Kind::kMoreStat:
      v.stat = 2;
      break;
    case Kind::kMoreTime:
      v.time = 2;
      break;
    case Kind::kMoreUsed:
      v.used = 2;
      break;
    default:  // -D: qperf's debug dump; nothing extra to show here
      break;
  }
}

// "-oo Var:Init:Last:Incr". An empty Var is msg_size; an empty Init is 1 for
// a *N loop and 0 otherwise; Incr is +N (or N) to add, *N to multiply.
Loop parse_loop(std::string_view typed, std::string_view arg) {
  std::vector<std::string> f;
  size_t start = 0;
  for (;;) {
    size_t colon = arg.find(':', start);
    f.emplace_back(arg.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  f.resize(std::max<size_t>(f.size(), 4));
  if (f.size() > 4) throw bad(typed, arg, "too many fields; the form is Var:Init:Last:Incr");
  Loop l;
  l.typed = std::string(arg);
  const std::string var = f[0].empty() ? "msg_size" : f[0];
  l.option = find_loop_variable(var);
  if (!l.option) throw bad(typed, arg, fmt::format("{}: no such variable", var));
  const Kind k = l.option->kind;
  if (!(k == Kind::kInt || k == Kind::kSize || k == Kind::kTime || k == Kind::kAffinity ||
        k == Kind::kServiceLevel || k == Kind::kPrecision || k == Kind::kWaitServer))
    throw bad(typed, arg,
              fmt::format("{} does not take a number, so it cannot be looped over", var));
  const bool is_time = k == Kind::kTime || k == Kind::kWaitServer;
  auto number = [&](std::string_view text, const char* what) {
    std::string why;
    if (is_time) {
      double s = 0;
      if (!parse_qperf_time(text, &s, &why))
        throw bad(typed, arg, fmt::format("{}: {}", what, why));
      return s;
    }
    uint64_t n = 0;
    if (!parse_qperf_size(text, &n, &why)) throw bad(typed, arg, fmt::format("{}: {}", what, why));
    return static_cast<double>(n);
  };
  std::string_view incr = f[3];
  if (incr.empty())
    throw bad(typed, arg, "give an increment: +N (or N) adds N, *N multiplies by N");
  if (incr[0] == '*' || incr[0] == '+') {
    l.multiply = incr[0] == '*';
    incr.remove_prefix(1);
  }
  l.incr = number(incr, "increment");
  if (!(l.incr > 0)) throw bad(typed, arg, "the increment must be more than 0");
  if (l.multiply && l.incr <= 1) throw bad(typed, arg, "a *N increment must be more than 1");
  l.init = f[1].empty() ? (l.multiply ? 1 : 0) : number(f[1], "initial value");
  if (l.multiply && !(l.init > 0))
    throw bad(typed, arg, "a *N loop must start above 0 to get anywhere");
  if (f[2].empty()) throw bad(typed, arg, "give the last value: Var:Init:Last:Incr");
  l.last = number(f[2], "last value");
  // An empty loop would run no test at all (and, nested in others, walk
  // them to the end without ever reaching the cap on the number of tests).
  if (l.last < l.init)
    throw bad(typed, arg, "the last value is below the initial one, so the loop runs no test");
  return l;
}

// The value the loop hands to its option, as the option would read it.
std::string loop_word(const Loop& l, double v) {
  const Kind k = l.option->kind;
  if (k == Kind::kTime || k == Kind::kWaitServer) return fmt::format("{}", v);
  return fmt::format("{}", static_cast<uint64_t>(std::llround(v)));
}

bool is_socket_test(TestKind k) {
  return k == TestKind::kTcpBw || k == TestKind::kTcpLat || k == TestKind::kUdpBw ||
         k == TestKind::kUdpLat || k == TestKind::kSctpBw || k == TestKind::kSctpLat ||
         k == TestKind::kSdpBw || k == TestKind::kSdpLat || k == TestKind::kRdsBw ||
         k == TestKind::kRdsLat;
}

bool is_bw_test(TestKind k) {
  return k == TestKind::kTcpBw || k == TestKind::kUdpBw || k == TestKind::kSctpBw ||
         k == TestKind::kSdpBw || k == TestKind::kRdsBw;
}

// The message size a test uses when none is given.
double default_msg_size(TestKind k) {
  switch (k) {
    case TestKind::kTcpBw:
    case TestKind::kSdpBw:
      return 64 * 1024;
    case TestKind::kUdpBw:
    case TestKind::kSctpBw:
    case TestKind::kRdsBw:
      return 32 * 1024;
    default:
      return 1;
  }
}

void fill_defaults(Run& r) {
  auto fill = [](Value& v, double d) {
    if (!v.set()) v.num = d;
  };
  for (Value* side : {&r.params[Param::kMsgSize].loc, &r.params[Param::kMsgSize].rem})
    fill(*side, is_socket_test(r.test.kind) ? default_msg_size(r.test.kind) : 0);
  // A count of messages replaces the default time, end by end.
  if (!r.params[Param::kNoMsgs].loc.set()) fill(r.params[Param::kTime].loc, 2);
  if (!r.params[Param::kNoMsgs].rem.set()) fill(r.params[Param::kTime].rem, 2);
  fill(r.params[Param::kTimeout].loc, 5);
  fill(r.params[Param::kTimeout].rem, 5);
}

// Limits of the tests flowperf runs, named by the option that set the value.
void check_run(const Run& r) {
  const TestKind k = r.test.kind;
  if (k != TestKind::kTcpBw && k != TestKind::kTcpLat && k != TestKind::kUdpBw &&
      k != TestKind::kUdpLat)
    return;
  const bool udp = k == TestKind::kUdpBw || k == TestKind::kUdpLat;
  auto word = [](const Value& v) { return fmt::format("{}", v.num); };
  const Value& msg = r.params[Param::kMsgSize].loc;
  if (msg.num < 1) throw bad(msg.set_by, word(msg), "the message size must be at least 1 byte");
  const uint32_t limit = udp ? spec::kMaxUdpPayloadV4 : spec::kMaxMessage;
  if (msg.num > limit)
    throw bad(msg.set_by, word(msg),
              udp ? fmt::format("{} sends one UDP datagram per message, at most {} bytes",
                                r.test.name, limit)
                  : fmt::format("at most {} bytes (1 GiB) per message", limit));
  const Value& count = r.params[Param::kNoMsgs].loc;
  if (count.set() && count.num < 1)
    throw bad(count.set_by, word(count), "the number of messages must be at least 1");
  const Value& time = r.params[Param::kTime].loc;
  if (!count.set() && !(time.num > 0))
    throw bad(time.set_by.empty() ? "-t" : time.set_by, word(time),
              "the test time must be more than 0 seconds (or give a count with -n)");
  for (const Value* buf :
       {&r.params[Param::kSockBufSize].loc, &r.params[Param::kSockBufSize].rem}) {
    if (buf->num > INT_MAX)
      throw bad(buf->set_by, word(*buf), "socket buffers are at most 2147483647 bytes");
  }
}

Run make_run(const State& st, const TestName& t) {
  Run r;
  r.test = t;
  r.host = st.host;
  r.listen_port = st.listen_port;
  r.wait_server_s = st.wait_server_s;
  r.params = st.params;
  r.display = st.display;
  fill_defaults(r);
  check_run(r);
  return r;
}

// One Run per combination of loop values, the first loop outermost.
void expand(const State& st, size_t loop, const TestName& t, std::vector<Run>* runs) {
  if (loop == st.loops.size()) {
    if (runs->size() >= kMaxRuns)
      throw usage_error(
          fmt::format("-oo: these loops make more than {} tests; narrow them", kMaxRuns));
    runs->push_back(make_run(st, t));
    return;
  }
  const Loop& l = st.loops[loop];
  const double last = l.last * (1 + 1e-9);  // additive steps of 0.1 s still reach the end
  for (double v = l.init; v <= last; v = l.multiply ? v * l.incr : v + l.incr) {
    State s = st;
    apply_value(s, *l.option, l.option->name, loop_word(l, v));
    expand(s, loop + 1, t, runs);
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const std::vector<TestName>& all_tests() {
  static const std::vector<TestName> tests = {
      {"conf", TestKind::kConf, "Miscellaneous", "Show configuration"},
      {"quit", TestKind::kQuit, "Miscellaneous", "Cause the server to quit"},
      {"rds_bw", TestKind::kRdsBw, "Socket Based", "RDS streaming one way bandwidth"},
      {"rds_lat", TestKind::kRdsLat, "Socket Based", "RDS one way latency"},
      {"sctp_bw", TestKind::kSctpBw, "Socket Based", "SCTP streaming one way bandwidth"},
      {"sctp_lat", TestKind::kSctpLat, "Socket Based", "SCTP one way latency"},
      {"sdp_bw", TestKind::kSdpBw, "Socket Based", "SDP streaming one way bandwidth"},
      {"sdp_lat", TestKind::kSdpLat, "Socket Based", "SDP one way latency"},
      {"tcp_bw", TestKind::kTcpBw, "Socket Based", "TCP streaming one way bandwidth"},
      {"tcp_lat", TestKind::kTcpLat, "Socket Based", "TCP one way latency"},
      {"udp_bw", TestKind::kUdpBw, "Socket Based", "UDP streaming one way bandwidth"},
      {"udp_lat", TestKind::kUdpLat, "Socket Based", "UDP one way latency"},
      {"rc_bi_bw", TestKind::kRdma, "RDMA Send/Receive", "RC streaming two way bandwidth"},
      {"rc_bw", TestKind::kRdma, "RDMA Send/Receive", "RC streaming one way bandwidth"},
      {"rc_lat", TestKind::kRdma, "RDMA Send/Receive", "RC one way latency"},
      {"uc_bi_bw", TestKind::kRdma, "RDMA Send/Receive", "UC streaming two way bandwidth"},
      {"uc_bw", TestKind::kRdma, "RDMA Send/Receive", "UC streaming one way bandwidth"},
      {"uc_lat", TestKind::kRdma, "RDMA Send/Receive", "UC one way latency"},
      {"ud_bi_bw", TestKind::kRdma, "RDMA Send/Receive", "UD streaming two way bandwidth"},
      {"ud_bw", TestKind::kRdma, "RDMA Send/Receive", "UD streaming one way bandwidth"},
      {"ud_lat", TestKind::kRdma, "RDMA Send/Receive", "UD one way latency"},
      {"xrc_bi_bw", TestKind::kRdma, "RDMA Send/Receive", "XRC streaming two way bandwidth"},
      {"xrc_bw", TestKind::kRdma, "RDMA Send/Receive", "XRC streaming one way bandwidth"},
      {"xrc_lat", TestKind::kRdma, "RDMA Send/Receive", "XRC one way latency"},
      {"rc_rdma_read_bw", TestKind::kRdma, "RDMA", "RC RDMA read streaming one way bandwidth"},
      {"rc_rdma_read_lat", TestKind::kRdma, "RDMA", "RC RDMA read one way latency"},
      {"rc_rdma_write_bw", TestKind::kRdma, "RDMA", "RC RDMA write streaming one way bandwidth"},
      {"rc_rdma_write_lat", TestKind::kRdma, "RDMA", "RC RDMA write one way latency"},
      {"rc_rdma_write_poll_lat", TestKind::kRdma, "RDMA", "RC RDMA write one way polling latency"},
      {"uc_rdma_write_bw", TestKind::kRdma, "RDMA", "UC RDMA write streaming one way bandwidth"},
      {"uc_rdma_write_lat", TestKind::kRdma, "RDMA", "UC RDMA write one way latency"},
      {"uc_rdma_write_poll_lat", TestKind::kRdma, "RDMA", "UC RDMA write one way polling latency"},
      {"rc_compare_swap_mr", TestKind::kRdma, "InfiniBand Atomics",
       "RC compare and swap messaging rate"},
      {"rc_fetch_add_mr", TestKind::kRdma, "InfiniBand Atomics", "RC fetch and add messaging rate"},
      {"ver_rc_compare_swap", TestKind::kRdma, "Verification", "Verify RC compare and swap"},
      {"ver_rc_fetch_add", TestKind::kRdma, "Verification", "Verify RC fetch and add"},
  };
  return tests;
}

const TestName* find_test(std::string_view name) {
  for (const auto& t : all_tests())
    if (name == t.name) return &t;
  return nullptr;
}

bool is_help_topic(std::string_view topic) {
  for (const char* t : {"main", "categories", "examples", "opts", "options", "tests"})
    if (topic == t) return true;
  return find_test(topic) != nullptr;
}

bool parse_qperf_size(std::string_view text, uint64_t* bytes, std::string* why) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string_view whole = text.substr(0, i);
  std::string_view frac;
  if (i < text.size() && text[i] == '.') {
    size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    frac = text.substr(i + 1, j - i - 1);
    i = j;
  }
  if (whole.empty()) {
    *why = "bad size: expected a number such as 1500, 64K or 1.5m";
    return false;
  }
  const std::string_view suffix = text.substr(i);
  uint64_t mult = 0;
  const std::string low = lower(suffix);
  if (suffix.empty())
    mult = 1;
  else if (suffix == "K" || low == "kib")
    mult = 1ull << 10;
  else if (suffix == "M" || low == "mib")
    mult = 1ull << 20;
  else if (suffix == "G" || low == "gib")
    mult = 1ull << 30;
  else if (suffix == "k" || low == "kb")
    mult = 1000;
  else if (suffix == "m" || low == "mb")
    mult = 1000 * 1000;
  else if (suffix == "g" || low == "gb")
    mult = 1000 * 1000 * 1000;
  if (!mult) {
    *why = fmt::format(
        "bad size suffix '{}': K, M, G (or kib, mib, gib) multiply by 1024, "
        "k, m, g (or kb, mb, gb) by 1000",
        suffix);
    return false;
  }
  if (whole.size() > 12 || frac.size() > 9) {
    *why = "bad size: too many digits";
    return false;
  }
  const uint64_t w = std::stoull(std::string(whole));
  uint64_t num = 0, den = 1;
  for (char c : frac) {
    num = num * 10 + static_cast<uint64_t>(c - '0');
    den *= 10;
  }
  // mult <= 2^30 and num < 10^9, so num * mult fits comfortably.
  if ((num * mult) % den != 0) {
    *why = "bad size: not a whole number of bytes";
    return false;
  }
  if (w > (UINT64_MAX / 2) / mult) {
    *why = "bad size: too large";
    return false;
  }
  *bytes = w * mult + num * mult / den;
  return true;
}

bool parse_qperf_time(std::string_view text, double* seconds, std::string* why) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const size_t int_digits = i;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t frac_start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == frac_start) {
      *why = "bad time: expected digits after the decimal point";
      return false;
    }
  }
  if (int_digits == 0 || int_digits > 12) {
    *why = "bad time: expected seconds such as 10 or 0.5, or a number with m, h or d";
    return false;
  }
  double v = std::stod(std::string(text.substr(0, i)));
  std::string_view suffix = text.substr(i);
  double mult = 0;
  if (suffix.empty()) mult = 1;
  if (suffix.size() == 1) {
    switch (std::tolower(static_cast<unsigned char>(suffix[0]))) {
      case 's':
        mult = 1;
        break;
      case 'm':
        mult = 60;
        break;
      case 'h':
        mult = 3600;
        break;
      case 'd':
        mult = 86400;
        break;
      default:
        break;
    }
  }
  if (!mult) {
    *why = fmt::format("bad time suffix '{}': use s, m, h or d", suffix);
    return false;
  }
  *seconds = v * mult;
  return true;
}

bool in_use(TestKind test, Param p) {
  if (test == TestKind::kRdma) return true;  // refused before anything runs
  if (!is_socket_test(test))                 // conf and quit
    return p == Param::kAffinity || p == Param::kTime || p == Param::kTimeout;
  switch (p) {
    case Param::kAccessRecv:
      return is_bw_test(test);
    case Param::kFlip:  // tcp_bw: the parser keeps it so the client can refuse it by name
      return test == TestKind::kTcpBw;
    case Param::kAffinity:
    case Param::kMsgSize:
    case Param::kNoMsgs:
    case Param::kPort:
    case Param::kSockBufSize:
    case Param::kTime:
    case Param::kTimeout:
      return true;
    default:  // the RDMA-only ones
      return false;
  }
}

std::vector<std::string> unused_warnings(const Run& run) {
  std::vector<std::string> out;
  if (!is_socket_test(run.test.kind)) return out;
  for (size_t i = 0; i < kParamCount; ++i) {
    const auto p = static_cast<Param>(i);
    if (in_use(run.test.kind, p)) continue;
    for (const Value* v : {&run.params[p].loc, &run.params[p].rem}) {
      if (!v->set()) continue;
      std::string w =
          fmt::format("warning: {} set but not used in test {}", v->set_by, run.test.name);
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
    }
  }
  return out;
}

std::vector<report::QperfParam> used_params(const Run& run) {
  using K = report::QperfParam::Kind;
  static const std::pair<const char*, K> kShown[kParamCount] = {
      {"access_recv", K::kCount},
      {"affinity", K::kText},
      {"alt_port", K::kCount},
      {"flip", K::kCount},
      {"id", K::kText},
      {"msg_size", K::kSize},
      {"mtu_size", K::kSize},
      {"no_msgs", K::kCount},
      {"poll_mode", K::kCount},
      {"port", K::kCount},
      {"rd_atomic", K::kCount},
      {"service_level", K::kCount},
      {"sock_buf_size", K::kSize},
      {"src_path_bits", K::kSize},
      {nullptr, K::kText},
      {"time", K::kTime},
      {"timeout", K::kTime},
      {"use_cm", K::kCount},
  };
  std::vector<report::QperfParam> out;
  for (size_t i = 0; i < kParamCount; ++i) {
    const auto p = static_cast<Param>(i);
    if (!kShown[i].first || !in_use(run.test.kind, p)) continue;
    const Setting& s = run.params[p];
    report::QperfParam q;
    q.name = kShown[i].first;
    q.kind = kShown[i].second;
    q.loc = s.loc.num;
    q.rem = s.rem.num;
    q.loc_text = s.loc.text;
    q.rem_text = s.rem.text;
    q.set = s.loc.set() || s.rem.set();
    out.push_back(std::move(q));
  }
  return out;
}

namespace {

// " (did you mean NAME?)" with the known name nearest to word, or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& names) {
  const std::string near = core::nearest(word, names);
  return near.empty() ? "" : " (did you mean " + near + "?)";
}

}  // namespace

Args parse_args(const std::vector<std::string>& words) {
  Args out;
  State st;
  bool client = false, test_named = false;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    if (!word.empty() && word[0] == '-') {
      for (const auto& [old_name, new_name] : kRenamed) {
        if (word == old_name) {
          out.warnings.push_back(
              fmt::format("warning: obsolete option: {}; use {} instead", old_name, new_name));
          word = new_name;
          break;
        }
      }
      const Option* o = find_option(word);
      if (!o) {
        std::vector<std::string> names;
        for (const auto& known : options()) names.emplace_back(known.name);
        throw usage_error(fmt::format("{}: bad option{}; try: qperf --help options", word,
                                      did_you_mean(word, names)));
      }
      if (!o->server) client = true;
      if (o->kind == Kind::kHelp) {
        out.mode = Args::Mode::kHelp;
        out.help_topic = i + 1 < words.size() ? words[i + 1] : "main";
        if (!is_help_topic(out.help_topic))
          throw bad(word, out.help_topic,
                    fmt::format("cannot find help category {}; the categories are main, "
                                "categories, examples, opts, options, tests and each test's "
                                "name (qperf --help tests)",
                                out.help_topic));
        return out;
      }
      if (o->kind == Kind::kVersion) {
        out.mode = Args::Mode::kVersion;
        return out;
      }
      if (!takes_word(o->kind)) {
        apply_flag(st, *o, word);
        continue;
      }
      if (i + 1 >= words.size())
        throw usage_error(fmt::format("{}: missing argument ({})", word, word_for(o->kind)));
      const std::string& value = words[++i];
      if (o->kind == Kind::kLoop)
        st.loops.push_back(parse_loop(word, value));
      else
        apply_value(st, *o, word, value);
      continue;
    }
    client = true;
    if (st.host.empty()) {
      st.host = word;
      continue;
    }
    const TestName* t = find_test(word);
    if (!t) {
      std::vector<std::string> names;
      for (const auto& known : all_tests()) names.emplace_back(known.name);
      throw usage_error(
          fmt::format("{}: bad test{}; try: qperf --help tests", word, did_you_mean(word, names)));
    }
    test_named = true;
    expand(st, 0, *t, &out.runs);
  }
  out.listen_port = st.listen_port;
  if (st.params[Param::kTimeout].loc.set())
    out.server_timeout_s = st.params[Param::kTimeout].loc.num;
  if (!client) {
    out.mode = Args::Mode::kServer;
    return out;
  }
  out.mode = Args::Mode::kClient;
  if (!test_named) {
    if (st.host.empty())
      throw usage_error(
          "you used a client-only option but did not give the server's name; to be a server, "
          "run qperf with no options but -lp");
    if (find_test(st.host)) throw usage_error("must specify host name first; try: qperf --help");
    throw usage_error("must specify a test type; try: qperf --help");
  }
  return out;
}

}  // namespace flowperf::cli::qperf
