#include "session/side_meter.h"

namespace flowperf::session {

void SideMeter::start(const net::Address& local) {
  started_ = true;
  t0_ = std::chrono::steady_clock::now();
  cpu0_ = measure::take_cpu_snapshot();
  nic_ = measure::interface_for(local);
  if (nic_) {
    if (auto c = measure::read_nic_counters(*nic_))
      nic0_ = *c;
    else
      nic_.reset();
  }
}

void SideMeter::finish(engine::SideResult& side) {
  if (!started_ || finished_) return;
  finished_ = true;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  side.cpu = measure::cpu_between(cpu0_, measure::take_cpu_snapshot(), elapsed);
  if (nic_)
    if (auto c = measure::read_nic_counters(*nic_))
      side.nic = measure::nic_between(*nic_, nic0_, *c, elapsed);
}

}  // namespace flowperf::session
