#!/usr/bin/env python3
"""A/B: two flowperf builds side by side on loopback, for a change that
must not move performance (a refactor). For each workload the two run
interleaved (A B A B ...) for --pairs rounds, each client against its own
build's server, and the report gives each build's median rate and the ratio
B/A. Only 127.0.0.1 is used.

    python3 bench/ab.py --a /tmp/base/flowperf --b build/flowperf --pairs 5 --seconds 3
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

DEFAULT_WORKLOADS = ["tcp_stream_16k", "tcp_stream_128k", "tcp_rr_1", "tcp_rr_64", "udp_rr_1",
                     "tcp_crr", "udp_stream_64", "tcp_rr_p2"]


def rate(binary, port, args, seconds):
    """One run's rate: bits/s for streams, transactions/s for the others."""
    out = subprocess.run([binary, "-H", "127.0.0.1", "-p", str(port), "-l", str(seconds),
                          "--json"] + args, capture_output=True, text=True, timeout=seconds + 60)
    if out.returncode != 0:
        raise RuntimeError(f"{binary} {' '.join(args)}: exit {out.returncode}: {out.stderr}")
    total = json.loads(out.stdout)["total"]
    return total.get("bits_per_second") or total.get("transactions_per_second")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the build before the change")
    ap.add_argument("--b", required=True, help="the build after it")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS))
    a = ap.parse_args()
    # A SIGTERM ends the run through `finally`, which stops both servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    common.raise_fd_limit()
    servers, ports = [], {}
    try:
        for name, binary in (("a", a.a), ("b", a.b)):
            port = common.free_port()
            servers.append(subprocess.Popen([binary, "server", "-p", str(port), "-q"],
                                            stdout=subprocess.DEVNULL))
            if not common.wait_listening(port):
                raise RuntimeError(f"{binary} server did not start")
            ports[name] = (binary, port)
        print("| workload | A median | B median | B/A | A runs | B runs |")
        print("|---|---|---|---|---|---|")
        for w in a.workloads.split(","):
            runs = {"a": [], "b": []}
            for _ in range(a.pairs):
                for name in ("a", "b"):
                    binary, port = ports[name]
                    runs[name].append(rate(binary, port, common.FLOWPERF_ARGS[w], a.seconds))
            ma, mb = statistics.median(runs["a"]), statistics.median(runs["b"])
            fmt = lambda v: f"{v / 1e9:.2f} Gbit/s" if "stream" in w else f"{v:,.0f}/s"
            spread = lambda r: " ".join(f"{v / ma:.2f}" for v in r)
            print(f"| {w} | {fmt(ma)} | {fmt(mb)} | {mb / ma:.3f} | {spread(runs['a'])} | "
                  f"{spread(runs['b'])} |", flush=True)
    finally:
        for s in servers:
            s.terminate()
            s.wait()


if __name__ == "__main__":
    main()
