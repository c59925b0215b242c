// Charts: scales, ticks, log axes, legends, well-formed SVG; reports from
// flowperf and iperf3 documents.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "core/error.h"
#include "plot/chart.h"
#include "plot/report.h"

namespace flowperf::plot {
namespace {

using nlohmann::json;

std::vector<std::string> labels(const Ticks& t) { return t.labels; }

TEST(Ticks, LinearStepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(labels(linear_ticks(0, 10)), (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  EXPECT_EQ(labels(linear_ticks(0, 1)),
            (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
  EXPECT_EQ(labels(linear_ticks(0, 23.7)), (std::vector<std::string>{"0", "5", "10", "15", "20"}));
  // The first tick is the first multiple of the step at or above lo.
  EXPECT_EQ(labels(linear_ticks(0.13, 0.61, 5)),
            (std::vector<std::string>{"0.2", "0.3", "0.4", "0.5", "0.6"}));
  EXPECT_EQ(labels(linear_ticks(-3, 3)),
            (std::vector<std::string>{"-3", "-2", "-1", "0", "1", "2", "3"}));
}

TEST(Ticks, ADegenerateRangeStillGetsTicks) {
  const Ticks t = linear_ticks(5, 5);
  ASSERT_GE(t.at.size(), 2u);
  EXPECT_LE(t.at.front(), 5);
  EXPECT_GE(t.at.back(), 5);
  EXPECT_TRUE(linear_ticks(NAN, 1).at.empty());
}

TEST(Ticks, LogTicksAreDecadesAndTwoAndFiveWhenFew) {
  EXPECT_EQ(labels(log_ticks(3, 5000)), (std::vector<std::string>{"10", "100", "1000"}));
  EXPECT_EQ(labels(log_ticks(12, 800)),
            (std::vector<std::string>{"20", "50", "100", "200", "500"}));
  EXPECT_EQ(labels(log_ticks(1e-5, 1e7)).front(), "1e-5");
  EXPECT_EQ(labels(log_ticks(1e-5, 1e7)).back(), "1e7");
  EXPECT_TRUE(log_ticks(0, 10).at.empty());
  EXPECT_TRUE(log_ticks(-1, 10).at.empty());
}

TEST(Ticks, LabelsAreShortAndExact) {
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(1500), "1500");
  EXPECT_EQ(tick_label(0.25), "0.25");
  EXPECT_EQ(tick_label(0.1 + 0.2), "0.3");
  EXPECT_EQ(tick_label(-3), "-3");
  EXPECT_EQ(tick_label(12.5), "12.5");
  EXPECT_EQ(tick_label(2e6), "2e6");
  EXPECT_EQ(tick_label(5e-4), "0.0005");
  EXPECT_EQ(tick_label(5e-5), "5e-5");
  EXPECT_EQ(tick_label(1.25e9), "1.25e9");
}

TEST(Scale, LinearLogAndInverted) {
  EXPECT_DOUBLE_EQ(Scale(0, 10, 100, 200)(5), 150);
  EXPECT_DOUBLE_EQ(Scale(1, 1000, 0, 300, true)(10), 100);
  EXPECT_DOUBLE_EQ(Scale(1, 1000, 0, 300, true)(1000), 300);
  EXPECT_DOUBLE_EQ(Scale(0, 1, 300, 0)(0.25), 225);  // y grows upwards
  // A value at or below zero on a log axis sits at its low end.
  EXPECT_DOUBLE_EQ(Scale(1, 1000, 0, 300, true)(0), 0);
  EXPECT_DOUBLE_EQ(Scale(2, 2, 0, 300)(2), 150);
  // A span wider than a double still maps inside the pixels.
  const double big = std::numeric_limits<double>::max();
  EXPECT_DOUBLE_EQ(Scale(-big, big, 0, 300)(0), 150);
  EXPECT_DOUBLE_EQ(Scale(-big, big, 0, 300)(big), 300);
}

TEST(Units, SiPrefixFollowsTheLargestValue) {
  EXPECT_EQ(si_unit(2.4e9, "bit/s").name, "Gbit/s");
  EXPECT_DOUBLE_EQ(si_unit(2.4e9, "bit/s").divisor, 1e9);
  EXPECT_EQ(si_unit(999, "bit/s").name, "bit/s");
  EXPECT_EQ(si_unit(1000, "B").name, "kB");
  EXPECT_EQ(si_unit(0, "B").name, "B");
}

TEST(Palette, CyclesThroughEightDistinctColours) {
  std::vector<std::string> seen;
  for (size_t i = 0; i < 8; ++i) seen.emplace_back(colour(i));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  EXPECT_EQ(colour(0), colour(8));
}

// Tags open and close in order; attributes are quoted; no raw '<' or '&'
// in text. Returns "" when well formed, else what is wrong.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  size_t i = 0;
  if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
  while (i < s.size()) {
    const size_t lt = s.find('<', i);
    const std::string text = s.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    for (size_t a = text.find('&'); a != std::string::npos; a = text.find('&', a + 1))
      if (!std::regex_search(text.substr(a), std::regex("^&(amp|lt|gt|quot|#39);")))
        return "a raw & in text: " + text;
    if (lt == std::string::npos) break;
    const size_t gt = s.find('>', lt);
    if (gt == std::string::npos) return "an unclosed tag";
    std::string tag = s.substr(lt + 1, gt - lt - 1);
    if (tag.find('<') != std::string::npos) return "a '<' inside a tag: " + tag;
    if (std::count(tag.begin(), tag.end(), '"') % 2) return "an unbalanced quote: " + tag;
    if (tag.front() == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = gt + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

Chart two_lines() {
  Chart c;
  c.id = "t";
  c.title = "Rates <a & b>";
  c.x_label = "time (s)";
  c.y_label = "rate";
  c.series.push_back({"first", {0, 1, 2, 3}, {1, 4, 9.3, 2}, 0});
  c.series.push_back({"second \"quoted\"", {0, 1, 2, 3}, {2, 2, 2, 2}, 1, true});
  return c;
}

TEST(Svg, WellFormedWithEscapedTextAndALegend) {
  const std::string svg = render_svg(two_lines(), true);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("Rates &lt;a &amp; b&gt;"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline class=\"series\""), 2u);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"6 4\""), 2u);  // the dashed line and its legend key
  EXPECT_NE(svg.find(">first</text>"), std::string::npos);
  EXPECT_NE(svg.find(">second &quot;quoted&quot;</text>"), std::string::npos);
}

// Every point of every polyline lies inside the plot frame.
TEST(Svg, PointsStayInsideThePlotFrame) {
  const std::string svg = render_svg(two_lines());
  std::smatch frame;
  ASSERT_TRUE(std::regex_search(
      svg, frame,
      std::regex(
          R"re(<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="none")re")));
  const double x0 = std::stod(frame[1]), y0 = std::stod(frame[2]);
  const double x1 = x0 + std::stod(frame[3]), y1 = y0 + std::stod(frame[4]);
  const std::regex point(R"(([0-9.]+),([0-9.]+))");
  size_t points = 0;
  const std::regex points_attr(R"re(points="([^"]*)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), points_attr), end; it != end; ++it) {
    const std::string list = (*it)[1];
    for (std::sregex_iterator p(list.begin(), list.end(), point); p != end; ++p, ++points) {
      const double x = std::stod((*p)[1]), y = std::stod((*p)[2]);
      EXPECT_GE(x, x0 - 0.05);
      EXPECT_LE(x, x1 + 0.05);
      EXPECT_GE(y, y0 - 0.05);
      EXPECT_LE(y, y1 + 0.05);
    }
  }
  EXPECT_EQ(points, 8u);
  // The y axis runs from 0 to a tick at or above the largest value (9.3).
  // (The top tick is labelled: the rounding settles on a step that keeps it.)
  EXPECT_NE(svg.find(">10</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
}

// Rounding 4.47 up with a step of 0.5 gives 4.5, whose own step is 1: the
// top must end on a labelled tick all the same.
TEST(Bounds, TheTopOfALinearAxisIsALabelledTick) {
  for (double top : {4.47, 9.3, 0.73, 17.0, 123.0, 0.0031}) {
    Chart c;
    c.series.push_back({"s", {0, 1}, {0, top}, 0});
    const Bounds b = bounds(c);
    const Ticks t = linear_ticks(b.y_lo, b.y_hi, 6);
    ASSERT_FALSE(t.at.empty());
    EXPECT_GE(b.y_hi, top);
    EXPECT_NEAR(t.at.back(), b.y_hi, 1e-9 * b.y_hi) << top;
  }
}

TEST(Svg, AMissingValueBreaksTheLine) {
  Chart c;
  c.id = "gap";
  c.series.push_back({"s", {0, 1, 2, 3, 4}, {1, 2, NAN, 3, 4}, 0});
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "<polyline class=\"series\""), 2u) << svg;
}

TEST(Svg, LogAxisDropsNonPositiveValuesAndLabelsDecades) {
  Chart c;
  c.id = "log";
  c.x_log = true;
  c.series.push_back({"cdf", {0, 12, 150, 2400, 90000}, {0, 0.5, 0.9, 0.99, 1}, 0});
  c.markers.push_back({150, "p90 150 us", 0});
  const std::string svg = render_svg(c);
  EXPECT_EQ(xml_problem(svg), "");
  for (const char* t : {">100</text>", ">1000</text>", ">10000</text>"})
    EXPECT_NE(svg.find(t), std::string::npos) << t << svg;
  EXPECT_NE(svg.find(">p90 150 us</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"marker\""), 1u);
}

TEST(Svg, NoDataSaysSo) {
  Chart c;
  c.id = "empty";
  c.title = "Nothing";
  const std::string svg = render_svg(c);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(xml_problem(svg), "");
}

TEST(Svg, LegendWrapsIntoRowsAndTheChartGrows) {
  Chart c = two_lines();
  const std::string one = render_svg(c);
  for (int i = 0; i < 10; ++i) c.series.push_back({"s" + std::to_string(i), {0, 1}, {1, 2}, 2});
  const std::string many = render_svg(c);
  auto height = [](const std::string& svg) {
    std::smatch m;
    std::regex_search(svg, m, std::regex(R"re(height="([0-9.]+)")re"));
    return std::stod(m[1]);
  };
  EXPECT_GT(height(many), height(one));
}

// Entries on one legend row leave room for the name before them (about 7 px
// a character at 12 px).
TEST(Svg, LegendEntriesDoNotOverlap) {
  Chart c = two_lines();
  for (int i = 0; i < 5; ++i)
    c.series.push_back(
        {"a rather long series name number " + std::to_string(i), {0, 1}, {1, 2}, 2});
  const std::string svg = render_svg(c);
  const std::regex entry(R"re(<text class="legend" x="([0-9.]+)" y="([0-9.]+)">([^<]*)</text>)re");
  double last_x = -1, last_y = -1;
  size_t last_len = 0, rows = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), entry), end; it != end; ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    if (y == last_y)
      EXPECT_GE(x - last_x, 7.0 * static_cast<double>(last_len)) << (*it)[3];
    else
      ++rows;
    last_x = x, last_y = y, last_len = (*it)[3].length();
  }
  EXPECT_GE(rows, 3u);
}

// ---- reports ----------------------------------------------------------------------

json flowperf_stream_doc(size_t streams, size_t intervals) {
  json doc = {{"schema_version", 1},
              {"tool", {{"name", "flowperf"}, {"version", "0.1.0"}}},
              {"test", "TCP_STREAM"},
              {"spec", {{"duration_s", 2.0}, {"send_size", 131072}, {"local", {{"cc", "cubic"}}}}},
              {"endpoints",
               {{"local", {{"host", "127.0.0.1"}, {"port", 1}}},
                {"remote", {{"host", "127.0.0.1"}, {"port", 2}, {"software", "flowperf 0.1.0"}}}}},
              {"total", {{"bits_per_second", 8e9}, {"latency_us", nullptr}}},
              {"streams", json::array()},
              {"intervals", json::array()},
              {"remote", {{"intervals", json::array()}, {"cpu", {{"util", 40.0}}}}},
              {"local", {{"cpu", {{"util", 30.0}}}}}};
  for (size_t k = 0; k < streams; ++k) doc["streams"].push_back({{"index", k}});
  for (size_t i = 0; i < intervals; ++i) {
    json c = {{"start_s", 0.5 * i},
              {"end_s", 0.5 * (i + 1)},
              {"streams", json::array()},
              {"cpu", {{"util", 25.0 + i}}}};
    json s = {{"start_s", 0.5 * i}, {"end_s", 0.5 * (i + 1)}, {"flows", json::array()}};
    for (size_t k = 0; k < streams; ++k) {
      // Stream k moves (k + 1) MB each half second: 16 (k + 1) Mbit/s.
      c["streams"].push_back({{"bytes_sent", 1000000 * (k + 1)},
                              {"bytes_received", 0},
                              {"transactions", 0},
                              {"retransmits", 1},
                              {"tcp", {{"snd_cwnd", 10}, {"snd_mss", 1000}, {"rtt_us", 2000}}}});
      s["flows"].push_back(
          {{"bytes_recv", 1000000 * (k + 1)}, {"bytes_sent", 0}, {"transactions", 0}});
    }
    doc["intervals"].push_back(c);
    doc["remote"]["intervals"].push_back(s);
  }
  return doc;
}

const Chart* find(const std::vector<Chart>& charts, const std::string& id) {
  for (const auto& c : charts)
    if (c.id == id) return &c;
  return nullptr;
}

TEST(Report, FlowperfStreamDocumentGivesBothEndsPerInterval) {
  const plot::Run r = read_run(flowperf_stream_doc(2, 4), "run");
  EXPECT_EQ(r.test, "TCP_STREAM");
  ASSERT_EQ(r.client.t.size(), 4u);
  ASSERT_EQ(r.server.t.size(), 4u);
  EXPECT_DOUBLE_EQ(r.client.stream_bps[1][0], 32e6);
  EXPECT_DOUBLE_EQ(r.client.sum_bps[0], 48e6);
  EXPECT_DOUBLE_EQ(r.server.sum_bps[3], 48e6);
  EXPECT_DOUBLE_EQ(r.client.cwnd_bytes[0][0], 10000);
  EXPECT_DOUBLE_EQ(r.client.rtt_ms[0][0], 2);
  EXPECT_DOUBLE_EQ(r.client.retransmits[0], 2);
  EXPECT_DOUBLE_EQ(r.client.cpu_percent[2], 27);

  const auto charts = charts_for({r});
  for (const char* id : {"throughput", "cwnd", "rtt", "retransmits", "cpu"})
    EXPECT_NE(find(charts, id), nullptr) << id;
  EXPECT_EQ(find(charts, "latency-cdf"), nullptr);
  EXPECT_EQ(find(charts, "loss"), nullptr);
  // Two stream lines and the two sums, in Mbit/s.
  const Chart* t = find(charts, "throughput");
  EXPECT_EQ(t->series.size(), 4u);
  EXPECT_EQ(t->y_label, "throughput (Mbit/s)");
  EXPECT_DOUBLE_EQ(t->series[2].y[0], 48);
}

// The header's date is the test's start from the document's timestamp; a
// document without one has no date of its own (the CLI then adds the file's).
TEST(Report, TheDateIsTheDocumentsTimestamp) {
  auto date_of = [](const plot::Run& r) {
    for (const auto& [k, v] : r.facts)
      if (k == "date") return v;
    return std::string("(none)");
  };
  json doc = flowperf_stream_doc(1, 2);
  EXPECT_EQ(date_of(read_run(doc, "old")), "(none)");
  doc["timestamp"] = {{"unix_s", 1796605500.123}, {"utc", "2026-12-07T01:05:00.123Z"}};
  EXPECT_EQ(date_of(read_run(doc, "new")), "2026-12-07 01:05:00 UTC");
}

TEST(Report, TenThousandStreamsBecomeABandNotTenThousandLines) {
  const plot::Run r = read_run(flowperf_stream_doc(10000, 3), "big");
  const auto charts = charts_for({r});
  const Chart* t = find(charts, "throughput");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->bands.size(), 1u);
  // From stream 0 (16 Mbit/s) to stream 9999 (160 Gbit/s), in the sum's unit.
  EXPECT_EQ(t->y_label, "throughput (Tbit/s)");
  EXPECT_DOUBLE_EQ(t->bands[0].lo[0], 16e6 / 1e12);
  EXPECT_DOUBLE_EQ(t->bands[0].hi[0], 160e9 / 1e12);
  EXPECT_LE(t->series.size(), 3u);  // the median and the sums
  const std::string svg = render_svg(*t);
  EXPECT_LT(svg.size(), 20000u);
}

// A TCP_RR document: 100 transactions' latency histogram, and with
// `intervals` one 1 s interval's percentiles.
json flowperf_rr_doc(bool intervals) {
  json doc = {
      {"tool", {{"name", "flowperf"}}},
      {"test", "TCP_RR"},
      {"intervals", json::array()},
      {"total",
       {{"transactions_per_second", 1000},
        {"latency_us",
         {{"count", 100},
          {"p50", 3.7},
          {"p99", 5400.0},
          {"p99_9", 5400.0},
          {"histogram_ns",
           {{"min", 3665}, {"max", 5406270}, {"buckets", {{434, 50}, {436, 49}, {1106, 1}}}}}}}}}};
  if (intervals)
    doc["intervals"].push_back(
        {{"start_s", 0},
         {"end_s", 1},
         {"streams", {{{"transactions", 1000}}}},
         {"sum", {{"latency_us", {{"p50", 30.0}, {"p90", 45.0}, {"p99", 9000.0}}}}}});
  return doc;
}

TEST(Report, RrDocumentGivesTheLatencyCdfWithPercentilesMarked) {
  const json doc = flowperf_rr_doc(true);
  const plot::Run r = read_run(doc, "rr");
  ASSERT_EQ(r.latency.size(), 1u);
  const Distribution& d = r.latency[0];
  ASSERT_EQ(d.us.size(), 3u);
  EXPECT_DOUBLE_EQ(d.fraction[0], 0.5);
  EXPECT_DOUBLE_EQ(d.fraction[2], 1.0);
  EXPECT_NEAR(d.us[0], 3.679, 1e-9);    // bucket 434's top
  EXPECT_NEAR(d.us[2], 5406.27, 1e-9);  // held at the exact max
  const auto charts = charts_for({r});
  const Chart* cdf = find(charts, "latency-cdf");
  ASSERT_NE(cdf, nullptr);
  EXPECT_TRUE(cdf->x_log);
  ASSERT_EQ(cdf->markers.size(), 3u);
  EXPECT_EQ(cdf->markers[0].label, "p50 3.7 us");
  EXPECT_EQ(cdf->markers[1].label, "p99 5.4 ms");
  EXPECT_NE(find(charts, "transactions"), nullptr);
  EXPECT_EQ(find(charts, "throughput"), nullptr);
  // Percentiles per interval; p99 300 times p50: a log axis.
  const Chart* over_time = find(charts, "latency-time");
  ASSERT_NE(over_time, nullptr);
  ASSERT_EQ(over_time->series.size(), 3u);
  EXPECT_EQ(over_time->series[2].name, "p99");
  EXPECT_DOUBLE_EQ(over_time->series[2].y[0], 9000);
  EXPECT_TRUE(over_time->y_log);
}

json iperf3_doc(bool udp) {
  json doc = {{"start",
               {{"version", "iperf 3.12"},
                {"system_info", "Linux"},
                {"timestamp", {{"time", "Sun, 06 Dec 2026 18:00:00 GMT"}}},
                {"connecting_to", {{"host", "127.0.0.1"}, {"port", 5201}}},
                {"test_start",
                 {{"protocol", udp ? "UDP" : "TCP"},
                  {"num_streams", 2},
                  {"duration", 2},
                  {"blksize", 131072},
                  {"reverse", 0}}}}},
              {"intervals", json::array()},
              {"end", {{"sum_received", {{"bits_per_second", 2e9}}}}}};
  for (int i = 0; i < 2; ++i) {
    json iv = {{"streams", json::array()},
               {"sum", {{"end", i + 1.0}, {"bits_per_second", 2e9 + i}, {"retransmits", 3}}}};
    for (int k = 0; k < 2; ++k)
      iv["streams"].push_back({{"socket", 5 + k},
                               {"end", i + 1.0},
                               {"bits_per_second", 1e9 + k},
                               {"retransmits", 1 + k},
                               {"snd_cwnd", 65536},
                               {"rtt", 150}});
    if (udp) iv["sum"]["lost_percent"] = 0.5, iv["sum"]["jitter_ms"] = 0.02;
    doc["intervals"].push_back(iv);
  }
  return doc;
}

TEST(Report, Iperf3JsonGivesTheSameCharts) {
  const plot::Run r = read_run(iperf3_doc(false), "iperf3");
  EXPECT_EQ(r.source, "iperf3");
  EXPECT_EQ(r.test, "TCP_STREAM");
  ASSERT_EQ(r.client.stream_bps.size(), 2u);
  EXPECT_DOUBLE_EQ(r.client.stream_bps[1][1], 1e9 + 1);
  EXPECT_DOUBLE_EQ(r.client.sum_bps[1], 2e9 + 1);
  EXPECT_DOUBLE_EQ(r.client.rtt_ms[0][0], 0.15);
  EXPECT_DOUBLE_EQ(r.client.retransmits[0], 3);
  const auto charts = charts_for({r});
  for (const char* id : {"throughput", "cwnd", "rtt", "retransmits"})
    EXPECT_NE(find(charts, id), nullptr) << id;
  const plot::Run u = read_run(iperf3_doc(true), "udp");
  const auto uc = charts_for({u});
  EXPECT_NE(find(uc, "loss"), nullptr);
  EXPECT_NE(find(uc, "jitter"), nullptr);
  EXPECT_EQ(find(uc, "cwnd"), nullptr);
}

TEST(Report, SeveralRunsShareAxesWithAColourEach) {
  const plot::Run a = read_run(flowperf_stream_doc(1, 4), "a");
  const plot::Run b = read_run(iperf3_doc(false), "b");
  const auto charts = charts_for({a, b});
  const Chart* t = find(charts, "throughput");
  ASSERT_NE(t, nullptr);
  std::vector<std::string> names;
  for (const auto& s : t->series) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a client", "a server", "b client"}));
  EXPECT_EQ(t->series[0].colour, t->series[1].colour);
  EXPECT_NE(t->series[0].colour, t->series[2].colour);
  EXPECT_EQ(t->y_label, "throughput (Gbit/s)");  // one unit for both runs
}

// --bidir: the other direction is a run of its own.
TEST(Report, TheReverseOfABidirTestIsASecondRun) {
  json doc = flowperf_stream_doc(1, 2);
  json reverse = flowperf_stream_doc(1, 2);
  reverse.erase("tool");
  reverse["test"] = "TCP_MAERTS";
  doc["reverse"] = reverse;
  const auto runs = read_runs(doc, "rrul");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].test, "TCP_STREAM");
  EXPECT_EQ(runs[1].test, "TCP_MAERTS");
  EXPECT_EQ(runs[1].label, "rrul reverse");
  EXPECT_EQ(read_runs(flowperf_stream_doc(1, 2), "one").size(), 1u);
  const auto charts = charts_for(runs);
  const Chart* t = find(charts, "throughput");
  ASSERT_NE(t, nullptr);
  ASSERT_GE(t->series.size(), 3u);
  EXPECT_EQ(t->series[2].name, "rrul reverse client");
}

