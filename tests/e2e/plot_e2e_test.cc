// Reports from real runs: `--html` on a test, `flowperf plot` of a saved
// flowperf result and of the real iperf3's -J output, rendered by headless
// Chromium (Debian's chromium) into a screenshot that is read back here:
// the page is not blank, the charts' colours are on it, and Chromium's
// network log shows no request made by the page. Chromium runs in a network
// namespace of its own (unshare -n) with no interface up: its own
// background requests (update checks) go nowhere.
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/iperf3_peers.h"
#include "support/paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

namespace fs = std::filesystem;
const std::string kFlowperf = ::flowperf::testing::flowperf_bin();

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Outcome run(std::vector<std::string> argv, std::chrono::milliseconds limit = 60s) {
  Process p(std::move(argv));
  return p.wait(limit);
}

// The <svg> ids of a page, in order.
std::vector<std::string> chart_ids(const std::string& html) {
  std::vector<std::string> ids;
  const std::regex svg(
      R"re(<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="([a-z0-9-]+)")re");
  for (std::sregex_iterator it(html.begin(), html.end(), svg), end; it != end; ++it)
    ids.push_back((*it)[1]);
  return ids;
}

// ---- a PNG read back: 8-bit RGB or RGBA, not interlaced (what Chromium writes)

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<std::array<uint8_t, 3>> pixels;
};

uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
         (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3]));
}

std::optional<Image> read_png(const std::string& file) {
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return std::nullopt;
  Image img;
  int colour_type = -1, depth = 0, interlace = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= file.size();) {
    const uint32_t len = be32(file, at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + len > file.size()) return std::nullopt;
    if (type == "IHDR") {
      img.width = be32(file, at + 8);
      img.height = be32(file, at + 12);
      depth = uint8_t(file[at + 16]);
      colour_type = uint8_t(file[at + 17]);
      interlace = uint8_t(file[at + 20]);
    } else if (type == "IDAT") {
      idat += file.substr(at + 8, len);
    }
    at += 12 + len;
  }
  if (depth != 8 || (colour_type != 2 && colour_type != 6) || interlace != 0) return std::nullopt;
  const size_t bpp = colour_type == 6 ? 4 : 3, stride = img.width * bpp;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (::uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()),
                   idat.size()) != Z_OK ||
      raw_len != raw.size())
    return std::nullopt;
  std::vector<uint8_t> prev(stride, 0), line(stride);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? line[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      int v = in[x];
      switch (filter) {
        case 0:
          break;
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          return std::nullopt;
      }
      line[x] = static_cast<uint8_t>(v);
    }
    for (uint32_t x = 0; x < img.width; ++x)
      img.pixels.push_back({line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]});
    prev = line;
  }
  return img;
}

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

#define REQUIRE_CHROMIUM()                                                         \
  if (chromium().empty()) {                                                        \
    if (std::getenv("CI")) FAIL() << "no chromium (scripts/setup.sh installs it)"; \
    GTEST_SKIP() << "no chromium: apt install chromium";                           \
  }

struct Rendering {
  std::optional<Image> image;
  std::string netlog, err;
};

// Chromium, headless, with no network to reach: a screenshot of the page
// and its network log.
Rendering render(const TempDir& dir, const std::string& html) {
  Rendering r;
  const std::string png = dir / "shot.png", netlog = dir / "netlog.json";
  Outcome o = run({"/usr/bin/unshare", "-n", chromium(), "--headless", "--no-sandbox",
                   "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-sync",
                   "--disable-background-networking", "--disable-component-update",
                   "--user-data-dir=" + (dir / "profile"), "--hide-scrollbars",
                   "--window-size=1600,3000", "--log-net-log=" + netlog,
                   "--net-log-capture-mode=Everything", "--screenshot=" + png, "file://" + html},
                  120s);
  r.err = o.err;
  r.image = read_png(slurp(png));
  r.netlog = slurp(netlog);
  return r;
}

// The URLs the page asked for: Chromium's network log marks a request by
// its initiator, "not an origin" for the browser's own, the page's origin
// ("null" for a file) for the page's.
std::set<std::string> page_requests(const std::string& netlog) {
  std::set<std::string> out;
  const auto log = nlohmann::json::parse(netlog, nullptr, false);
  if (!log.is_object() || !log.contains("events")) {
    out.insert("(the network log is not JSON)");
    return out;
  }
  for (const auto& e : log["events"]) {
    const auto p = e.find("params");
    if (p == e.end() || !p->is_object() || !p->contains("initiator")) continue;
    if ((*p)["initiator"] != "not an origin") out.insert(p->value("url", "?"));
  }
  return out;
}

