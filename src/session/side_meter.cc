#include "session/side_meter.h"

namespace flowperf::session {

void SideMeter::start(const net::Address* local) {
  started_ = true;
  t0_ = std::chrono::steady_clock::now();
  cpu0_ = measure::take_cpu_snapshot();
  if (local) nic_ = measure::interface_for(*local);
  if (nic_) {
    if (auto c = measure::read_nic_counters(*nic_))
      nic0_ = *c;
    else
      nic_.reset();
  }
}

SideMeter::Reading SideMeter::lap() {
  Reading r;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - t0_).count();
  measure::CpuSnapshot cpu = measure::take_cpu_snapshot();
  r.cpu = measure::cpu_between(cpu0_, cpu, elapsed);
  cpu0_ = std::move(cpu);
  if (nic_)
    if (auto c = measure::read_nic_counters(*nic_)) {
      r.nic = measure::nic_between(*nic_, nic0_, *c, elapsed);
      nic0_ = *c;
    }
  t0_ = now;
  return r;
}

void SideMeter::finish(results::SideResult& side) {
  if (!started_ || finished_) return;
  finished_ = true;
  Reading r = lap();
  side.cpu = std::move(r.cpu);
  side.nic = std::move(r.nic);
}

}  // namespace flowperf::session
