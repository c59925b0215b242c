// Charts drawn as SVG by flowperf itself: scales, ticks, series, bands and
// markers, laid out in a fixed frame. No plotting library, no script: the
// SVG is text built here, so a report opens anywhere without a network.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flowperf::plot {

// Tick positions and their labels along one axis.
struct Ticks {
  std::vector<double> at;
  std::vector<std::string> labels;
};

// About `target` ticks on [lo, hi], a step of 1, 2 or 5 times a power of
// ten; the first tick is the first multiple of the step at or above lo.
Ticks linear_ticks(double lo, double hi, int target = 6);
// Powers of ten within [lo, hi] (both > 0); with fewer than three of them,
// 2 and 5 times each as well.
Ticks log_ticks(double lo, double hi);
// A tick's label: three significant digits (more for large integers), no
// trailing zeros, plain between 1e-4 and 1e6 (1500, 0.0005), an exponent
// outside (2e6, 5e-5).
std::string tick_label(double v);

// Maps a data interval onto a pixel interval, linearly or by log10.
class Scale {
 public:
  Scale(double lo, double hi, double from_px, double to_px, bool log = false);
  double operator()(double v) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool log() const { return log_; }

 private:
  double lo_, hi_, from_, to_;
  bool log_;
};

// A unit for an axis whose values span up to `max`: the divisor and the
// name, e.g. (1e9, "Gbit/s") for 2.4e9 with base "bit/s".
struct Unit {
  double divisor = 1;
  std::string name;
};
Unit si_unit(double max, std::string_view base);

// Colour-blind-safe palette (Okabe and Ito), cycled by index.
std::string_view colour(size_t index);

struct Series {
  std::string name;
  std::vector<double> x, y;
  size_t colour = 0;
  bool dashed = false;
  bool steps = false;  // a step line (a CDF): horizontal, then vertical
};

// A shaded band between lo and hi (e.g. the spread of many streams).
struct Band {
  std::string name;
  std::vector<double> x, lo, hi;
  size_t colour = 0;
};

// A vertical line at x with a label (p50, p99, ...).
struct Marker {
  double x = 0;
  std::string label;
  size_t colour = 0;
};

struct Chart {
  std::string id;  // an element id in a report, [a-z0-9-]
  std::string title;
  std::string x_label, y_label;
  bool x_log = false, y_log = false;
  bool x_from_zero = false;  // a time axis: from 0 rather than the first sample
  bool y_from_zero = true;   // linear y axes start at 0 unless data go below
  std::vector<Band> bands;
  std::vector<Series> series;
  std::vector<Marker> markers;
  // Fixed axis bounds (both set to use them); otherwise from the data.
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  int width = 760, height = 340;
};

// The data's bounds on each axis (values <= 0 are left out of a log axis);
// a linear y axis is widened to ticks at both ends.
struct Bounds {
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  bool empty = true;
};
Bounds bounds(const Chart& c);

// The chart as an <svg> element; `standalone` adds the XML declaration
// and namespace so the text is a file of its own.
std::string render_svg(const Chart& c, bool standalone = false);

std::string xml_escape(std::string_view s);

}  // namespace flowperf::plot