TEST(Report, SomethingElseIsRefusedSayingWhatWasExpected) {
  try {
    read_run(json{{"hello", 1}}, "x");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("iperf3's -J"), std::string::npos);
  }
}

// Without -i there are no charts over time: the report says so and why, and
// its footer speaks only of lines it drew.
TEST(Report, HtmlSaysWhatIsNotDrawnAndWhy) {
  const json rr = flowperf_rr_doc(false);
  const std::string cdf_only = html_report({read_run(rr, "rr")}, "rr");
  EXPECT_EQ(count(cdf_only, "<svg "), 1u);
  EXPECT_NE(cdf_only.find("Only the latency distribution is drawn"), std::string::npos);
  EXPECT_NE(cdf_only.find("<code>-i SECONDS</code>"), std::string::npos);
  EXPECT_EQ(cdf_only.find("Client and server lines"), std::string::npos);
  const std::string both = html_report({read_run(flowperf_stream_doc(2, 4), "s")}, "s");
  EXPECT_EQ(both.find("Only the latency distribution"), std::string::npos);
  EXPECT_NE(both.find("Client and server lines come from each end's own"), std::string::npos);
  const std::string none = html_report({read_run(flowperf_stream_doc(1, 0), "n")}, "n");
  EXPECT_NE(none.find("No charts: these results have no intervals"), std::string::npos);
  EXPECT_EQ(none.find("Client and server lines"), std::string::npos);
}

TEST(Report, HtmlIsSelfContained) {
  const std::string html =
      html_report({read_run(flowperf_stream_doc(2, 4), "one <run>")}, "Report & more");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  // The only address is the SVG namespace, once per chart.
  const auto charts = charts_for({read_run(flowperf_stream_doc(2, 4), "x")});
  EXPECT_EQ(count(html, "http"), charts.size());
  EXPECT_EQ(count(html, "<svg "), charts.size());
  EXPECT_NE(html.find("Report &amp; more"), std::string::npos);
  EXPECT_NE(html.find("one &lt;run&gt;"), std::string::npos);
  EXPECT_NE(html.find("<th>congestion control</th><td>cubic</td>"), std::string::npos);
  const size_t body = html.find("<body>");
  EXPECT_EQ(xml_problem(html.substr(body, html.find("</body>") + 7 - body)), "");
}

}  // namespace
}  // namespace flowperf::plot
