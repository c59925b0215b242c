#include "report/netperf_demo.h"

namespace flowperf::report {

std::optional<DemoInterval> NetperfDemo::add(double end_s, double work) {
  // A sample from before the last one belongs to a new run (-i repeats the
  // test, each run's clock starting at zero) whose finish() was missed.
  if (end_s < last_s_) start_s_ = 0, work_ = 0;
  last_s_ = end_s;
  work_ += work;
  if (work_ <= 0 || end_s - start_s_ < interval_s_ - slack_s_) return std::nullopt;
  DemoInterval d{end_s - start_s_, work_};
  start_s_ = end_s;
  work_ = 0;
  return d;
}

std::optional<DemoInterval> NetperfDemo::finish() {
  std::optional<DemoInterval> d;
  if (work_ > 0 && last_s_ > start_s_) d = DemoInterval{last_s_ - start_s_, work_};
  start_s_ = last_s_ = work_ = 0;
  return d;
}

}  // namespace flowperf::report
