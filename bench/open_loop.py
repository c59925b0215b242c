#!/usr/bin/env python3
"""How close the open-loop generator (--rate) comes to the closed loop's
maximum, and how exactly it keeps its rate, on 127.0.0.1.

Per workload and round: a closed-loop run measures the maximum transaction
rate; then open-loop runs ask for fractions of it (90% by default), and each
reports the rate it sent at, the rate answered, the requests sent more than
1 ms late and the latency percentiles (counted from intended send times).
Workloads take turns round by round, so a shared machine's drifts hit all
alike. The report gives, per workload and fraction, medians over the rounds
of: the asked rate as a share of that round's closed-loop rate, the rate
error |sent - asked| / asked, answered / closed, and p50/p99.

    python3 bench/open_loop.py --flowperf build/flowperf --rounds 5 --seconds 3

Target (issue 21): at 90% of the closed loop, rate error <= 0.5%.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import free_port, wait_listening  # noqa: E402

WORKLOADS = {
    "tcp_rr_1": ["-t", "TCP_RR", "-r", "1,1"],
    "udp_rr_1": ["-t", "UDP_RR", "-r", "1,1"],
    "tcp_rr_64_p2": ["-t", "TCP_RR", "-r", "64,64", "-P", "2"],
    "udp_rr_64_p2": ["-t", "UDP_RR", "-r", "64,64", "-P", "2"],
    "tcp_rr_1_p1000": ["-t", "TCP_RR", "-r", "1,1", "-P", "1000"],
    "tcp_crr_1": ["-t", "TCP_CRR", "-r", "1,1"],
}


def run(flowperf, port, args, seconds):
    out = subprocess.run(
        [flowperf, "-H", "127.0.0.1", "-p", str(port), "-l", str(seconds), "--json"] + args,
        capture_output=True, text=True, timeout=seconds + 60, check=True).stdout
    return json.loads(out)["total"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flowperf", default="build/flowperf")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--fractions", default="0.9", help="comma-separated shares of the closed loop")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--json", help="write every run here")
    a = ap.parse_args()
    fractions = [float(f) for f in a.fractions.split(",")]
    names = a.workloads.split(",")

    port = free_port()
    server = subprocess.Popen([a.flowperf, "server", "-p", str(port), "-B", "127.0.0.1", "-q"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = []
    try:
        wait_listening(port)
        for r in range(a.rounds):
            for name in names:
                closed = run(a.flowperf, port, WORKLOADS[name], a.seconds)
                cmax = closed["transactions_per_second"]
                for f in fractions:
                    asked = round(cmax * f)
                    t = run(a.flowperf, port, WORKLOADS[name] + ["--rate", str(asked)], a.seconds)
                    ol = t["open_loop"]
                    runs.append({
                        "round": r, "workload": name, "fraction": f, "closed_tps": cmax,
                        "asked": asked, "sent_per_s": ol["sent_per_second"],
                        "answered_per_s": t["transactions_per_second"], "sent": ol["sent"],
                        "late": ol["sent_late"], "unsent": ol["unsent"],
                        "p50_us": t["latency_us"]["p50"], "p99_us": t["latency_us"]["p99"],
                        "closed_p50_us": closed["latency_us"]["p50"],
                    })
                    x = runs[-1]
                    print(f"round {r} {name}: closed {cmax:,.0f}/s; asked {asked:,}/s "
                          f"sent {x['sent_per_s']:,.1f}/s answered {x['answered_per_s']:,.1f}/s "
                          f"late {x['late']} p50 {x['p50_us']:.0f} us p99 {x['p99_us']:.0f} us",
                          file=sys.stderr)
    finally:
        server.terminate()
        server.wait()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)

    print("| workload | asked / closed | closed-loop max | rate error (sent) | answered / closed "
          "| sent > 1 ms late | p50 closed → open | p99 open |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        for f in fractions:
            rs = [x for x in runs if x["workload"] == name and x["fraction"] == f]
            med = lambda k: statistics.median(k(x) for x in rs)  # noqa: E731
            err = med(lambda x: abs(x["sent_per_s"] - x["asked"]) / x["asked"] * 100)
            print(f"| {name} | {f:.0%} | {med(lambda x: x['closed_tps']):,.0f}/s | {err:.3f}% "
                  f"| {med(lambda x: x['answered_per_s'] / x['closed_tps']):.1%} "
                  f"| {med(lambda x: x['late'] / max(x['sent'], 1)):.2%} "
                  f"| {med(lambda x: x['closed_p50_us']):.0f} → {med(lambda x: x['p50_us']):.0f} us "
                  f"| {med(lambda x: x['p99_us']):.0f} us |")


if __name__ == "__main__":
    main()
