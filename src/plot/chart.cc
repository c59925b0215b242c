#include "plot/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace flowperf::plot {
namespace {

constexpr double kEps = 1e-9;

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// The step of about `target` ticks over `span`: 1, 2 or 5 times 10^k.
double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

struct Layout {
  double left = 72, right = 16, top = 34, bottom = 46, legend_rows = 0;
  double plot_w = 0, plot_h = 0;
  int per_row = 1;
};

// A legend entry is a key (24 px) and its name; 12 px sans-serif text runs
// about 7 px a character. Entries share one width, of the longest name.
constexpr double kLegendMinItem = 150, kLegendRow = 18, kCharWidth = 7;

}  // namespace

std::string tick_label(double v) {
  if (v == 0 || std::fabs(v) < 1e-12) return "0";
  char b[40];
  const double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-4) {
    // 2.5e-5, 1.25e9: the mantissa without trailing zeros, a bare exponent.
    std::snprintf(b, sizeof b, "%.2e", v);
    const std::string s = b;
    const auto e = s.find('e');
    std::string mant = s.substr(0, e);
    mant.erase(mant.find_last_not_of('0') + 1);
    if (mant.back() == '.') mant.pop_back();
    const int exp = std::stoi(s.substr(e + 1));
    return mant + "e" + std::to_string(exp);
  }
  const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 0, 6);
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  std::string s = b;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

Ticks linear_ticks(double lo, double hi, int target) {
  Ticks t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < kEps * std::max(1.0, std::fabs(hi))) hi = lo + std::max(1.0, std::fabs(lo));
  if (!std::isfinite(hi - lo)) return t;  // wider than a double: no ticks
  const double step = nice_step(hi - lo, target);
  const double first = std::ceil(lo / step - kEps);
  for (double k = first; k * step <= hi + step * kEps && k - first < 1000; ++k) {
    const double v = k * step;
    t.at.push_back(v);
    t.labels.push_back(tick_label(v));
  }
  return t;
}

Ticks log_ticks(double lo, double hi) {
  Ticks t;
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return t;
  if (hi < lo) std::swap(lo, hi);
  const int first = static_cast<int>(std::floor(std::log10(lo))),
            last = static_cast<int>(std::ceil(std::log10(hi)));
  std::vector<double> decades;
  for (int k = first; k <= last; ++k) {
    const double v = std::pow(10.0, k);
    if (v >= lo * (1 - kEps) && v <= hi * (1 + kEps)) decades.push_back(v);
  }
  std::vector<double> all = decades;
  if (decades.size() < 3) {
    for (int k = first; k <= last; ++k)
      for (double m : {2.0, 5.0}) {
        const double v = m * std::pow(10.0, k);
        if (v >= lo * (1 - kEps) && v <= hi * (1 + kEps)) all.push_back(v);
      }
    std::sort(all.begin(), all.end());
  }
  for (double v : all) {
    t.at.push_back(v);
    t.labels.push_back(tick_label(v));
  }
  return t;
}

Scale::Scale(double lo, double hi, double from_px, double to_px, bool log)
    : lo_(lo), hi_(hi), from_(from_px), to_(to_px), log_(log) {}

double Scale::operator()(double v) const {
  double a = lo_, b = hi_;
  if (log_) {
    v = std::log10(std::max(v, lo_));
    a = std::log10(lo_);
    b = std::log10(hi_);
  }
  if (!std::isfinite(b - a)) v /= 2, a /= 2, b /= 2;  // a span wider than a double
  if (!(b - a > 0)) return (from_ + to_) / 2;
  return from_ + (v - a) / (b - a) * (to_ - from_);
}

Unit si_unit(double max, std::string_view base) {
  static const char* const prefixes[] = {"", "k", "M", "G", "T", "P"};
  Unit u;
  int p = 0;
  while (p < 5 && std::fabs(max) >= 1000 * u.divisor) {
    u.divisor *= 1000;
    ++p;
  }
  u.name = std::string(prefixes[p]) + std::string(base);
  return u;
}

