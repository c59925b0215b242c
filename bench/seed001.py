#!/usr/bin/env python3
"""Seed 001's TCP_RR load: fifty `netperf -t TCP_RR -- -r 38,38` clients at
once against one detached `netserver`, on 127.0.0.1.

Two pairs take turns, round after round, so a shared machine's drifts hit
both alike: netperf 2.7's netperf with its own netserver, and flowperf's
netperf personality with flowperf's netserver personality. Each server is
started as the seed starts it (`netserver -p PORT`, which detaches) and
stopped after its round. A round's figure is the sum of the fifty clients'
transactions per second. The report gives each pair's median and the
median of the per-round ratios flowperf / netperf 2.7.

    python3 bench/seed001.py --flowperf-dir build --netperf-dir /tmp/peers/bin \\
        --rounds 5 --seconds 5
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import free_port, raise_fd_limit, wait_listening  # noqa: E402


def daemon_pid(netserver, port):
    """The detached netserver's pid, found by its command line."""
    want = f"{netserver}\0-p\0{port}\0".encode()
    for _ in range(100):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if f.read().startswith(want):
                        return int(name)
            except OSError:
                pass
        time.sleep(0.05)
    raise RuntimeError(f"{netserver} -p {port} did not stay running")


def one_round(netperf, netserver, clients, seconds):
    """Sum of the clients' transactions/s against a fresh detached netserver."""
    port = free_port()
    subprocess.run([netserver, "-p", str(port), "-L", "127.0.0.1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = daemon_pid(netserver, port)
    try:
        wait_listening(port)
        procs = [subprocess.Popen([netperf, "-H", "127.0.0.1", "-p", str(port), "-l", str(seconds),
                                   "-t", "TCP_RR", "-P", "0", "--", "-r", "38,38"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(clients)]
        total, failed = 0.0, 0
        for p in procs:
            out, err = p.communicate(timeout=seconds + 60)
            fields = out.split()
            if p.returncode != 0 or len(fields) < 6:
                failed += 1
                sys.stderr.write(f"{netperf}: exit {p.returncode}: {err.strip()[:200]}\n")
                continue
            total += float(fields[5])
        return total, failed
    finally:
        os.kill(pid, signal.SIGTERM)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flowperf-dir", default="build",
                    help="where flowperf's netperf and netserver links are (default: build)")
    ap.add_argument("--netperf-dir", default="/tmp/peers/bin",
                    help="where netperf 2.7's netperf and netserver are (default: /tmp/peers/bin)")
    ap.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    ap.add_argument("--seconds", type=int, default=5, help="each client's -l (default 5)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per pair (default 5)")
    args = ap.parse_args()
    raise_fd_limit()
    pairs = {
        "netperf 2.7": (os.path.join(args.netperf_dir, "netperf"),
                        os.path.join(args.netperf_dir, "netserver")),
        "flowperf": (os.path.abspath(os.path.join(args.flowperf_dir, "netperf")),
                     os.path.abspath(os.path.join(args.flowperf_dir, "netserver"))),
    }
    for name, (client, server) in pairs.items():
        for path in (client, server):
            if not os.access(path, os.X_OK):
                sys.exit(f"seed001: {name}: no executable {path}")
    results = {name: [] for name in pairs}
    failures = 0
    for r in range(args.rounds):
        order = list(pairs) if r % 2 == 0 else list(reversed(pairs))
        for name in order:
            total, failed = one_round(*pairs[name], args.clients, args.seconds)
            failures += failed
            results[name].append(total)
            print(f"round {r + 1} {name}: {total:.0f} trans/s", file=sys.stderr)
    ratios = [f / n for f, n in zip(results["flowperf"], results["netperf 2.7"]) if n > 0]
    print(f"Seed 001: {args.clients} TCP_RR clients (-r 38,38, -l {args.seconds}) against a "
          f"detached netserver, {args.rounds} interleaved rounds\n")
    print("| pair | median trans/s (all clients) | rounds |")
    print("|---|---|---|")
    for name, xs in results.items():
        print(f"| {name} | {statistics.median(xs):.0f} | {', '.join(f'{x:.0f}' for x in xs)} |")
    print(f"\nflowperf / netperf 2.7, median of the per-round ratios: "
          f"{statistics.median(ratios):.2f}x")
    if failures:
        print(f"\n{failures} client runs failed (see stderr)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
