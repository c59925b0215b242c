// CpuPin: binds the calling thread to one CPU for as long as it lives, then
// gives the thread back the CPUs it had. Threads started meanwhile inherit
// the binding, so pinning the thread that launches a test's workers pins
// the data path (netperf -T, and netserver's side of it).
#pragma once

#include <sched.h>

#include <cerrno>

namespace flowperf::core {

class CpuPin {
 public:
  CpuPin() = default;
  // cpu < 0: no binding. ok() says whether the binding took; error() is the
  // errno when it did not (EINVAL: no such CPU, or not one we may use).
  explicit CpuPin(int cpu) {
    if (cpu < 0) return;
    if (::sched_getaffinity(0, sizeof saved_, &saved_) < 0) {
      err_ = errno;
      return;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu >= CPU_SETSIZE) {
      err_ = EINVAL;
      return;
    }
    CPU_SET(cpu, &one);
    if (::sched_setaffinity(0, sizeof one, &one) < 0) {
      err_ = errno;
      return;
    }
    pinned_ = true;
  }
  ~CpuPin() {
    if (pinned_) ::sched_setaffinity(0, sizeof saved_, &saved_);
  }
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;

  bool ok() const { return pinned_; }
  int error() const { return err_; }

 private:
  cpu_set_t saved_{};
  bool pinned_ = false;
  int err_ = 0;
};

}  // namespace flowperf::core
