#!/usr/bin/env python3
"""Where the time goes as TCP_RR flows are added: the profile behind the
scale check of bench/compare.py (10,000 flows against 2).

For each flow count, one flowperf TCP_RR client (-P N, 2 threads) runs
against a flowperf server (a process of its own, 2 threads per test); after
a settling time, for a window in the steady state, it reads:

* the kernel's TCP counters (/proc/net/snmp OutSegs, /proc/net/netstat
  DelayedACKs): TCP segments and delayed-ACK timer firings per transaction.
  Two segments per transaction is the floor (request and answer, each
  carrying the ACK of the other); every delayed-ACK timer that fires adds a
  pure ACK.
* where the CPUs' time went, with `perf record -a` (when perf is installed:
  apt-get install linux-perf), split into the kernel, flowperf's own code
  (its binary, libc, the vDSO) and idle, as nanoseconds per transaction.

The client's rate and median latency are its own report's (whole test).
The median latency of a closed loop of N flows is about N / rate: the time a
flow's turn takes to come round.

    python3 bench/scale.py --flowperf build/flowperf --flows 2,1000,3000,5000,10000

Only 127.0.0.1 is used.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import free_port, raise_fd_limit, wait_listening  # noqa: E402


def tcp_counters():
    """{"OutSegs": n, "DelayedACKs": n} of this network namespace."""
    out = {}
    for path, table, keys in (("/proc/net/snmp", "Tcp:", ("OutSegs",)),
                              ("/proc/net/netstat", "TcpExt:", ("DelayedACKs",))):
        with open(path) as f:
            rows = [line.split() for line in f if line.startswith(table)]
        names, values = rows[0], rows[1]  # a header row, then the values
        for k in keys:
            out[k] = int(values[names.index(k)])
    return out


def cpu_shares(perf_data):
    """Shares (0..1) of the sampled CPU time: kernel (any task's kernel
    code, softirq threads included), flowperf (flowperf's processes in user
    space), idle, other."""
    rep = subprocess.run(["perf", "report", "-i", perf_data, "--stdio", "--no-children",
                          "--sort", "comm,dso", "-g", "none"],
                         capture_output=True, text=True, check=True).stdout
    shares = {"kernel": 0.0, "flowperf": 0.0, "idle": 0.0, "other": 0.0}
    for line in rep.splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].endswith("%"):
            continue
        pct = float(parts[0][:-1]) / 100
        comm, dso = parts[1], " ".join(parts[2:])
        if comm == "swapper":
            shares["idle"] += pct
        elif "[kernel" in dso:
            shares["kernel"] += pct
        elif comm == "flowperf":
            shares["flowperf"] += pct
        else:
            shares["other"] += pct
    return shares


def run_one(flowperf, port, n, settle, window):
    """One client run of N flows; returns its figures."""
    cmd = [flowperf, "-H", "127.0.0.1", "-p", str(port), "-t", "TCP_RR", "-P", str(n),
           "--threads", "2", "-l", str(settle + window + 3), "--json"]  # outlasts perf
    with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryDirectory() as td:
        client = subprocess.Popen(cmd, stdout=fo, stderr=subprocess.DEVNULL, text=True)
        time.sleep(settle)
        c0, t0 = tcp_counters(), time.monotonic()
        perf_data = os.path.join(td, "perf.data")
        if shutil.which("perf"):
            subprocess.run(["perf", "record", "-a", "-F", "999", "-o", perf_data, "--",
                            "sleep", str(window)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            time.sleep(window)
        c1, elapsed = tcp_counters(), time.monotonic() - t0  # perf takes a little longer
        if client.wait() != 0:
            raise RuntimeError(f"flowperf -P {n} exited {client.returncode}")
        fo.seek(0)
        doc = json.load(fo)
        shares = cpu_shares(perf_data) if os.path.exists(perf_data) else None
    total = doc["total"]
    rate = total["transactions_per_second"]
    done = rate * elapsed  # transactions between the counter readings, at the test's mean rate
    return {
        "flows": n,
        "rate": rate,
        "p50_us": total["latency_us"]["p50"],
        "segments_per_trans": (c1["OutSegs"] - c0["OutSegs"]) / done,
        "delayed_acks_per_trans": (c1["DelayedACKs"] - c0["DelayedACKs"]) / done,
        "shares": shares,
        "cpus": os.cpu_count(),
    }


def profile(flowperf, counts, settle=2.0, window=2.0):
    """Runs each flow count once against one flowperf server; returns the rows."""
    raise_fd_limit()
    port = free_port()
    server = subprocess.Popen([flowperf, "server", "-q", "-p", str(port), "-B", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    try:
        wait_listening(port)
        for n in counts:
            try:
                rows.append(run_one(flowperf, port, n, settle, window))
            except (RuntimeError, ValueError, KeyError) as e:
                print(f"scale -P {n}: FAILED {e}", file=sys.stderr)
                continue
            r = rows[-1]
            print(f"scale -P {n}: {r['rate']:.0f} trans/s", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(10)
    return rows


def report(rows):
    if not rows:
        return []
    base = rows[0]
    perf = all(r["shares"] for r in rows)
    lines = [f"Where the time goes as flows are added (`bench/scale.py`: one TCP_RR run "
             f"per flow count, 2 threads per side; counters and "
             + ("`perf record -a` samples " if perf else "")
             + "over a steady-state window). A flow's turn comes round every N / rate "
             "seconds, the median latency; once that is longer than TCP's 40 ms "
             "delayed-ACK timer, most answers also cost a pure ACK."
             + (" CPU per transaction: all CPUs' sampled time, split into the kernel's "
                "(both processes and softirq threads), flowperf's own code (binary, "
                "libc, vDSO), and idle." if perf else " (perf is not installed: "
                "`apt-get install linux-perf` adds the CPU split.)"), ""]
    head = "| flows | trans/s | vs " + f"{base['flows']:,} flows | p50 latency | " \
           "TCP segments per trans | delayed-ACK timers per trans |"
    rule = "|---|---|---|---|---|---|"
    if perf:
        head += " kernel CPU per trans | flowperf CPU per trans | idle |"
        rule += "---|---|---|"
    lines += [head, rule]
    for r in rows:
        line = (f"| {r['flows']:,} | {r['rate']:,.0f} | {r['rate'] / base['rate']:.2f}x | "
                f"{fmt_us(r['p50_us'])} | {r['segments_per_trans']:.2f} | "
                f"{r['delayed_acks_per_trans']:.2f} |")
        if perf:
            s = r["shares"]
            per = r["cpus"] * 1e9 / r["rate"]  # CPU-ns per transaction at 100%
            line += (f" {s['kernel'] * per:,.0f} ns | {s['flowperf'] * per:,.0f} ns | "
                     f"{s['idle'] * 100:.0f}% |")
        lines.append(line)
    return lines


def fmt_us(us):
    return f"{us / 1000:.1f} ms" if us >= 1000 else f"{us:.0f} µs"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowperf", default=os.path.join(HERE, "..", "build", "flowperf"))
    ap.add_argument("--flows", default="2,1000,3000,5000,10000")
    ap.add_argument("--settle", type=float, default=2.0,
                    help="seconds from the client's start to the window (connections, warm-up)")
    ap.add_argument("--window", type=float, default=2.0, help="seconds measured")
    args = ap.parse_args()
    try:
        counts = [int(n) for n in args.flows.split(",") if n.strip()]
    except ValueError:
        ap.error(f"--flows {args.flows}: a comma-separated list of flow counts, e.g. 2,1000,10000")
    if not counts or min(counts) < 1:
        ap.error(f"--flows {args.flows}: at least one count, each 1 or more")
    print("\n".join(report(profile(os.path.abspath(args.flowperf), counts, args.settle,
                                   args.window))))


if __name__ == "__main__":
    main()
