#!/usr/bin/env python3
"""User-space instructions per unit of work, counted by valgrind's callgrind.

At a few tens of thousands of transactions per second a tool spends a few
hundred nanoseconds per transaction in user space, and the kernel splits CPU
time into user and system by sampling at its scheduler tick (every 4 ms at
HZ=250; CONFIG_TICK_CPU_ACCOUNTING): a 3-second TCP_RR run earns the client
only a handful of user-mode samples, so the user
CPU columns of compare.py are too coarse to compare tools whose user-space
work per transaction is that small. This counts instead. Each side (client
or server) runs under callgrind once with a short and once with a long run
of a fixed amount of work (transactions or bytes) while the other side runs
natively; the difference in counted instructions divided by the difference
in work is the marginal cost of one unit: start-up, option parsing and the
report cancel out. Instructions inside the vDSO (clock_gettime) are not
counted (valgrind makes a system call instead), which only flatters a tool
that reads the clock per transaction, as flowperf does and netperf without
histograms does not.

Tools: flowperf (its own server), netperf/netserver (--netperf-dir, or on
PATH), neper's RR programs (--neper-dir, or on PATH), and iperf3 for the
TCP streams. Only 127.0.0.1 is used.

    python3 bench/instructions.py --flowperf build/flowperf --netperf-dir DIR
"""

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import (FLOWPERF_ARGS, NEPER_ARGS, NEPER_QUIET, NETPERF_ARGS,  # noqa: E402
                    add_tool_arguments, find_neper, free_port, wait_listening)

# workload: (unit, per, short count, long count). Counts are transactions,
# or bytes for streams; `per` is what one reported figure is per.
WORKLOADS = {
    "tcp_rr_1": ("transaction", 1, 4000, 20000),
    "udp_rr_1": ("transaction", 1, 4000, 20000),
    "tcp_crr": ("transaction", 1, 1000, 5000),
    "tcp_stream_16k": ("MB", 1e6, 200_000_000, 1_000_000_000),
    "tcp_stream_128k": ("MB", 1e6, 200_000_000, 1_000_000_000),
}


def callgrind(outfile):
    return ["valgrind", "--tool=callgrind", "--trace-children=yes",
            f"--callgrind-out-file={outfile}", "--collect-jumps=no", "-q"]


def total_instructions(pattern):
    """Sum of the instruction totals of every callgrind file matching pattern."""
    total = 0
    for path in glob.glob(pattern):
        with open(path) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    total += int(line.split()[1])
                    break
    if total == 0:
        raise RuntimeError(f"no callgrind output matched {pattern}")
    return total


class Flowperf:
    name = "flowperf"

    def __init__(self, binary):
        self.bin = binary

    def server(self, port, w, count):
        return [self.bin, "server", "-q", "-p", str(port), "-B", "127.0.0.1"]

    def client(self, port, w, count):
        return [self.bin, "-H", "127.0.0.1", "-p", str(port), "-n", str(count)] + FLOWPERF_ARGS[w]


class Netperf:
    name = "netperf"

    def __init__(self, directory):
        self.dir = directory

    def server(self, port, w, count):
        return [os.path.join(self.dir, "netserver"), "-D", "-p", str(port), "-L", "127.0.0.1"]

    def client(self, port, w, count):
        # A negative -l is a count: transactions for RR tests, bytes for streams.
        return ([os.path.join(self.dir, "netperf"), "-H", "127.0.0.1", "-p", str(port),
                 "-l", str(-count), "-P", "0"] + NETPERF_ARGS[w])


class Iperf3:
    name = "iperf3"

    def server(self, port, w, count):
        return ["iperf3", "-s", "-B", "127.0.0.1", "-p", str(port)]

    def client(self, port, w, count):
        size = {"tcp_stream_16k": "16K", "tcp_stream_128k": "128K"}.get(w)
        if size is None:
            return None
        return ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-n", str(count), "-l", size]


class Neper:
    """neper's RR programs; a negative -l is a count of transactions. Its
    server serves one test and exits."""

    name = "neper"

    def __init__(self, directory):
        self.dir = directory
        self.data_port = 0

    def server(self, port, w, count):
        prog, args = NEPER_ARGS[w]
        self.data_port = free_port()
        return [os.path.join(self.dir, prog), "-C", str(port), "-P", str(self.data_port),
                "-l", str(-count)] + args + NEPER_QUIET

    def client(self, port, w, count):
        if w not in NEPER_ARGS or WORKLOADS[w][0] != "transaction":
            return None  # its streams run for a time, not a byte count
        prog, args = NEPER_ARGS[w]
        return [os.path.join(self.dir, prog), "-c", "-H", "127.0.0.1", "-C", str(port),
                "-P", str(self.data_port), "-l", str(-count)] + args + NEPER_QUIET


