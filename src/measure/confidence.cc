#include "measure/confidence.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace flowperf::measure {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Past this many degrees of freedom the expansion around the normal quantile
// below is exact to double precision for the levels that matter.
constexpr int64_t kExpansionDf = 1000;
constexpr int64_t kNormalDf = 1000000;

// The two-sided normal quantile: z with erf(z / √2) = level.
double normal_quantile(double level) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erf(mid / std::numbers::sqrt2) < level ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// P(|T| ≤ t) for Student's t with an integer number of degrees of freedom,
// in the closed form for θ = atan(t / √df) (Abramowitz and Stegun 26.7.3):
//   odd df:  (2/π)·(θ + sin θ·(cos θ + ⅔cos³θ + (2·4)/(3·5)cos⁵θ + ...))
//   even df: sin θ·(1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + ...)
// with (df - 1) / 2 terms in the odd sum, df / 2 in the even one.
double t_two_sided(double theta, int64_t df) {
  const double c = std::cos(theta), s = std::sin(theta), c2 = c * c;
  if (df % 2 == 1) {
    double sum = 0, term = c;
    for (int64_t k = 1; k <= (df - 1) / 2; ++k) {
      sum += term;
      term *= c2 * static_cast<double>(2 * k) / static_cast<double>(2 * k + 1);
    }
    return 2 / std::numbers::pi * (theta + s * sum);
  }
  double sum = 0, term = 1;
  for (int64_t k = 1; k <= df / 2; ++k) {
    sum += term;
    term *= c2 * static_cast<double>(2 * k - 1) / static_cast<double>(2 * k);
  }
  return s * sum;
}

// The Cornish-Fisher expansion of t around the normal quantile z
// (Abramowitz and Stegun 26.7.5), for large df.
double t_expansion(double z, double df) {
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

}  // namespace

double student_t(double level_pct, int64_t df) {
  if (!(level_pct > 0 && level_pct < 100))
    throw std::invalid_argument("a confidence level is a percentage between 0 and 100");
  if (df <= 0) return kInf;
  const double level = level_pct / 100;
  const double z = normal_quantile(level);
  if (df >= kNormalDf) return z;
  if (df > kExpansionDf) return t_expansion(z, static_cast<double>(df));
  // P(|T| ≤ t) grows with θ; bisect θ in (0, π/2), then t = √df·tan θ.
  double lo = 0, hi = std::numbers::pi / 2;
  for (int i = 0; i < 200 && hi - lo > 1e-16; ++i) {
    const double mid = (lo + hi) / 2;
    (t_two_sided(mid, df) < level ? lo : hi) = mid;
  }
  return std::sqrt(static_cast<double>(df)) * std::tan((lo + hi) / 2);
}

Interval confidence_interval(std::span<const double> values, double level_pct) {
  Interval r;
  r.n = values.size();
  if (r.n == 0) {
    r.half_width = r.width_pct = kInf;
    return r;
  }
  double sum = 0;
  for (double v : values) sum += v;
  r.mean = sum / static_cast<double>(r.n);
  if (r.n < 2) {
    r.half_width = r.width_pct = kInf;
    return r;
  }
  // Two passes: no cancellation from a running sum of squares.
  double squares = 0;
  for (double v : values) squares += (v - r.mean) * (v - r.mean);
  r.stddev = std::sqrt(squares / static_cast<double>(r.n - 1));
  r.half_width = student_t(level_pct, static_cast<int64_t>(r.n) - 1) * r.stddev /
                 std::sqrt(static_cast<double>(r.n));
  if (r.half_width == 0)
    r.width_pct = 0;
  else if (r.mean == 0)
    r.width_pct = kInf;
  else
    r.width_pct = 200 * r.half_width / std::fabs(r.mean);
  return r;
}

ConfidenceLoop::ConfidenceLoop(ConfidenceGoal goal, std::vector<Metric> metrics)
    : goal_(goal), metrics_(std::move(metrics)), series_(metrics_.size()) {
  if (!(goal_.level_pct > 0 && goal_.level_pct < 100))
    throw std::invalid_argument("a confidence level is a percentage between 0 and 100");
  if (!(goal_.width_pct > 0)) throw std::invalid_argument("a confidence width is above 0");
  if (goal_.min_iterations < 1 || goal_.max_iterations < goal_.min_iterations)
    throw std::invalid_argument("iterations: 1 <= min <= max");
  if (metrics_.empty()) throw std::invalid_argument("a confidence loop needs a metric");
}

bool ConfidenceLoop::add(std::span<const double> values) {
  if (values.size() != metrics_.size())
    throw std::invalid_argument("one value per metric, in order");
  if (done_) throw std::logic_error("the confidence loop has already stopped");
  for (size_t i = 0; i < values.size(); ++i) series_[i].push_back(values[i]);
  ++runs_;
  const int n = iterations();
  done_ = n >= goal_.min_iterations && (n >= goal_.max_iterations || achieved());
  return !done_;
}

bool ConfidenceLoop::achieved(size_t metric) const {
  return interval(metric).width_pct <= goal_.width_pct;
}

bool ConfidenceLoop::achieved() const {
  if (runs_ < 2) return false;
  for (size_t i = 0; i < metrics_.size(); ++i)
    if (metrics_[i].governs && !achieved(i)) return false;
  return true;
}

Interval ConfidenceLoop::interval(size_t metric) const {
  return confidence_interval(series_.at(metric), goal_.level_pct);
}

}  // namespace flowperf::measure
