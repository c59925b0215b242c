// iperf3's output, human and -J, from one plain model of a test as iperf3
// sees it (../shared/protocols/iperf3-wire.md §14, §15). The session layer
// fills the model from flowperf's measurements and the peer's results
// message; this file only chooses and formats. The same model serves the
// client (which prints "Connecting to host ...") and the server (which
// prints "Accepted connection from ..."), and the server's text and JSON
// also travel to a client that asked --get-server-output.
//
// Text is produced in pieces, as iperf3 prints it while a test runs: the
// start block, each interval as it ends, then the summary. json() renders
// the whole test at the end, as iperf3 -J does.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/iperf3_run.h"

namespace flowperf::report::iperf3 {

// The model's types, under the names the renderers have always used.
using namespace flowperf::results::iperf3;

// -f: the unit letter for rates and sizes ('k','m','g','t' bits; upper
// case bytes); 'a' (adaptive, the default) picks the unit per number.
struct Format {
  char unit = 'a';
};

// "Connecting to host H, port P" (client) or the server's "Accepted
// connection from H, port P", then one "[  N] local ... connected to ..."
// line per stream, then the interval table's heading. Lines end in '\n'.
std::string text_start(const StartInfo& start);
// One interval's lines: one per stream, and a [SUM] line when there is more
// than one stream (with --bidir, one [SUM] per direction as iperf3 does).
std::string text_interval(const StartInfo& start, const Interval& interval, Format f);
// The "- - - -" rule, the summary heading and the sender/receiver lines (and
// their [SUM]s), as this role prints them. Not "iperf Done.". On a client
// with server_output_text/_json set, it ends with 3.12's "\nServer output:\n"
// (or "Server JSON output:") block. The -T prefix is the client's only.
std::string text_summary(const Report& report, Format f);

// The whole -J document: cJSON's layout (TAB indents, a TAB after each
// colon, "[{" on the key's line), keys in 3.12's order. json() and
// json_error() end in the newline iperf3 prints after the document.
std::string json(const Report& report);
// -J of a client that failed before its test ran: {"start": {...}, "intervals": [],
// "end": {}, "error": "..."} as §14.4 shows.
std::string json_error(const StartInfo& start, const std::string& message);

// cJSON 1.7.15's pretty print as iperf3 3.12 links it: TAB indents, a TAB
// after each colon, arrays as "[a, b]" (so "[{" on the key's line), empty
// objects as "{\n<indent>}", numbers with %1.15g or, if that does not read
// back, %1.17g, and integral numbers as (unsigned 64-bit) integers: a -1
// prints as 18446744073709551615, as 3.12 does. No trailing newline.
// Added for json() and for the client's "Server JSON output:" block.
std::string cjson_print(const nlohmann::ordered_json& value);

// A number with iperf3's units and three significant figures, as in its
// Transfer ("1.47 GBytes") and Bitrate ("12.6 Gbits/sec") columns.
// transfer() reads f's letter as a byte unit ('a' or 'A': adaptive, 'k' or
// 'K': KBytes, ...); 3.12's Transfer column is always adaptive, so the text
// renderers pass Format{} there whatever -f says. bitrate() follows -f:
// lower case letters are bits (decimal), upper case bytes (binary).
std::string transfer(double bytes, Format f);
std::string bitrate(double bits_per_second, Format f);

}  // namespace flowperf::report::iperf3
