#!/usr/bin/env python3
"""Side-by-side comparison of flowperf with its peers on loopback.

For each workload the tools run interleaved (A B C A B C ...) for --pairs
rounds, so slow drifts of a shared machine hit every tool alike. Each run's
client and server CPU time comes from the kernel (wait4 for the client,
/proc/PID/stat for the long-running server, children included), and peak RSS
from the client's rusage. The report is a markdown table of medians with the
flowperf/peer ratio, and the raw runs as JSON.

Peers: iperf3 and qperf from Debian; netperf/netserver when found (set
--netperf-dir, default: on PATH). Only 127.0.0.1 is ever used.

    python3 bench/compare.py --pairs 5 --seconds 5 --json bench/results.json
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")

# name: (kind, metric, description)
WORKLOADS = {
    "tcp_stream_16k": ("stream", "Gbit/s", "TCP stream, 16 KiB sends"),
    "tcp_stream_128k": ("stream", "Gbit/s", "TCP stream, 128 KiB sends"),
    "tcp_rr_1": ("rr", "trans/s", "TCP_RR, 1-byte request and response"),
    "tcp_rr_64": ("rr", "trans/s", "TCP_RR, 64-byte request and response"),
    "udp_rr_1": ("rr", "trans/s", "UDP_RR, 1-byte request and response"),
    "udp_rr_64": ("rr", "trans/s", "UDP_RR, 64-byte request and response"),
    "tcp_crr": ("rr", "trans/s", "TCP_CRR, 1-byte request and response"),
    "udp_stream_64": ("udp", "Mdgram/s", "UDP stream, 64-byte datagrams received per second"),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu(pid):
    """User and system seconds of a process and its reaped children."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ut, st, cut, cst = (int(x) for x in fields[11:15])
        return (ut + cut) / TICK, (st + cst) / TICK
    except OSError:
        return 0.0, 0.0


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def threads_cpu(pid):
    """CPU of a multi-threaded process: /proc/PID/stat covers all threads."""
    return proc_cpu(pid)


class Tool:
    name = "?"

    def start_server(self):
        pass

    def stop_server(self):
        if getattr(self, "server", None):
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                self.server.kill()
        for pid in getattr(self, "extra_pids", []):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def server_pid(self):
        return self.server.pid

    def supports(self, workload):
        return self.command(workload, 1) is not None

    def run(self, workload, seconds):
        cmd = self.command(workload, seconds)
        su0, ss0 = proc_cpu(self.server_pid())
        start = time.monotonic()
        # Output goes to files: a pipe could fill and stall the client while we wait4().
        with tempfile.TemporaryFile("w+") as fo, tempfile.TemporaryFile("w+") as fe:
            p = subprocess.Popen(cmd, stdout=fo, stderr=fe, text=True)
            # Peak RSS from VmHWM of the exec'd image, polled: wait4's
            # ru_maxrss would include the forked Python before exec.
            hwm = 0
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                if pid == p.pid:
                    break
                hwm = max(hwm, vm_hwm_kib(p.pid))
                time.sleep(0.05)
            p.returncode = os.waitstatus_to_exitcode(status)
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        wall = time.monotonic() - start
        su1, ss1 = proc_cpu(self.server_pid())
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{self.name} failed: {' '.join(cmd)}\n{out}\n{err}")
        value, work = self.parse(workload, out)
        return {
            "tool": self.name,
            "workload": workload,
            "value": value,
            "work": work,  # bytes moved or transactions done
            "wall_s": wall,
            "client_user_s": ru.ru_utime,
            "client_sys_s": ru.ru_stime,
            "server_user_s": su1 - su0,
            "server_sys_s": ss1 - ss0,
            "client_max_rss_kib": hwm,
            "command": " ".join(cmd),
        }


