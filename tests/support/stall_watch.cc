#include "support/stall_watch.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <thread>
#include <vector>

namespace flowperf::testing {

struct StallWatch::State {
  struct Cpu {
    std::atomic<int64_t> longest{0}, total{0};  // ns
  };
  std::atomic<bool> stop{false};
  std::atomic<bool> realtime{true};
  std::vector<std::unique_ptr<Cpu>> cpus;
  std::vector<std::thread> threads;
};

namespace {

int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

StallWatch::StallWatch() : s_(std::make_unique<State>()) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    s_->cpus.push_back(std::make_unique<State::Cpu>());
    State::Cpu* c = s_->cpus.back().get();
    s_->threads.emplace_back([this, c, cpu] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      ::pthread_setaffinity_np(::pthread_self(), sizeof one, &one);
      sched_param p{};
      p.sched_priority = 1;
      if (::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &p) != 0) s_->realtime.store(false);
      constexpr int64_t kPeriod = 1'000'000, kSlackNs = kSlack.count() * 1'000'000;
      int64_t due = now_ns() + kPeriod;
      while (!s_->stop.load(std::memory_order_relaxed)) {
        timespec t{static_cast<time_t>(due / 1'000'000'000),
                   static_cast<long>(due % 1'000'000'000)};
        ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr);
        const int64_t now = now_ns(), late = now - due;
        if (late > kSlackNs) {
          if (late > c->longest.load()) c->longest.store(late);
          c->total.fetch_add(late);
        }
        due = now + kPeriod;  // a stall is not caught up on
      }
    });
  }
}

StallWatch::~StallWatch() { stop(); }

void StallWatch::stop() {
  s_->stop.store(true);
  for (auto& t : s_->threads)
    if (t.joinable()) t.join();
}

std::chrono::nanoseconds StallWatch::longest() const {
  int64_t m = 0;
  for (const auto& c : s_->cpus) m = std::max(m, c->longest.load());
  return std::chrono::nanoseconds(m);
}

std::chrono::nanoseconds StallWatch::total() const {
  int64_t m = 0;
  for (const auto& c : s_->cpus) m = std::max(m, c->total.load());
  return std::chrono::nanoseconds(m);
}

bool StallWatch::realtime() const { return s_->realtime.load(); }

}  // namespace flowperf::testing
