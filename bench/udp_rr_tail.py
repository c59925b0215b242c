#!/usr/bin/env python3
"""UDP_RR's tail on loopback: how many requests time out on a path that
loses nothing, and whether every answer is in the latency figures. Runs
--runs rounds of --seconds of UDP_RR per build (interleaved when two are
given), each client against its own build's embedded server, and prints
per run: transactions, timeouts (and their share), late answers, the
latency count against transactions + late, p99.9, p99.99 and the maximum;
then each build's medians. Only 127.0.0.1 is used.

    python3 bench/udp_rr_tail.py build/flowperf [/tmp/old/flowperf] --runs 5 --seconds 3
"""

import argparse
import json
import statistics
import subprocess


def run(binary, seconds):
    out = subprocess.run([binary, "-t", "UDP_RR", "-l", str(seconds), "--json"],
                         capture_output=True, text=True, timeout=seconds + 60)
    if out.returncode != 0:
        raise RuntimeError(f"{binary}: exit {out.returncode}: {out.stderr}")
    t = json.loads(out.stdout)["total"]
    lat = t["latency_us"]
    return {"transactions": t["transactions"], "timeouts": t["timeouts"], "late": t["late"],
            "share": 100.0 * t["timeouts"] / max(1, t["transactions"]),
            "count": lat["count"], "p99_9": lat["p99_9"], "p99_99": lat["p99_99"],
            "max": lat["max"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+", help="one or two flowperf binaries")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    a = ap.parse_args()
    results = {b: [] for b in a.binaries}
    print(f"{'build':<28} {'trans':>8} {'timeouts':>8} {'share%':>8} {'late':>6} "
          f"{'count':>8} {'tr+late':>8} {'p99.9':>8} {'p99.99':>8} {'max':>9}")
    for _ in range(a.runs):
        for b in a.binaries:
            r = run(b, a.seconds)
            results[b].append(r)
            print(f"{b[-28:]:<28} {r['transactions']:>8} {r['timeouts']:>8} {r['share']:>8.4f} "
                  f"{r['late']:>6} {r['count']:>8} {r['transactions'] + r['late']:>8} "
                  f"{r['p99_9']:>8.1f} {r['p99_99']:>8.1f} {r['max']:>9.1f}", flush=True)
    for b, rs in results.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        print(f"median {b}: {med['transactions']:.0f} transactions, {med['timeouts']:.0f} "
              f"timeouts ({med['share']:.4f}%), {med['late']:.0f} late, p99.9 "
              f"{med['p99_9']:.1f} us, p99.99 {med['p99_99']:.1f} us, max {med['max']:.1f} us")


if __name__ == "__main__":
    main()