class Flowperf(Tool):
    name = "flowperf"

    def __init__(self, binary):
        self.bin = binary

    def start_server(self):
        self.port = free_port()
        self.server = subprocess.Popen(
            [self.bin, "server", "-q", "-p", str(self.port), "-B", "127.0.0.1"],
            stdout=subprocess.DEVNULL,
        )
        time.sleep(0.3)

    def command(self, w, seconds):
        base = [self.bin, "-H", "127.0.0.1", "-p", str(self.port), "-l", str(seconds), "--json"]
        return base + {
            "tcp_stream_16k": ["-t", "TCP_STREAM", "-m", "16K"],
            "tcp_stream_128k": ["-t", "TCP_STREAM", "-m", "128K"],
            "tcp_rr_1": ["-t", "TCP_RR", "-r", "1,1"],
            "tcp_rr_64": ["-t", "TCP_RR", "-r", "64,64"],
            "udp_rr_1": ["-t", "UDP_RR", "-r", "1,1"],
            "udp_rr_64": ["-t", "UDP_RR", "-r", "64,64"],
            "tcp_crr": ["-t", "TCP_CRR"],
            "udp_stream_64": ["-t", "UDP_STREAM", "-m", "64"],
        }[w]

    def parse(self, w, out):
        t = json.loads(out)["total"]
        kind = WORKLOADS[w][0]
        if kind == "stream":
            return t["bits_per_second"] / 1e9, t["bytes_received"]
        if kind == "udp":
            return t["datagrams_received"] / t["elapsed_s"] / 1e6, t["bytes_received"]
        return t["transactions_per_second"], t["transactions"]