def stop(proc):
    # SIGINT: callgrind writes its counts when the program exits, and every
    # server here exits on it (netserver's children end with their test).
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def count_side(tool, w, side, count, workdir):
    """Instructions counted on `side` (client or server) for one run of `count` units."""
    port = free_port()
    pattern = os.path.join(workdir, f"{tool.name}-{w}-{side}-{count}")
    server_cmd = tool.server(port, w, count)
    client_cmd = tool.client(port, w, count)
    if side == "server":
        server_cmd = callgrind(pattern + ".%p") + server_cmd
    else:
        client_cmd = callgrind(pattern + ".%p") + client_cmd
    server = subprocess.Popen(server_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, limit=30):  # valgrind starts slowly
            raise RuntimeError(f"{' '.join(server_cmd)}: not listening on port {port} after 30 s")
        done = subprocess.run(client_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(client_cmd)} exited {done.returncode}:\n"
                               f"{done.stdout[-2000:]}")
        time.sleep(0.5)  # let a forked netserver child finish its test and exit
    finally:
        stop(server)
    return total_instructions(pattern + ".*")


def marginal(tool, w, side, workdir):
    unit, per, short, long_ = WORKLOADS[w]
    a = count_side(tool, w, side, short, workdir)
    b = count_side(tool, w, side, long_, workdir)
    return (b - a) / ((long_ - short) / per)


def measure(tools, workloads, log=sys.stderr):
    """{(tool name, workload, side): instructions per unit}."""
    out = {}
    with tempfile.TemporaryDirectory() as workdir:
        for w in workloads:
            for tool in tools:
                if tool.client(1, w, 1) is None:
                    continue
                for side in ("client", "server"):
                    try:
                        out[(tool.name, w, side)] = marginal(tool, w, side, workdir)
                    except Exception as e:  # one failure must not lose the rest
                        print(f"{w} {tool.name} {side}: FAILED {e}", file=log)
                        continue
                    print(f"{w:16} {tool.name:9} {side:6}: "
                          f"{out[(tool.name, w, side)]:,.0f} instructions per "
                          f"{WORKLOADS[w][0]}", file=log)
    return out


def report(results, tools, workloads):
    lines = ["User-space instructions per unit of work, counted by callgrind: the marginal "
             "cost between a short and a long run of each side, so start-up and reports "
             "cancel out (`python3 bench/instructions.py`; vDSO clock reads are not "
             "counted). Unlike the tick-sampled user CPU above, these counts repeat from "
             "run to run, except a stream receiver's, which depends on how much each "
             "`recv` finds queued. Last column: flowperf's client plus server over this "
             "peer's (below 1: flowperf executes fewer).", "",
             "| workload | per | tool | client | server | flowperf / tool |",
             "|---|---|---|---|---|---|"]

    def fmt(v):
        return "-" if v is None else f"{v:,.0f}"

    for w in workloads:
        unit = WORKLOADS[w][0]
        mine = [results.get(("flowperf", w, side)) for side in ("client", "server")]
        for tool in tools:
            c, s = (results.get((tool.name, w, side)) for side in ("client", "server"))
            if c is None and s is None:
                continue
            ratio = "-"
            if tool.name != "flowperf" and None not in mine and None not in (c, s):
                ratio = f"{(mine[0] + mine[1]) / (c + s):.2f}x"
            lines.append(f"| {w} | {unit} | {tool.name} | {fmt(c)} | {fmt(s)} | {ratio} |")
    return lines


def tools_for(flowperf, netperf_dir, neper_dir=None):
    tools = [Flowperf(flowperf)]
    npdir = netperf_dir or (os.path.dirname(shutil.which("netperf"))
                            if shutil.which("netperf") else None)
    if npdir and os.path.exists(os.path.join(npdir, "netserver")):
        tools.append(Netperf(npdir))
    if find_neper(neper_dir):
        tools.append(Neper(find_neper(neper_dir)))
    if shutil.which("iperf3"):
        tools.append(Iperf3())
    return tools


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_tool_arguments(ap, HERE)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        ap.error("valgrind is not installed (apt-get install valgrind)")
    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w}; known: {', '.join(WORKLOADS)}")
    tools = tools_for(os.path.abspath(args.flowperf), args.netperf_dir, args.neper_dir)
    results = measure(tools, workloads)
    print("\n".join(report(results, tools, workloads)))


if __name__ == "__main__":
    main()