// Pixels of about this colour (each channel within 40).
size_t pixels_near(const Image& img, std::array<int, 3> rgb) {
  size_t n = 0;
  for (const auto& p : img.pixels)
    if (std::abs(p[0] - rgb[0]) < 40 && std::abs(p[1] - rgb[1]) < 40 &&
        std::abs(p[2] - rgb[2]) < 40)
      ++n;
  return n;
}

void expect_rendered(const TempDir& dir, const std::string& html, size_t charts) {
  const Rendering r = render(dir, html);
  ASSERT_TRUE(r.image) << "no screenshot; chromium said:\n" << r.err;
  const Image& img = *r.image;
  ASSERT_GT(img.width, 0u);
  size_t white = 0;
  for (const auto& p : img.pixels)
    if (p[0] > 245 && p[1] > 245 && p[2] > 245) ++white;
  const double inked = 1 - static_cast<double>(white) / static_cast<double>(img.pixels.size());
  EXPECT_GT(inked, 0.01) << "the page rendered blank";
  // The first series colour (Okabe-Ito blue, #0072B2) is drawn.
  EXPECT_GT(pixels_near(img, {0x00, 0x72, 0xB2}), 50u * charts / 2);
  // The page asks for nothing.
  ASSERT_FALSE(r.netlog.empty()) << r.err;
  EXPECT_EQ(page_requests(r.netlog), std::set<std::string>{});
}

// The check above can fail: a page that fetches an image is caught.
TEST(Plot, TheNetworkCheckCatchesAPageThatFetches) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const std::string html = dir / "fetches.html";
  std::ofstream(html) << "<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\">"
                         "</body></html>";
  const Rendering r = render(dir, html);
  EXPECT_EQ(page_requests(r.netlog), std::set<std::string>{"http://127.0.0.1:9/x.png"}) << r.err;
}

