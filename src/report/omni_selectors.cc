#include "report/omni_selectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace flowperf::report {
namespace {

using Text = std::optional<std::string>;

// printf, because netperf's values are printf output ("%.2f" of a NaN is
// "-nan", "0x%.4x" of -2 is "0xfffffffe") and matching them is the point.
__attribute__((format(printf, 1, 2))) std::string cformat(const char* f, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, f);
  int n = std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return n < 0 ? std::string()
               : std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

constexpr const char* kDeprecated = "Deprecated";  // what netperf 2.7 prints for retired selectors
// flowperf's buffers come from the heap, so they are at least as aligned as
// netperf's default (8 bytes) and never offset.
constexpr int kBufferAlign = 8;

Text s(const std::string& x) { return x; }
Text d(int x) { return cformat("%d", x); }
Text u(uint64_t x) { return cformat("%llu", static_cast<unsigned long long>(x)); }
Text c(char x) { return std::string(1, x); }
Text f0(double x) { return cformat("%.0f", x); }
Text f2(double x) { return cformat("%.2f", x); }
Text f3(double x) { return cformat("%.3f", x); }
Text f6(double x) { return cformat("%f", x); }
Text x2(int x) { return cformat("0x%.2x", static_cast<unsigned>(x)); }
Text x4(int x) { return cformat("0x%.4x", static_cast<unsigned>(x)); }
Text quoted(const std::string& x) { return "\"" + x + "\""; }
Text quoted(const std::optional<std::string>& x) {
  if (!x) return std::nullopt;
  return quoted(*x);
}
Text none() { return std::nullopt; }
double per(uint64_t bytes, uint64_t calls) {
  return calls ? static_cast<double>(bytes) / static_cast<double>(calls) : 0.0;
}
double sum(uint64_t a, uint64_t b) { return static_cast<double>(a) + static_cast<double>(b); }

struct Entry {
  const char* name;
  const char* header;  // lines separated by '|'
  Text (*value)(const OmniValues&);
};

// netperf 2.7's selectors in its own order. Values flowperf does not measure
// print netperf's "no value": -1 (or -2 in hex for interface ids), -1.00 for
// CPU figures, "Deprecated" for the system strings netperf retired.
const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {"OUTPUT_NONE", " ", [](const OmniValues&) { return s(" "); }},
      {"SOCKET_TYPE", "Socket|Type", [](const OmniValues& v) { return s(v.socket_type); }},
      {"PROTOCOL", "Protocol", [](const OmniValues& v) { return s(v.protocol); }},
      {"DIRECTION", "Direction", [](const OmniValues& v) { return s(v.direction); }},
      {"ELAPSED_TIME", "Elapsed|Time|(sec)", [](const OmniValues& v) { return f2(v.elapsed_s); }},
      {"THROUGHPUT", "Throughput", [](const OmniValues& v) { return f2(v.throughput); }},
      {"THROUGHPUT_UNITS", "Throughput|Units",
       [](const OmniValues& v) { return s(v.units + "/s"); }},
      {"LSS_SIZE_REQ", "Local|Send Socket|Size|Requested",
       [](const OmniValues& v) { return d(v.lss_req); }},
      {"LSS_SIZE", "Local|Send Socket|Size|Initial", [](const OmniValues& v) { return d(v.lss); }},
      {"LSS_SIZE_END", "Local|Send Socket|Size|Final",
       [](const OmniValues& v) { return d(v.lss_end); }},
      {"LSR_SIZE_REQ", "Local|Recv Socket|Size|Requested",
       [](const OmniValues& v) { return d(v.lsr_req); }},
      {"LSR_SIZE", "Local|Recv Socket|Size|Initial", [](const OmniValues& v) { return d(v.lsr); }},
      {"LSR_SIZE_END", "Local|Recv Socket|Size|Final",
       [](const OmniValues& v) { return d(v.lsr_end); }},
      {"RSS_SIZE_REQ", "Remote|Send Socket|Size|Requested",
       [](const OmniValues& v) { return d(v.rss_req); }},
      {"RSS_SIZE", "Remote|Send Socket|Size|Initial", [](const OmniValues& v) { return d(v.rss); }},
      {"RSS_SIZE_END", "Remote|Send Socket|Size|Final",
       [](const OmniValues& v) { return d(v.rss_end); }},
      {"RSR_SIZE_REQ", "Remote|Recv Socket|Size|Requested",
       [](const OmniValues& v) { return d(v.rsr_req); }},
      {"RSR_SIZE", "Remote|Recv Socket|Size|Initial", [](const OmniValues& v) { return d(v.rsr); }},
      {"RSR_SIZE_END", "Remote|Recv Socket|Size|Final",
       [](const OmniValues& v) { return d(v.rsr_end); }},
      {"LOCAL_SEND_SIZE", "Local|Send|Size",
       [](const OmniValues& v) { return d(v.local_send_size); }},
      {"LOCAL_RECV_SIZE", "Local|Recv|Size",
       [](const OmniValues& v) { return d(v.local_recv_size); }},
      {"REMOTE_SEND_SIZE", "Remote|Send|Size",
       [](const OmniValues& v) { return d(v.remote_send_size); }},
      {"REMOTE_RECV_SIZE", "Remote|Recv|Size",
       [](const OmniValues& v) { return d(v.remote_recv_size); }},
      {"REQUEST_SIZE", "Request|Size|Bytes", [](const OmniValues& v) { return d(v.request_size); }},
      {"RESPONSE_SIZE", "Response|Size|Bytes",
       [](const OmniValues& v) { return d(v.response_size); }},
      {"LOCAL_CPU_UTIL", "Local|CPU|Util|%",
       [](const OmniValues& v) { return f2(v.local_cpu.util); }},
      {"LOCAL_CPU_PERCENT_USER", "Local|CPU|User|%",
       [](const OmniValues& v) { return f2(v.local_cpu.user); }},
      {"LOCAL_CPU_PERCENT_SYSTEM", "Local|CPU|System|%",
       [](const OmniValues& v) { return f2(v.local_cpu.system); }},
      {"LOCAL_CPU_PERCENT_IOWAIT", "Local|CPU|I/O|%",
       [](const OmniValues& v) { return f2(v.local_cpu.iowait); }},
      {"LOCAL_CPU_PERCENT_IRQ", "Local|CPU|IRQ|%",
       [](const OmniValues& v) { return f2(v.local_cpu.irq); }},
      {"LOCAL_CPU_PERCENT_SWINTR", "Local|CPU|swintr|%",
       [](const OmniValues& v) { return f2(v.local_cpu.swintr); }},
      {"LOCAL_CPU_METHOD", "Local|CPU|Util|Method",
       [](const OmniValues& v) { return c(v.local_cpu.method); }},
      {"LOCAL_SD", "Local|Service|Demand", [](const OmniValues& v) { return f3(v.local_cpu.sd); }},
      {"REMOTE_CPU_UTIL", "Remote|CPU|Util|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.util); }},
      {"REMOTE_CPU_PERCENT_USER", "Remote|CPU|User|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.user); }},
      {"REMOTE_CPU_PERCENT_SYSTEM", "Remote|CPU|System|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.system); }},
      {"REMOTE_CPU_PERCENT_IOWAIT", "Remote|CPU|I/O|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.iowait); }},
      {"REMOTE_CPU_PERCENT_IRQ", "Remote|CPU|IRQ|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.irq); }},
      {"REMOTE_CPU_PERCENT_SWINTR", "Remote|CPU|swintr|%",
       [](const OmniValues& v) { return f2(v.remote_cpu.swintr); }},
      {"REMOTE_CPU_METHOD", "Remote|CPU|Util|Method",
       [](const OmniValues& v) { return c(v.remote_cpu.method); }},
      {"REMOTE_SD", "Remote|Service|Demand",
       [](const OmniValues& v) { return f3(v.remote_cpu.sd); }},
      {"SD_UNITS", "Service|Demand|Units", [](const OmniValues& v) { return s(v.sd_units); }},
      {"CONFIDENCE_LEVEL", "Confidence|Level|Percent",
       [](const OmniValues& v) { return d(v.confidence_level); }},
      {"CONFIDENCE_INTERVAL", "Confidence|Width|Target",
       [](const OmniValues& v) { return f6(v.confidence_interval); }},
      {"CONFIDENCE_ITERATION", "Confidence|Iterations|Run",
       [](const OmniValues& v) { return d(v.confidence_iteration); }},
      {"THROUGHPUT_CONFID", "Throughput|Confidence|Width (%)",
       [](const OmniValues& v) { return f3(v.throughput_confid); }},
      {"LOCAL_CPU_CONFID", "Local|CPU|Confidence|Width (%)",
       [](const OmniValues& v) { return f3(v.local_cpu_confid); }},
      {"REMOTE_CPU_CONFID", "Remote|CPU|Confidence|Width (%)",
       [](const OmniValues& v) { return f3(v.remote_cpu_confid); }},
      {"TRANSACTION_RATE", "Transaction|Rate|Tran/s",
       [](const OmniValues& v) { return f3(v.transaction_rate); }},
      {"RT_LATENCY", "Round|Trip|Latency|usec/tran",
       [](const OmniValues& v) { return f3(v.rt_latency); }},
      {"BURST_SIZE", "Initial|Burst|Requests", [](const OmniValues& v) { return d(v.burst_size); }},
      {"LOCAL_TRANSPORT_RETRANS", "Local|Transport|Retransmissions",
       [](const OmniValues& v) { return d(v.local_retrans); }},
      {"REMOTE_TRANSPORT_RETRANS", "Remote|Transport|Retransmissions",
       [](const OmniValues& v) { return d(v.remote_retrans); }},
      {"TRANSPORT_MSS", "Transport|MSS|bytes",
       [](const OmniValues& v) { return d(v.transport_mss); }},
      {"LOCAL_SEND_THROUGHPUT", "Local|Send|Throughput",
       [](const OmniValues& v) { return f2(v.local_send_tput); }},
      {"LOCAL_RECV_THROUGHPUT", "Local|Recv|Throughput",
       [](const OmniValues& v) { return f2(v.local_recv_tput); }},
      {"REMOTE_SEND_THROUGHPUT", "Remote|Send|Throughput",
       [](const OmniValues& v) { return f2(v.remote_send_tput); }},
      {"REMOTE_RECV_THROUGHPUT", "Remote|Recv|Throughput",
       [](const OmniValues& v) { return f2(v.remote_recv_tput); }},
      {"LOCAL_CPU_BIND", "Local|CPU|Bind", [](const OmniValues&) { return d(-1); }},
      {"LOCAL_CPU_COUNT", "Local|CPU|Count",
       [](const OmniValues& v) { return d(v.local_cpu.count); }},
      {"LOCAL_CPU_PEAK_UTIL", "Local|Peak|Per CPU|Util %",
       [](const OmniValues& v) { return f2(v.local_cpu.peak_util); }},
      {"LOCAL_CPU_PEAK_ID", "Local|Peak|Per CPU|ID",
       [](const OmniValues& v) { return d(v.local_cpu.peak_id); }},
      {"LOCAL_CPU_MODEL", "Local|CPU|Model", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_CPU_FREQUENCY", "Local|CPU|Frequency|MHz", [](const OmniValues&) { return d(0); }},
      {"REMOTE_CPU_BIND", "Remote|CPU|Bind", [](const OmniValues&) { return d(-1); }},
      {"REMOTE_CPU_COUNT", "Remote|CPU|Count",
       [](const OmniValues& v) { return d(v.remote_cpu.count); }},
      {"REMOTE_CPU_PEAK_UTIL", "Remote|Peak|Per CPU|Util %",
       [](const OmniValues& v) { return f2(v.remote_cpu.peak_util); }},
      {"REMOTE_CPU_PEAK_ID", "Remote|Peak|Per CPU|ID",
       [](const OmniValues& v) { return d(v.remote_cpu.peak_id); }},
      {"REMOTE_CPU_MODEL", "Remote|CPU|Model", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_CPU_FREQUENCY", "Remote|CPU|Frequency|MHz", [](const OmniValues&) { return d(0); }},
      {"SOURCE_PORT", "Source|Port", [](const OmniValues& v) { return s(v.source_port); }},
      {"SOURCE_ADDR", "Source|Address", [](const OmniValues& v) { return s(v.source_addr); }},
      {"SOURCE_FAMILY", "Source|Family", [](const OmniValues& v) { return d(v.source_family); }},
      {"DEST_PORT", "Destination|Port", [](const OmniValues& v) { return s(v.dest_port); }},
      {"DEST_ADDR", "Destination|Address", [](const OmniValues& v) { return s(v.dest_addr); }},
      {"DEST_FAMILY", "Destination|Family", [](const OmniValues& v) { return d(v.dest_family); }},
      {"LOCAL_SEND_CALLS", "Local|Send|Calls",
       [](const OmniValues& v) { return u(v.local_send_calls); }},
      {"LOCAL_RECV_CALLS", "Local|Recv|Calls",
       [](const OmniValues& v) { return u(v.local_recv_calls); }},
      {"LOCAL_BYTES_PER_RECV", "Local|Bytes|Per|Recv",
       [](const OmniValues& v) { return f2(per(v.local_bytes_recvd, v.local_recv_calls)); }},
      {"LOCAL_BYTES_PER_SEND", "Local|Bytes|Per|Send",
       [](const OmniValues& v) { return f2(per(v.local_bytes_sent, v.local_send_calls)); }},
      {"LOCAL_BYTES_SENT", "Local|Bytes|Sent",
       [](const OmniValues& v) { return u(v.local_bytes_sent); }},
      {"LOCAL_BYTES_RECVD", "Local|Bytes|Received",
       [](const OmniValues& v) { return u(v.local_bytes_recvd); }},
      {"LOCAL_BYTES_XFERD", "Local|Bytes|Xferred",
       [](const OmniValues& v) { return f0(sum(v.local_bytes_sent, v.local_bytes_recvd)); }},
      {"LOCAL_SEND_OFFSET", "Local|Send|Offset", [](const OmniValues&) { return d(0); }},
      {"LOCAL_RECV_OFFSET", "Local|Recv|Offset", [](const OmniValues&) { return d(0); }},
      {"LOCAL_SEND_ALIGN", "Local|Send|Alignment",
       [](const OmniValues&) { return d(kBufferAlign); }},
      {"LOCAL_RECV_ALIGN", "Local|Recv|Alignment",
       [](const OmniValues&) { return d(kBufferAlign); }},
      {"LOCAL_SEND_WIDTH", "Local|Send|Width",
       [](const OmniValues& v) { return d(v.local_send_width); }},
      {"LOCAL_RECV_WIDTH", "Local|Recv|Width",
       [](const OmniValues& v) { return d(v.local_recv_width); }},
      {"LOCAL_SEND_DIRTY_COUNT", "Local|Send|Dirty|Count", [](const OmniValues&) { return d(-1); }},
      {"LOCAL_RECV_DIRTY_COUNT", "Local|Recv|Dirty|Count", [](const OmniValues&) { return d(-1); }},
      {"LOCAL_RECV_CLEAN_COUNT", "Local|Recv|Clean|Count", [](const OmniValues&) { return d(-1); }},
      {"LOCAL_NODELAY", "Local|NODELAY", [](const OmniValues& v) { return d(v.local_nodelay); }},
      {"LOCAL_CORK", "Local|Cork", [](const OmniValues&) { return d(0); }},
      {"REMOTE_SEND_CALLS", "Remote|Send|Calls",
       [](const OmniValues& v) { return u(v.remote_send_calls); }},
      {"REMOTE_RECV_CALLS", "Remote|Recv|Calls",
       [](const OmniValues& v) { return u(v.remote_recv_calls); }},
      {"REMOTE_BYTES_PER_RECV", "Remote|Bytes|Per|Recv",
       [](const OmniValues& v) { return f2(per(v.remote_bytes_recvd, v.remote_recv_calls)); }},
      {"REMOTE_BYTES_PER_SEND", "Remote|Bytes|Per|Send",
       [](const OmniValues& v) { return f2(per(v.remote_bytes_sent, v.remote_send_calls)); }},
      {"REMOTE_BYTES_SENT", "Remote|Bytes|Sent",
       [](const OmniValues& v) { return u(v.remote_bytes_sent); }},
      {"REMOTE_BYTES_RECVD", "Remote|Bytes|Received",
       [](const OmniValues& v) { return u(v.remote_bytes_recvd); }},
      {"REMOTE_BYTES_XFERD", "Remote|Bytes|Xferred",
       [](const OmniValues& v) { return f0(sum(v.remote_bytes_sent, v.remote_bytes_recvd)); }},
      {"REMOTE_SEND_OFFSET", "Remote|Send|Offset", [](const OmniValues&) { return d(0); }},
      {"REMOTE_RECV_OFFSET", "Remote|Recv|Offset", [](const OmniValues&) { return d(0); }},
      {"REMOTE_SEND_ALIGN", "Remote|Send|Alignment",
       [](const OmniValues&) { return d(kBufferAlign); }},
      {"REMOTE_RECV_ALIGN", "Remote|Recv|Alignment",
       [](const OmniValues&) { return d(kBufferAlign); }},
      {"REMOTE_SEND_WIDTH", "Remote|Send|Width",
       [](const OmniValues& v) { return d(v.remote_send_width); }},
      {"REMOTE_RECV_WIDTH", "Remote|Recv|Width",
       [](const OmniValues& v) { return d(v.remote_recv_width); }},
      {"REMOTE_SEND_DIRTY_COUNT", "Remote|Send|Dirty|Count",
       [](const OmniValues&) { return d(-1); }},
      {"REMOTE_RECV_DIRTY_COUNT", "Remote|Recv|Dirty|Count",
       [](const OmniValues&) { return d(-1); }},
      {"REMOTE_RECV_CLEAN_COUNT", "Remote|Recv|Clean|Count",
       [](const OmniValues&) { return d(-1); }},
      {"REMOTE_NODELAY", "Remote|NODELAY", [](const OmniValues& v) { return d(v.remote_nodelay); }},
      {"REMOTE_CORK", "Remote|Cork", [](const OmniValues&) { return d(0); }},
      {"LOCAL_SYSNAME", "Local|Sysname", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_SYSTEM_MODEL", "Local|System|Model",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_RELEASE", "Local|Release", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_VERSION", "Local|Version", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_MACHINE", "Local|Machine", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_SYSNAME", "Remote|Sysname", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_SYSTEM_MODEL", "Remote|System|Model",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_RELEASE", "Remote|Release", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_VERSION", "Remote|Version", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_MACHINE", "Remote|Machine", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_INTERFACE_NAME", "Local|Interface|Name",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_INTERFACE_VENDOR", "Local|Interface|Vendor",
       [](const OmniValues&) { return x4(-2); }},
      {"LOCAL_INTERFACE_DEVICE", "Local|Interface|Device",
       [](const OmniValues&) { return x4(-2); }},
      {"LOCAL_INTERFACE_SUBVENDOR", "Local|Interface|Subvendor",
       [](const OmniValues&) { return x4(-2); }},
      {"LOCAL_INTERFACE_SUBDEVICE", "Local|Interface|Subdevice",
       [](const OmniValues&) { return x4(-2); }},
      {"LOCAL_DRIVER_NAME", "Local|Driver|Name", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_DRIVER_VERSION", "Local|Driver|Version",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_DRIVER_FIRMWARE", "Local|Driver|Firmware",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_DRIVER_BUS", "Local|Driver|Bus", [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_INTERFACE_SLOT", "Local|Interface|Slot",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_INTERFACE_NAME", "Remote|Interface|Name",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_INTERFACE_VENDOR", "Remote|Interface|Vendor",
       [](const OmniValues&) { return x4(-2); }},
      {"REMOTE_INTERFACE_DEVICE", "Remote|Interface|Device",
       [](const OmniValues&) { return x4(-2); }},
      {"REMOTE_INTERFACE_SUBVENDOR", "Remote|Interface|Subvendor",
       [](const OmniValues&) { return x4(-2); }},
      {"REMOTE_INTERFACE_SUBDEVICE", "Remote|Interface|Subdevice",
       [](const OmniValues&) { return x4(-2); }},
      {"REMOTE_DRIVER_NAME", "Remote|Driver|Name",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_DRIVER_VERSION", "Remote|Driver|Version",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_DRIVER_FIRMWARE", "Remote|Driver|Firmware",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_DRIVER_BUS", "Remote|Driver|Bus", [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_INTERFACE_SLOT", "Remote|Interface|Slot",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_INTERVAL_USECS", "Local|Interval|Usecs", [](const OmniValues&) { return d(0); }},
      {"LOCAL_INTERVAL_BURST", "Local|Interval|Burst", [](const OmniValues&) { return d(0); }},
      {"REMOTE_INTERVAL_USECS", "Remote|Interval|Usecs", [](const OmniValues&) { return d(0); }},
      {"REMOTE_INTERVAL_BURST", "Remote|Interval|Burst", [](const OmniValues&) { return d(0); }},
      {"LOCAL_SECURITY_TYPE_ID", "Local|OS|Security|Type ID",
       [](const OmniValues&) { return d(0); }},
      {"LOCAL_SECURITY_TYPE", "Local|OS|Security|Type",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_SECURITY_ENABLED_NUM", "Local|OS|Security|Enabled Num",
       [](const OmniValues&) { return d(0); }},
      {"LOCAL_SECURITY_ENABLED", "Local|OS|Security|Enabled",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"LOCAL_SECURITY_SPECIFIC", "Local|OS|Security|Specific",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_SECURITY_TYPE_ID", "Remote|OS|Security|Type",
       [](const OmniValues&) { return d(0); }},
      {"REMOTE_SECURITY_TYPE", "Remote|OS|Security|Type",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_SECURITY_ENABLED_NUM", "Remote|OS|Security|Enabled",
       [](const OmniValues&) { return d(0); }},
      {"REMOTE_SECURITY_ENABLED", "Remote|OS|Security|Enabled",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"REMOTE_SECURITY_SPECIFIC", "Remote|OS|Security|Specific",
       [](const OmniValues&) { return s(kDeprecated); }},
      {"RESULT_BRAND", "Result|Tag", [](const OmniValues& v) { return quoted(v.brand); }},
      {"UUID", "Test|UUID", [](const OmniValues& v) { return s(v.uuid); }},
      {"MIN_LATENCY", "Minimum|Latency|Microseconds",
       [](const OmniValues& v) { return d(v.min_latency.value_or(-1)); }},
      {"MAX_LATENCY", "Maximum|Latency|Microseconds",
       [](const OmniValues& v) { return d(v.max_latency.value_or(-1)); }},
      {"P50_LATENCY", "50th|Percentile|Latency|Microseconds",
       [](const OmniValues& v) { return d(v.p50_latency.value_or(-1)); }},
      {"P90_LATENCY", "90th|Percentile|Latency|Microseconds",
       [](const OmniValues& v) { return d(v.p90_latency.value_or(-1)); }},
      {"P99_LATENCY", "99th|Percentile|Latency|Microseconds",
       [](const OmniValues& v) { return d(v.p99_latency.value_or(-1)); }},
      {"MEAN_LATENCY", "Mean|Latency|Microseconds",
       [](const OmniValues& v) { return f2(v.mean_latency.value_or(-1)); }},
      {"STDDEV_LATENCY", "Stddev|Latency|Microseconds",
       [](const OmniValues& v) { return f2(v.stddev_latency.value_or(-1)); }},
      {"LOCAL_SOCKET_PRIO", "Local|Socket|Priority",
       [](const OmniValues& v) { return d(v.local_socket_prio); }},
      {"REMOTE_SOCKET_PRIO", "Remote|Socket|Priority",
       [](const OmniValues& v) { return d(v.remote_socket_prio); }},
      {"LOCAL_SOCKET_TOS", "Local|Socket|TOS",
       [](const OmniValues& v) { return x2(v.local_socket_tos); }},
      {"REMOTE_SOCKET_TOS", "Remote|Socket|TOS",
       [](const OmniValues& v) { return x2(v.remote_socket_tos); }},
      {"LOCAL_CONG_CONTROL", "Local|Congestion|Control|Algorithm",
       [](const OmniValues& v) { return s(v.local_cong_control); }},
      {"REMOTE_CONG_CONTROL", "Remote|Congestion|Control|Algorithm",
       [](const OmniValues& v) { return s(v.remote_cong_control); }},
      {"LOCAL_FILL_FILE", "Local|Fill|File", [](const OmniValues&) { return s(""); }},
      {"REMOTE_FILL_FILE", "Remote|Fill|File", [](const OmniValues&) { return s(""); }},
      {"COMMAND_LINE", "Command|Line", [](const OmniValues& v) { return quoted(v.command_line); }},
      {"OUTPUT_END", "", [](const OmniValues&) { return none(); }},
  };
  return t;
}

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return u;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> header_lines(size_t index) {
  std::vector<std::string> lines(4);
  std::string_view h = table()[index].header;
  size_t k = 0;
  while (k < 4) {
    size_t bar = h.find('|');
    lines[k++] = std::string(h.substr(0, bar));
    if (bar == std::string_view::npos) break;
    h.remove_prefix(bar + 1);
  }
  return lines;
}

// The header lines joined by spaces ("Throughput Units"): netperf also
// accepts this form of a name in a selection file.
std::string joined_header(size_t index) {
  std::string out;
  for (const auto& line : header_lines(index)) {
    if (line.empty()) break;
    if (!out.empty()) out += ' ';
    out += line;
  }
  return out;
}

size_t index_of(std::string_view name) {
  auto i = find_omni_selector(name);
  return i ? *i : 0;
}

const size_t kOutputEnd = table().size() - 1;

// A line of a direct list: names separated by ',' or blanks.
bool parse_list_line(std::string_view line, std::vector<size_t>* out, std::string* why) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ',' || std::isspace(static_cast<unsigned char>(line[i]))))
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ',' && !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (start == i) continue;
    std::string_view name = line.substr(start, i - start);
    auto sel = find_omni_selector(name);
    if (!sel) {
      if (why)
        *why = fmt::format("'{}' is not a netperf output selector (`-O ?` lists them)", name);
      return false;
    }
    out->push_back(*sel);
  }
  return true;
}

// A line of a selection file: names (or header texts) separated by ','.
bool parse_file_line(std::string_view line, std::vector<size_t>* out, std::string* why) {
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    std::string name =
        trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (!name.empty()) {
      auto sel = find_omni_selector(name);
      if (!sel) {
        std::string u = upper(name);
        for (size_t k = 0; k < table().size() && !sel; ++k)
          if (upper(joined_header(k)) == u) sel = k;
      }
      if (!sel) {
        if (why)
          *why = fmt::format("'{}' is not a netperf output selector (`-O ?` lists them)", name);
        return false;
      }
      out->push_back(*sel);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

// netperf stops a line at OUTPUT_END and prints at most four lines.
OmniSelection tidy(OmniSelection sel) {
  if (sel.size() > 4) sel.resize(4);
  for (auto& line : sel) {
    auto end = std::find(line.begin(), line.end(), kOutputEnd);
    line.erase(end, line.end());
  }
  return sel;
}

OmniSelection from_names(std::initializer_list<std::string_view> names) {
  std::vector<size_t> line;
  for (auto n : names) line.push_back(index_of(n));
  return {line};
}

// -O: every column as wide as its widest header line, or its value plus one;
// one space between columns; every line of a block padded to the same width.
std::string render_human(const OmniSelection& sel, const OmniValues& v, bool headers) {
  std::string out;
  for (size_t b = 0; b < sel.size(); ++b) {
    const auto& line = sel[b];
    if (line.empty()) continue;
    if (b > 0) out += '\n';
    std::vector<std::string> hdr(4);
    std::string val;
    for (size_t idx : line) {
      auto lines = header_lines(idx);
      Text value = table()[idx].value(v);
      size_t width = 0;
      for (const auto& l : lines) width = std::max(width, l.size());
      if (value) width = std::max(width, value->size() + 1);
      for (size_t k = 0; k < 4; ++k) {
        hdr[k] += lines[k];
        hdr[k].append(width + 1 - lines[k].size(), ' ');
      }
      std::string shown = value.value_or("");
      val += shown;
      val.append(width + 1 - shown.size(), ' ');
    }
    if (headers)
      for (const auto& h : hdr) out += h + '\n';
    out += val + '\n';
  }
  return out;
}

// -o: a header line of the joined header texts, then the values. Where
// netperf has no value at all it leaves the field empty, and (its quirk) the
// next field starts with a space, or the line ends with an extra comma.
std::string render_csv(const OmniSelection& sel, const OmniValues& v, bool headers) {
  std::string hdr, val;
  bool any = false;
  for (const auto& line : sel) {
    for (size_t idx : line) {
      any = true;
      hdr += joined_header(idx) + ',';
      Text value = table()[idx].value(v);
      if (value)
        val += *value + ',';
      else
        val += ", ";
    }
  }
  if (!any) return {};
  hdr.pop_back();
  val.pop_back();
  return (headers ? hdr + '\n' : std::string()) + val + '\n';
}

// -k: NAME=value, skipping names netperf has no value for.
std::string render_keyval(const OmniSelection& sel, const OmniValues& v) {
  std::string out;
  for (const auto& line : sel)
    for (size_t idx : line)
      if (Text value = table()[idx].value(v))
        out += fmt::format("{}={}\n", table()[idx].name, *value);
  return out;
}

}  // namespace

const std::vector<OmniSelector>& omni_selectors() {
  static const std::vector<OmniSelector> all = [] {
    std::vector<OmniSelector> v;
    for (const auto& e : table()) v.push_back({e.name, e.header});
    return v;
  }();
  return all;
}

std::optional<size_t> find_omni_selector(std::string_view name) {
  std::string u = upper(name);
  for (size_t i = 0; i < table().size(); ++i)
    if (u == table()[i].name) return i;
  return std::nullopt;
}

std::optional<OmniSelection> parse_omni_selection(std::string_view spec, std::string* why) {
  const std::string text = trim(spec);
  if (upper(text) == "ALL") {
    // netperf's four blocks: test set-up, CPU and confidence, counters, the rest.
    auto range = [](std::string_view from, std::string_view to) {
      std::vector<size_t> line;
      for (size_t i = index_of(from); i <= index_of(to); ++i) line.push_back(i);
      return line;
    };
    return OmniSelection{
        range("SOCKET_TYPE", "RESPONSE_SIZE"), range("LOCAL_CPU_UTIL", "TRANSPORT_MSS"),
        range("LOCAL_SEND_THROUGHPUT", "REMOTE_CORK"), range("LOCAL_SYSNAME", "COMMAND_LINE")};
  }
  const bool is_list =
      text.find_first_of(",;") != std::string::npos || find_omni_selector(text).has_value();
  std::ifstream file;
  if (!is_list) {
    file.open(text);
    if (!file && text.find_first_of(" \t") == std::string::npos) {
      if (why)
        *why = fmt::format(
            "'{}' is neither a netperf output selector nor a readable file (`-O ?` lists the "
            "selectors)",
            text);
      return std::nullopt;
    }
  }
  OmniSelection sel;
  if (file.is_open()) {
    std::string line;
    while (sel.size() < 4 && std::getline(file, line)) {
      sel.emplace_back();
      if (!parse_file_line(line, &sel.back(), why)) return std::nullopt;
    }
  } else {
    std::string_view rest = text;
    for (;;) {
      size_t semi = rest.find(';');
      sel.emplace_back();
      if (!parse_list_line(rest.substr(0, semi), &sel.back(), why)) return std::nullopt;
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
  }
  sel = tidy(std::move(sel));
  bool any = std::any_of(sel.begin(), sel.end(), [](const auto& l) { return !l.empty(); });
  if (!any) {
    if (why) *why = "no output selectors given (`-O ?` lists them)";
    return std::nullopt;
  }
  return sel;
}

OmniSelection default_omni_selection(OmniShape shape, bool cpu) {
  OmniSelection sel;
  switch (shape) {
    case OmniShape::kSend:
      sel = from_names({"LSS_SIZE_END", "RSR_SIZE_END", "LOCAL_SEND_SIZE"});
      break;
    case OmniShape::kReceive:
      sel = from_names({"RSS_SIZE_END", "LSR_SIZE_END", "REMOTE_SEND_SIZE"});
      break;
    case OmniShape::kRequestResponse:
      sel = from_names({"LSS_SIZE_END", "LSR_SIZE_END", "RSR_SIZE_END", "RSS_SIZE_END",
                        "REQUEST_SIZE", "RESPONSE_SIZE"});
      break;
  }
  for (auto n : {"ELAPSED_TIME", "THROUGHPUT", "THROUGHPUT_UNITS"}) sel[0].push_back(index_of(n));
  if (cpu) {
    for (auto n :
         {"LOCAL_CPU_UTIL", "LOCAL_CPU_PERCENT_USER", "LOCAL_CPU_PERCENT_SYSTEM",
          "LOCAL_CPU_PERCENT_IOWAIT", "LOCAL_CPU_PERCENT_IRQ", "LOCAL_CPU_PERCENT_SWINTR",
          "LOCAL_CPU_METHOD", "REMOTE_CPU_UTIL", "REMOTE_CPU_PERCENT_USER",
          "REMOTE_CPU_PERCENT_SYSTEM", "REMOTE_CPU_PERCENT_IOWAIT", "REMOTE_CPU_PERCENT_IRQ",
          "REMOTE_CPU_PERCENT_SWINTR", "REMOTE_CPU_METHOD", "LOCAL_SD", "REMOTE_SD", "SD_UNITS"})
      sel[0].push_back(index_of(n));
  }
  return sel;
}

std::string omni_selector_list(bool comma_separated) {
  std::string out;
  for (size_t i = 0; i < table().size(); ++i) {
    if (i) out += comma_separated ? ',' : '\n';
    out += table()[i].name;
  }
  return out + '\n';
}

std::optional<std::string> omni_value(size_t selector, const OmniValues& v) {
  if (selector >= table().size()) return std::nullopt;
  return table()[selector].value(v);
}

std::string render_omni(OmniStyle style, const OmniSelection& selection, const OmniValues& v,
                        bool headers) {
  switch (style) {
    case OmniStyle::kHuman:
      return render_human(selection, v, headers);
    case OmniStyle::kCsv:
      return render_csv(selection, v, headers);
    case OmniStyle::kKeyval:
      return render_keyval(selection, v);
  }
  return {};
}

}  // namespace flowperf::report
