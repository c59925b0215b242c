#!/usr/bin/env python3
"""The monitor's memory over many scheduled tests: RSS after every 1,000.

Starts a flowperf server and `flowperf monitor` on 127.0.0.1 with one target
whose schedule has no pause (every 10 ms, a 10 ms TCP_RR and a 10 ms
UDP_STREAM at 1 Mbit/s), reads the tests run from /metrics and the
monitor's RSS from /proc, and prints one row per 1,000 tests. Flat means
the last rows differ by no more than the allocator's noise.

    python3 bench/monitor_rss.py --flowperf build/flowperf --tests 10000

Target (issue 19): after 10,000 tests, RSS <= 16 MiB and flat.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import free_port, wait_listening  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def tests_run(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return sum(int(float(v)) for v in re.findall(r"^flowperf_tests_total\{[^}]*\} (\S+)$", text, re.M))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flowperf", default="build/flowperf")
    ap.add_argument("--tests", type=int, default=10000)
    ap.add_argument("--every", type=int, default=1000, help="a row per this many tests")
    a = ap.parse_args()

    sport, mport = free_port(), free_port()
    server = subprocess.Popen([a.flowperf, "server", "-p", str(sport), "-B", "127.0.0.1", "-q"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(sport)
    cfg = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    cfg.write(f"""targets:
  - name: bench
    host: 127.0.0.1
    port: {sport}
    every: 10ms
    jitter: 0
    tests:
      - {{test: TCP_RR, length: 10ms}}
      - {{test: UDP_STREAM, length: 10ms, rate: 1M}}
""")
    cfg.close()
    mon = subprocess.Popen([a.flowperf, "monitor", cfg.name, "--listen", f"127.0.0.1:{mport}"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(mport)
        print("| tests run | RSS (KiB) | seconds |")
        print("|---:|---:|---:|")
        t0 = time.monotonic()
        mark = a.every
        while mark <= a.tests:
            n = tests_run(mport)
            if n >= mark:
                print(f"| {n} | {rss_kib(mon.pid)} | {time.monotonic() - t0:.0f} |", flush=True)
                mark += a.every
            else:
                time.sleep(0.2)
    finally:
        mon.terminate()
        server.terminate()
        mon.wait()
        server.wait()
        os.unlink(cfg.name)


if __name__ == "__main__":
    main()