std::string_view colour(size_t index) {
  // Okabe and Ito's palette, yellow last: it is faint on white.
  static const char* const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                        "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return palette[index % 8];
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

Bounds bounds(const Chart& c) {
  Bounds b;
  double xl = std::numeric_limits<double>::infinity(), xh = -xl, yl = xl, yh = -xl;
  auto x = [&](double v) {
    if (usable(v, c.x_log)) xl = std::min(xl, v), xh = std::max(xh, v);
  };
  auto y = [&](double v) {
    if (usable(v, c.y_log)) yl = std::min(yl, v), yh = std::max(yh, v);
  };
  for (const auto& s : c.series)
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (usable(s.x[i], c.x_log) && usable(s.y[i], c.y_log)) x(s.x[i]), y(s.y[i]);
  for (const auto& s : c.bands)
    for (size_t i = 0; i < std::min({s.x.size(), s.lo.size(), s.hi.size()}); ++i)
      if (usable(s.x[i], c.x_log)) x(s.x[i]), y(s.lo[i]), y(s.hi[i]);
  for (const auto& m : c.markers) x(m.x);
  if (c.x_min < c.x_max) xl = c.x_min, xh = c.x_max;
  if (c.y_min < c.y_max) yl = c.y_min, yh = c.y_max;
  if (!(xl <= xh) || !(yl <= yh)) return b;
  b.empty = false;
  auto settle = [](double& lo, double& hi, bool log, bool from_zero, bool fixed) {
    if (log) {
      if (hi <= lo * (1 + kEps)) lo /= 2, hi = std::min(hi * 2, std::numeric_limits<double>::max());
      return;
    }
    if (from_zero && lo > 0) lo = 0;
    if (hi - lo < kEps * std::max(1.0, std::fabs(hi))) {
      hi = lo + std::max(1.0, std::fabs(lo));
      if (from_zero && lo > 0) lo = 0;
    }
    if (fixed) return;
    // Round the ends out to ticks so the top line is labelled; rounding can
    // change the step the axis then gets, so until it holds still.
    for (int i = 0; i < 4; ++i) {
      const Ticks t = linear_ticks(lo, hi);
      if (t.at.size() < 2) break;
      const double step = t.at[1] - t.at[0];
      const double h = std::ceil(hi / step - kEps) * step, l = std::floor(lo / step + kEps) * step;
      if (h == hi && l == lo) break;
      hi = h, lo = l;
    }
  };
  settle(xl, xh, c.x_log, c.x_from_zero, true);
  settle(yl, yh, c.y_log, c.y_from_zero, c.y_min < c.y_max);
  b.x_lo = xl, b.x_hi = xh, b.y_lo = yl, b.y_hi = yh;
  return b;
}

std::string render_svg(const Chart& c, bool standalone) {
  Layout l;
  size_t legend_items = c.bands.size();
  for (const auto& s : c.series)
    if (!s.name.empty()) ++legend_items;
  size_t longest = 0;
  for (const auto& b : c.bands) longest = std::max(longest, b.name.size());
  for (const auto& s : c.series) longest = std::max(longest, s.name.size());
  const double item = std::max(kLegendMinItem, 24 + kCharWidth * static_cast<double>(longest) + 16);
  l.per_row = std::max(1, static_cast<int>((c.width - l.left - l.right) / item));
  l.legend_rows = std::ceil(static_cast<double>(legend_items) / l.per_row);
  l.bottom += l.legend_rows * kLegendRow;
  l.plot_w = c.width - l.left - l.right;
  // The legend adds to the chart's height rather than taking the plot's.
  l.plot_h = std::max(40.0, c.height - l.top - Layout{}.bottom);
  const double height = l.top + l.plot_h + l.bottom;
  const double x0 = l.left, x1 = l.left + l.plot_w, y0 = l.top + l.plot_h, y1 = l.top;

  std::string o;
  if (standalone) o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"" + xml_escape(c.id) +
       "\" width=\"" + std::to_string(c.width) + "\" height=\"" + num(height) +
       "\" viewBox=\"0 0 " + std::to_string(c.width) + " " + num(height) +
       "\" role=\"img\" aria-label=\"" + xml_escape(c.title) +
       "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o += "<title>" + xml_escape(c.title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"" + num(x0) + "\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" +
       xml_escape(c.title) + "</text>\n";

  const Bounds b = bounds(c);
  if (b.empty) {
    o += "<text x=\"" + num((x0 + x1) / 2) + "\" y=\"" + num((y0 + y1) / 2) +
         "\" text-anchor=\"middle\" fill=\"#666\">no data</text>\n</svg>\n";
    return o;
  }
  const Scale sx(b.x_lo, b.x_hi, x0, x1, c.x_log), sy(b.y_lo, b.y_hi, y0, y1, c.y_log);
  const Ticks tx = c.x_log ? log_ticks(b.x_lo, b.x_hi) : linear_ticks(b.x_lo, b.x_hi, 8);
  const Ticks ty = c.y_log ? log_ticks(b.y_lo, b.y_hi) : linear_ticks(b.y_lo, b.y_hi, 6);

  // Grid and tick labels.
  o += "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double v : tx.at)
    o += "<line x1=\"" + num(sx(v)) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(sx(v)) + "\" y2=\"" +
         num(y1) + "\"/>\n";
  for (double v : ty.at)
    o += "<line x1=\"" + num(x0) + "\" y1=\"" + num(sy(v)) + "\" x2=\"" + num(x1) + "\" y2=\"" +
         num(sy(v)) + "\"/>\n";
  o += "</g>\n<g class=\"ticks\" fill=\"#333333\">\n";
  for (size_t i = 0; i < tx.at.size(); ++i)
    o += "<text x=\"" + num(sx(tx.at[i])) + "\" y=\"" + num(y0 + 16) +
         "\" text-anchor=\"middle\">" + xml_escape(tx.labels[i]) + "</text>\n";
  for (size_t i = 0; i < ty.at.size(); ++i)
    o += "<text x=\"" + num(x0 - 6) + "\" y=\"" + num(sy(ty.at[i]) + 4) +
         "\" text-anchor=\"end\">" + xml_escape(ty.labels[i]) + "</text>\n";
  o += "</g>\n";
  o += "<rect x=\"" + num(x0) + "\" y=\"" + num(y1) + "\" width=\"" + num(l.plot_w) +
       "\" height=\"" + num(l.plot_h) + "\" fill=\"none\" stroke=\"#888888\"/>\n";
  o += "<text class=\"x-label\" x=\"" + num((x0 + x1) / 2) + "\" y=\"" + num(y0 + 34) +
       "\" text-anchor=\"middle\">" + xml_escape(c.x_label) + "</text>\n";
  o += "<text class=\"y-label\" transform=\"translate(16 " + num((y0 + y1) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(c.y_label) + "</text>\n";

  const std::string clip = c.id + "-plot";
  o += "<clipPath id=\"" + xml_escape(clip) + "\"><rect x=\"" + num(x0) + "\" y=\"" + num(y1) +
       "\" width=\"" + num(l.plot_w) + "\" height=\"" + num(l.plot_h) + "\"/></clipPath>\n";
  o += "<g clip-path=\"url(#" + xml_escape(clip) + ")\">\n";
  for (const auto& band : c.bands) {
    std::string upper, lower;
    const size_t n = std::min({band.x.size(), band.lo.size(), band.hi.size()});
    for (size_t i = 0; i < n; ++i) {
      if (!usable(band.x[i], c.x_log) || !usable(band.lo[i], c.y_log) ||
          !usable(band.hi[i], c.y_log))
        continue;
      upper += num(sx(band.x[i])) + "," + num(sy(band.hi[i])) + " ";
      lower = num(sx(band.x[i])) + "," + num(sy(band.lo[i])) + " " + lower;
    }
    if (!upper.empty())
      o += "<polygon class=\"band\" fill=\"" + std::string(colour(band.colour)) +
           "\" fill-opacity=\"0.22\" stroke=\"none\" points=\"" + upper + lower + "\"/>\n";
  }
  for (const auto& s : c.series) {
    const std::string style = "fill=\"none\" stroke=\"" + std::string(colour(s.colour)) +
                              "\" stroke-width=\"1.8\"" +
                              (s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    // A run of usable points is one polyline; an unusable point breaks it.
    std::vector<std::string> runs(1);
    std::vector<size_t> run_points(1, 0);
    double last_y = 0;
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!usable(s.x[i], c.x_log) || !usable(s.y[i], c.y_log)) {
        if (!runs.back().empty()) runs.emplace_back(), run_points.push_back(0);
        continue;
      }
      const double px = sx(s.x[i]), py = sy(s.y[i]);
      if (s.steps && !runs.back().empty()) runs.back() += num(px) + "," + num(last_y) + " ";
      runs.back() += num(px) + "," + num(py) + " ";
      ++run_points.back();
      last_y = py;
    }
    for (size_t r = 0; r < runs.size(); ++r) {
      if (runs[r].empty()) continue;
      if (run_points[r] == 1) {
        const auto comma = runs[r].find(',');
        o += "<circle class=\"series\" cx=\"" + runs[r].substr(0, comma) + "\" cy=\"" +
             runs[r].substr(comma + 1, runs[r].size() - comma - 2) + "\" r=\"2.5\" fill=\"" +
             std::string(colour(s.colour)) + "\"/>\n";
      } else {
        o += "<polyline class=\"series\" " + style + " points=\"" + runs[r] + "\"/>\n";
      }
    }
  }
  o += "</g>\n";
  for (size_t i = 0; i < c.markers.size(); ++i) {
    const auto& m = c.markers[i];
    if (!usable(m.x, c.x_log)) continue;
    const double px = sx(m.x);
    const std::string col(colour(m.colour));
    o += "<line class=\"marker\" x1=\"" + num(px) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(px) +
         "\" y2=\"" + num(y1) + "\" stroke=\"" + col + "\" stroke-dasharray=\"3 3\"/>\n";
    // Labels step down the plot so neighbours do not overlap; a label
    // near the right edge goes on the line's left.
    const bool left = px > x1 - 110;
    o += "<text class=\"marker-label\" x=\"" + num(px + (left ? -4 : 4)) + "\" y=\"" +
         num(y1 + 14 + 14 * static_cast<double>(i % 6)) + "\" fill=\"" + col + "\" text-anchor=\"" +
         (left ? "end" : "start") + "\">" + xml_escape(m.label) + "</text>\n";
  }

  // Legend: bands, then named series, in rows.
  size_t entry = 0;
  auto legend = [&](const std::string& name, size_t col, bool band, bool dashed) {
    const double lx = x0 + static_cast<double>(entry % l.per_row) * item;
    const double ly = y0 + 52 + std::floor(static_cast<double>(entry / l.per_row)) * kLegendRow;
    const std::string colr(colour(col));
    if (band)
      o += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 9) +
           "\" width=\"18\" height=\"10\" fill=\"" + colr + "\" fill-opacity=\"0.22\"/>\n";
    else
      o += "<line x1=\"" + num(lx) + "\" y1=\"" + num(ly - 4) + "\" x2=\"" + num(lx + 18) +
           "\" y2=\"" + num(ly - 4) + "\" stroke=\"" + colr + "\" stroke-width=\"2\"" +
           (dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
    o += "<text class=\"legend\" x=\"" + num(lx + 24) + "\" y=\"" + num(ly) + "\">" +
         xml_escape(name) + "</text>\n";
    ++entry;
  };
  for (const auto& band : c.bands) legend(band.name, band.colour, true, false);
  for (const auto& s : c.series)
    if (!s.name.empty()) legend(s.name, s.colour, false, s.dashed);
  o += "</svg>\n";
  return o;
}

}  // namespace flowperf::plot