class Netperf(Tool):
    name = "netperf"

    def __init__(self, directory):
        self.dir = directory

    def start_server(self):
        self.port = free_port()
        self.server = subprocess.Popen(
            [os.path.join(self.dir, "netserver"), "-D", "-p", str(self.port), "-L", "127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.3)

    def command(self, w, seconds):
        base = [os.path.join(self.dir, "netperf"), "-H", "127.0.0.1", "-p", str(self.port),
                "-l", str(seconds), "-P", "0"]
        sel = ["-k", "THROUGHPUT,ELAPSED_TIME,LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,"
                     "REMOTE_RECV_CALLS,TRANSACTION_RATE"]
        return base + {
            "tcp_stream_16k": ["-t", "TCP_STREAM", "--", "-m", "16K"],
            "tcp_stream_128k": ["-t", "TCP_STREAM", "--", "-m", "128K"],
            "tcp_rr_1": ["-t", "TCP_RR", "--", "-r", "1,1"],
            "tcp_rr_64": ["-t", "TCP_RR", "--", "-r", "64,64"],
            "udp_rr_1": ["-t", "UDP_RR", "--", "-r", "1,1"],
            "udp_rr_64": ["-t", "UDP_RR", "--", "-r", "64,64"],
            "tcp_crr": ["-t", "TCP_CRR", "--", "-r", "1,1"],
            "udp_stream_64": ["-t", "UDP_STREAM", "--", "-m", "64"],
        }[w] + sel

    def parse(self, w, out):
        kv = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        kind = WORKLOADS[w][0]
        elapsed = float(kv["ELAPSED_TIME"])
        if kind == "stream":
            return float(kv["THROUGHPUT"]) / 1e3, int(float(kv["REMOTE_BYTES_RECVD"]))
        if kind == "udp":
            calls = int(float(kv["REMOTE_RECV_CALLS"]))
            return calls / elapsed / 1e6, calls * 64
        rate = float(kv["THROUGHPUT"])
        return rate, int(rate * elapsed)

    def server_pid(self):
        return self.server.pid


class Iperf3(Tool):
    name = "iperf3"

    def start_server(self):
        self.port = free_port()
        self.server = subprocess.Popen(
            ["iperf3", "-s", "-B", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    def command(self, w, seconds):
        base = ["iperf3", "-c", "127.0.0.1", "-p", str(self.port), "-t", str(seconds), "-J"]
        return {
            "tcp_stream_16k": base + ["-l", "16K"],
            "tcp_stream_128k": base + ["-l", "128K"],
            "udp_stream_64": base + ["-u", "-b", "0", "-l", "64"],
        }.get(w)

    def parse(self, w, out):
        end = json.loads(out)["end"]
        if WORKLOADS[w][0] == "stream":
            r = end["sum_received"]
            return r["bits_per_second"] / 1e9, r["bytes"]
        s = end["sum"]
        got = s["packets"] - s["lost_packets"]
        return got / s["seconds"] / 1e6, got * 64


class Qperf(Tool):
    name = "qperf"

    def start_server(self):
        self.port = free_port()
        self.server = subprocess.Popen(["qperf", "-lp", str(self.port)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    def command(self, w, seconds):
        base = ["qperf", "127.0.0.1", "-lp", str(self.port), "-t", str(seconds), "-vu"]
        return {
            "tcp_stream_16k": base + ["-m", "16K", "tcp_bw"],
            "tcp_stream_128k": base + ["-m", "128K", "tcp_bw"],
            "tcp_rr_1": base + ["-m", "1", "tcp_lat"],
            "tcp_rr_64": base + ["-m", "64", "tcp_lat"],
            "udp_rr_1": base + ["-m", "1", "udp_lat"],
            "udp_rr_64": base + ["-m", "64", "udp_lat"],
        }.get(w)

    UNITS = {"bytes/sec": 1, "KB/sec": 1e3, "MB/sec": 1e6, "GB/sec": 1e9, "TB/sec": 1e12,
             "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1}

    def parse(self, w, out):
        m = re.search(r"(bw|latency)\s*=\s*([\d.]+)\s*(\S+)", out)
        value = float(m.group(2)) * self.UNITS[m.group(3)]
        seconds = float(re.search(r"time\s*=\s*([\d.]+)", out).group(1)) if "time" in out else 1
        if m.group(1) == "bw":
            return value * 8 / 1e9, int(value * seconds)
        rate = 1 / (2 * value)  # qperf's latency is half the round trip
        return rate, int(rate * seconds)


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def per_unit_cpu(runs, which, kind):
    """Median CPU seconds per GB moved (stream) or per million transactions."""
    vals = []
    for r in runs:
        cpu = r[f"{which}_user_s"]
        if r["work"] <= 0:
            continue
        scale = 1e9 if kind in ("stream", "udp") else 1e6
        vals.append(cpu / r["work"] * scale)
    return median(vals)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowperf", default=os.path.join(HERE, "..", "build", "flowperf"))
    ap.add_argument("--netperf-dir", default=None, help="directory with netperf and netserver")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--json", default=None, help="write all runs here")
    args = ap.parse_args()

    tools = [Flowperf(os.path.abspath(args.flowperf))]
    npdir = args.netperf_dir or (os.path.dirname(shutil.which("netperf")) if shutil.which("netperf") else None)
    if npdir and os.path.exists(os.path.join(npdir, "netserver")):
        tools.append(Netperf(npdir))
    if shutil.which("iperf3"):
        tools.append(Iperf3())
    if shutil.which("qperf"):
        tools.append(Qperf())

    for t in tools:
        t.start_server()
    runs = []
    try:
        for w in args.workloads.split(","):
            active = [t for t in tools if t.supports(w)]
            for i in range(args.pairs):
                for t in active:
                    r = t.run(w, args.seconds)
                    r["round"] = i
                    runs.append(r)
                    print(f"{w:16} {t.name:9} round {i}: {r['value']:.3f}", file=sys.stderr)
    finally:
        for t in tools:
            t.stop_server()

    lines = ["| workload | tool | median | unit | flowperf/tool | client user CPU | "
             "server user CPU | client peak RSS |",
             "|---|---|---|---|---|---|---|---|"]
    for w in args.workloads.split(","):
        kind, unit, _ = WORKLOADS[w]
        per = "s/GB" if kind in ("stream", "udp") else "s/Mtrans"
        fp = [r for r in runs if r["workload"] == w and r["tool"] == "flowperf"]
        for t in tools:
            mine = [r for r in runs if r["workload"] == w and r["tool"] == t.name]
            if not mine:
                continue
            # Ratio of medians, from the same interleaved rounds.
            ratio = median([r["value"] for r in fp]) / median([r["value"] for r in mine])
            lines.append(
                f"| {w} | {t.name} | {median([r['value'] for r in mine]):.3f} | {unit} | "
                f"{ratio:.2f}x | {per_unit_cpu(mine, 'client', kind):.3f} {per} | "
                f"{per_unit_cpu(mine, 'server', kind):.3f} {per} | "
                f"{median([r['client_max_rss_kib'] for r in mine]) / 1024:.1f} MiB |")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": args.pairs, "seconds": args.seconds, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