TEST(Plot, HtmlOfAnRrRunHasTheDistributionAndItsChangeOverTime) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  const std::string html = dir / "rr.html";
  Outcome o = run({kFlowperf, "-t", "TCP_RR", "-l", "2", "-i", "0.5", "--html", html});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("TCP_RR"), std::string::npos) << "the text report is still printed";
  const std::string page = slurp(html);
  const auto ids = chart_ids(page);
  for (const char* id : {"transactions", "latency-time", "latency-cdf", "cpu"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id << "\n" << page;
  // The CDF's markers name p50, p99 and p99.9; the transactions chart has
  // one point per interval (4 of 0.5 s, and maybe a short last one); the
  // percentiles over time a line each for p50, p90 and p99.
  for (const char* p : {">p50 ", ">p99 ", ">p99.9 "})
    EXPECT_NE(page.find(p), std::string::npos) << p;
  std::smatch m;
  const std::string tr = page.substr(page.find("id=\"transactions\""));
  ASSERT_TRUE(
      std::regex_search(tr, m, std::regex(R"re(<polyline class="series"[^>]*points="([^"]*)")re")));
  const std::string pts = m[1];
  const auto n = std::count(pts.begin(), pts.end(), ',');
  // Ticks at 0.5, 1.0 and 1.5 s and the end's own sample: 4. A late tick makes one interval
  // long and the next short but keeps the count; only a 0.5 s stall of the client loses one.
  EXPECT_GE(n, 4);
  EXPECT_LE(n, 5);
  const std::string lt = page.substr(page.find("id=\"latency-time\""));
  for (const char* p : {">p50</text>", ">p90</text>", ">p99</text>"})
    EXPECT_NE(lt.substr(0, lt.find("</svg>")).find(p), std::string::npos) << p;
  expect_rendered(dir, html, ids.size());
}

TEST(Plot, ComparesAFlowperfRunWithTheRealIperf3sJson) {
  REQUIRE_IPERF3();
  REQUIRE_CHROMIUM();
  TempDir dir;
  Outcome f = run({kFlowperf, "-t", "TCP_STREAM", "-l", "2", "-i", "0.5", "-P", "2", "--json"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  std::ofstream(dir / "flowperf.json") << f.out;

  Iperf3Server server(Side::kReal, {"-1"});
  ASSERT_TRUE(server.ready);
  Outcome i = run_client(Side::kReal, server.port, {"-t", "2", "-i", "0.5", "-P", "2", "-J"});
  ASSERT_EQ(i.exit_code, 0) << i.out << i.err;
  std::ofstream(dir / "iperf3.json") << i.out;

  const std::string html = dir / "compare.html";
  Outcome p = run({kFlowperf, "plot", dir / "flowperf.json", dir / "iperf3.json", "-o", html});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string page = slurp(html);
  const auto ids = chart_ids(page);
  for (const char* id : {"throughput", "cwnd", "rtt", "retransmits"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  // Both runs in the legend and the header table.
  for (const char* s : {">flowperf client</text>", ">iperf3 client</text>", "<th>iperf3</th>",
                        "<th>flowperf</th>", "iperf 3."})
    EXPECT_NE(page.find(s), std::string::npos) << s;
  expect_rendered(dir, html, ids.size());

  // One chart as an SVG file of its own.
  const std::string svg = dir / "throughput.svg";
  Outcome s = run({kFlowperf, "plot", dir / "iperf3.json", "-o", svg, "--chart", "rtt"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string text = slurp(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("id=\"rtt\""), std::string::npos);
  EXPECT_EQ(chart_ids(text).size(), 1u);
}

// -t RRUL: both directions (the reverse as a run of its own) and the
// probe's idle and loaded latency.
TEST(Plot, RrulShowsBothDirectionsAndTheProbe) {
  TempDir dir;
  const std::string html = dir / "rrul.html";
  Outcome o =
      run({kFlowperf, "-t", "RRUL", "-l", "2", "--baseline", "1", "-i", "0.5", "--html", html});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string page = slurp(html);
  for (const char* s :
       {"<th>TCP_STREAM</th>", "<th>TCP_STREAM reverse</th>", ">TCP_STREAM client</text>",
        ">TCP_STREAM reverse client</text>", "probe idle", "probe loaded"})
    EXPECT_NE(page.find(s), std::string::npos) << s;
}

TEST(Plot, BadInputIsRefusedWithWhatToGive) {
  TempDir dir;
  std::ofstream(dir / "notes.json") << "{\"hello\": 1}";
  std::ofstream(dir / "broken.json") << "{\"event\":\"start\"}\nnot json\n";
  std::ofstream(dir / "text.txt") << "flowperf 0.1.0: TCP_RR — request/response\n";
  std::ofstream(dir / "empty.json") << "\n";
  struct Case {
    std::vector<std::string> args;
    int code;
    const char* says;
  } cases[] = {
      {{"plot", dir / "missing.json", "-o", dir / "x.html"}, 2, "cannot read"},
      {{"plot", dir / "notes.json", "-o", dir / "x.html"}, 2, "iperf3's -J"},
      {{"plot", dir / "broken.json", "-o", dir / "x.html"}, 2, "line 2 is not JSON"},
      {{"plot", dir / "text.txt", "-o", dir / "x.html"},
       2,
       "text.txt: not a result file: it does not start with '{' (it starts \"flowperf 0.1.0: "
       "TCP_RR"},
      {{"plot", dir / "empty.json", "-o", dir / "x.html"}, 2, "empty.json: the file is empty"},
      {{"plot", dir / "notes.json"}, 2, "-o"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {kFlowperf};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Outcome o = run(argv);
    EXPECT_EQ(o.exit_code, c.code) << c.args[1] << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    // In words: not the JSON library's own message, and what plot takes.
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
  }
  // A chart the results do not have names the ones they do.
  Outcome r = run({kFlowperf, "-t", "TCP_RR", "-l", "1", "-i", "0.5", "--json"});
  ASSERT_EQ(r.exit_code, 0);
  std::ofstream(dir / "rr.json") << r.out;
  Outcome o = run({kFlowperf, "plot", dir / "rr.json", "-o", dir / "x.svg", "--chart", "cwnd"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("they have: transactions, latency-time, latency-cdf"), std::string::npos)
      << o.err;
  // --html to a place that cannot be written: the result is printed, exit 1.
  Outcome h = run({kFlowperf, "-t", "TCP_RR", "-l", "1", "--html", "/nonexistent/dir/r.html"});
  EXPECT_EQ(h.exit_code, 1);
  EXPECT_NE(h.out.find("TCP_RR"), std::string::npos);
  EXPECT_NE(h.err.find("--html: cannot write /nonexistent/dir/r.html"), std::string::npos) << h.err;
}

}  // namespace
}  // namespace flowperf::testing
