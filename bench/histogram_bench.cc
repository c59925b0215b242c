// Micro-benchmarks for flowperf::measure::Histogram: the record() hot path (bare and tapped for
// interval samples), merge(), percentile() and the snapshot round trip.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "measure/histogram.h"
#include "measure/live_latency.h"

namespace flowperf::measure {
namespace {

// Latency-like values (log-normal, median ~22 us, long tail), cycled through by the benchmarks so
// the branch predictor and the bucket index are not trivially constant.
const std::vector<uint64_t>& Values() {
  static const std::vector<uint64_t> values = [] {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(10.0, 2.0);
    std::vector<uint64_t> v(1 << 16);
    for (auto& x : v) x = static_cast<uint64_t>(d(rng));
    return v;
  }();
  return values;
}

Histogram Filled() {
  Histogram h;
  for (uint64_t v : Values()) h.record(v);
  return h;
}

// Arg 1: with the tap -i sampling sets (measure/live_latency.h), one more
// relaxed load and store per sample.
void BM_RecordVaried(benchmark::State& state) {
  const std::vector<uint64_t>& values = Values();
  const size_t mask = values.size() - 1;
  LiveLatency live;
  Histogram h;
  if (state.range(0)) h.tap(live.counters());
  size_t i = 0;
  for (auto _ : state) {
    h.record(values[i++ & mask]);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordVaried)->Arg(0)->Arg(1);

void BM_RecordConstant(benchmark::State& state) {
  Histogram h;
  uint64_t v = 25'000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    h.record(v);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordConstant);

void BM_RecordN(benchmark::State& state) {
  const std::vector<uint64_t>& values = Values();
  const size_t mask = values.size() - 1;
  Histogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record_n(values[i++ & mask], 3);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordN);

void BM_IndexOf(benchmark::State& state) {
  const std::vector<uint64_t>& values = Values();
  const size_t mask = values.size() - 1;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Histogram::index_of(values[i++ & mask]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_IndexOf);

void BM_Merge(benchmark::State& state) {
  const Histogram src = Filled();
  Histogram dst;
  for (auto _ : state) {
    dst.merge(src);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Merge);

void BM_Percentile(benchmark::State& state) {
  const Histogram h = Filled();
  double p = static_cast<double>(state.range(0)) / 100.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p);
    benchmark::DoNotOptimize(h.percentile(p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Percentile)->Arg(5000)->Arg(9900)->Arg(9999);

void BM_Stddev(benchmark::State& state) {
  const Histogram h = Filled();
  for (auto _ : state) benchmark::DoNotOptimize(h.stddev());
}
BENCHMARK(BM_Stddev);

void BM_SnapshotRoundTrip(benchmark::State& state) {
  const Histogram h = Filled();
  for (auto _ : state) {
    Histogram r = Histogram::from_snapshot(h.snapshot());
    benchmark::DoNotOptimize(r.count());
  }
}
BENCHMARK(BM_SnapshotRoundTrip);

}  // namespace
}  // namespace flowperf::measure
