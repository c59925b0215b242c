#!/usr/bin/env python3
"""Side-by-side comparison of flowperf with its peers on loopback.

For each workload the tools run interleaved (A B C A B C ...) for --pairs
rounds, so slow drifts of a shared machine hit every tool alike. Each run's
client CPU time comes from the kernel (wait4), the long-running server's
from /proc/PID/stat (children included), and peak RSS from the client's
VmHWM. flowperf runs in its default mode and, where they apply, in the
modes that trade realism for speed (--busy-poll for RR tests; --batch 1,
--gso and --gso --gro beside the default batch of 32 for UDP_STREAM;
--rst-close for TCP_CRR, the close neper's tcp_crr makes; --sendfile for
TCP streams, beside iperf3 -Z), each its own row.

The report is markdown: medians per tool with user-space CPU seconds per
GB or per million transactions, the flowperf/peer ratios (rate, and user
CPU per unit of work), the scale check (-P 10000 against -P 2) with the
profile of where the time goes as flows are added (bench/scale.py, at
--scale-flows), the start-up times, and the memory check: peak RSS of client and server at
--memory-flows (default 1, 100, 1,000, 10,000 flows) and the growth per
extra flow; and, when valgrind is installed, the user-space instructions
per transaction or per MB that callgrind counts (bench/instructions.py),
exact where the kernel's tick-sampled user time is not. It is printed, and written into docs/benchmarks.md between
<!-- bench:begin --> and <!-- bench:end --> (--no-readme to skip).

Peers: netperf/netserver (--netperf-dir, default: on PATH), neper
(--neper-dir, default: where tcp_rr is on PATH), iperf3,
qperf, sockperf (ping-pong, 64-byte rows: its messages are at least 14
bytes) and iperf (2.x, TCP streams), each when installed. Only 127.0.0.1
is ever used.

    python3 bench/compare.py --flowperf build/flowperf --pairs 5 --seconds 3 \\
        --netperf-dir /opt/netperf/bin --json bench/results.json
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import instructions  # noqa: E402  (bench/instructions.py)
import scale  # noqa: E402  (bench/scale.py)
from common import (FLOWPERF_ARGS, NEPER_ARGS, NEPER_QUIET, NETPERF_ARGS,  # noqa: E402
                    add_tool_arguments, find_neper, free_port, raise_fd_limit,
                    wait_listening)
TICK = os.sysconf("SC_CLK_TCK")
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

# name: (kind, unit, description). kind: stream (Gbit/s, per GB), udp
# (million datagrams received per second, per GB), rr (transactions/s, per
# million transactions).
WORKLOADS = {
    "tcp_stream_16k": ("stream", "Gbit/s", "TCP stream, 16 KiB sends"),
    "tcp_stream_128k": ("stream", "Gbit/s", "TCP stream, 128 KiB sends"),
    "tcp_stream_128k_p4": ("stream", "Gbit/s", "TCP stream, 128 KiB sends, 4 streams (iperf3 -P 4)"),
    "tcp_rr_1": ("rr", "trans/s", "TCP_RR, 1-byte request and response"),
    "tcp_rr_64": ("rr", "trans/s", "TCP_RR, 64-byte request and response"),
    "udp_rr_1": ("rr", "trans/s", "UDP_RR, 1-byte request and response"),
    "udp_rr_64": ("rr", "trans/s", "UDP_RR, 64-byte request and response"),
    "tcp_crr": ("rr", "trans/s", "TCP_CRR, 1-byte request and response"),
    "udp_stream_64": ("udp", "Mdgram/s", "UDP stream, 64-byte datagrams received per second"),
    "tcp_rr_p2": ("rr", "trans/s", "TCP_RR 1 byte, 2 flows on 2 threads per side"),
    "tcp_rr_p10000": ("rr", "trans/s", "TCP_RR 1 byte, 10,000 flows on 2 threads per side"),
}
DEFAULT_WORKLOADS = list(WORKLOADS)


def proc_times(pid):
    """(user, system, reaped children's user, reaped children's system) seconds, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return tuple(int(x) / TICK for x in fields[11:15])
    except OSError:
        return None


def children(pid):
    out = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.update(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def terminate(proc, grace=5):
    """Stops a server: SIGTERM, then SIGKILL after `grace` seconds."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class ServerMeter:
    """CPU a server spends on one run, its per-test children included.

    netserver forks a child per test and ignores SIGCHLD, so the child's
    time never reaches the parent's reaped-children counters: the children
    are sampled while they live (every poll of the run loop, and once after
    the client exits). A child reaped by a parent that does wait() shows up
    in the parent's counters instead, and is then not added twice."""

    def __init__(self, pid):
        self.pid = pid
        self.start = proc_times(pid) or (0.0, 0.0, 0.0, 0.0)
        self.base = {c: proc_times(c) for c in children(pid)}  # children from before
        self.last = {}

    def sample(self):
        for c in children(self.pid):
            t = proc_times(c)
            if t:
                self.last[c] = t

    def finish(self):
        self.sample()
        end = proc_times(self.pid) or self.start
        user = end[0] - self.start[0] + end[2] - self.start[2]
        sys_ = end[1] - self.start[1] + end[3] - self.start[3]
        reaped_into_parent = end[2] + end[3] > self.start[2] + self.start[3]
        alive = children(self.pid)
        for c, t in self.last.items():
            if c not in alive and reaped_into_parent:
                continue
            b = self.base.get(c) or (0.0, 0.0, 0.0, 0.0)
            user += t[0] - b[0]
            sys_ += t[1] - b[1]
        return user, sys_


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def spawn_server(argv):
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Tool:
    name = "?"
    peer = True  # False: a flowperf mode, compared against the peers
    stderr_too = False  # the results are (also) on standard error
    # Ratios pair tools of the same kind only: "zerocopy" rows (flowperf
    # --sendfile, iperf3 -Z) with each other, the rest with the rest.
    kind = ""

    def __init__(self):
        self.servers = {}  # key -> Popen

    def start_server(self):
        pass

    def stop_server(self):
        for p in self.servers.values():
            terminate(p)
        self.servers = {}

    def server_for(self, workload):
        return next(iter(self.servers.values()), None)

    def supports(self, workload):
        return self.command(workload, 1) is not None

    def run(self, workload, seconds):
        cmd = self.command(workload, seconds)
        server = self.server_for(workload)
        meter = ServerMeter(server.pid) if server else None
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
                if meter:
                    meter.sample()
                time.sleep(0.02)
            code = os.waitstatus_to_exitcode(status)
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        wall = time.monotonic() - start
        su, ss = meter.finish() if meter else (0.0, 0.0)
        if code != 0:
            raise RuntimeError(f"{self.name} exited {code}: {' '.join(cmd)}\n{out[-2000:]}\n{err[-2000:]}")
        value, work = self.parse(workload, out + err if self.stderr_too else out)
        return {
            "tool": self.name,
            "workload": workload,
            "value": value,
            "work": work,  # bytes moved or transactions done
            "wall_s": wall,
            "client_user_s": ru.ru_utime,
            "client_sys_s": ru.ru_stime,
            "server_user_s": su,
            "server_sys_s": ss,
            "client_max_rss_kib": hwm,
            "command": " ".join(cmd),
        }


class Flowperf(Tool):
    """flowperf against its own server process, in one mode."""

    peer = False
    RR = ("tcp_rr_1", "tcp_rr_64", "udp_rr_1", "udp_rr_64", "tcp_crr", "tcp_rr_p2", "tcp_rr_p10000")

    def __init__(self, binary, mode=()):
        super().__init__()
        self.bin = binary
        self.mode = list(mode)
        self.name = "flowperf" + ("".join(" " + m for m in self.mode))
        self.kind = "zerocopy" if "--sendfile" in self.mode else ""

    def start_server(self):
        self.port = free_port()
        self.servers["tcp"] = spawn_server(
            [self.bin, "server", "-q", "-p", str(self.port), "-B", "127.0.0.1"])
        wait_listening(self.port)

    def command(self, w, seconds):
        if "--busy-poll" in self.mode and w not in self.RR[:5]:
            return None
        if ({"--gso", "--gro", "--batch"} & set(self.mode)) and w != "udp_stream_64":
            return None
        if "--rst-close" in self.mode and w != "tcp_crr":
            return None
        if "--sendfile" in self.mode and w not in ("tcp_stream_16k", "tcp_stream_128k"):
            return None
        if self.mode and w in ("tcp_rr_p2", "tcp_rr_p10000"):
            return None
        args = FLOWPERF_ARGS[w]
        return [self.bin, "-H", "127.0.0.1", "-p", str(self.port), "-l", str(seconds),
                "--json"] + args + self.mode

    def parse(self, w, out):
        t = json.loads(out[:out.rindex("}") + 1])["total"]
        kind = WORKLOADS[w][0]
        if kind == "stream":
            return t["bits_per_second"] / 1e9, t["bytes_received"]
        if kind == "udp":
            return t["datagrams_received"] / t["elapsed_s"] / 1e6, t["bytes_received"]
        return t["transactions_per_second"], t["transactions"]


class Netperf(Tool):
    name = "netperf"

    def __init__(self, directory):
        super().__init__()
        self.dir = directory

    def start_server(self):
        self.port = free_port()
        self.servers["tcp"] = spawn_server(
            [os.path.join(self.dir, "netserver"), "-D", "-p", str(self.port), "-L", "127.0.0.1"])
        wait_listening(self.port)

    def command(self, w, seconds):
        base = [os.path.join(self.dir, "netperf"), "-H", "127.0.0.1", "-p", str(self.port),
                "-l", str(seconds), "-P", "0"]
        sel = ["-k", "THROUGHPUT,ELAPSED_TIME,LOCAL_BYTES_SENT,REMOTE_BYTES_RECVD,"
                     "REMOTE_RECV_CALLS,TRANSACTION_RATE"]
        args = NETPERF_ARGS.get(w)
        return base + args + sel if args else None

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


class Iperf3(Tool):
    """iperf3; with zerocopy, its -Z (sendfile), beside flowperf --sendfile.
    With a binary, flowperf's iperf3 personality (client and server), the
    same commands: its rows are flowperf's, compared with the real one."""

    def __init__(self, zerocopy=False, binary=None):
        super().__init__()
        self.zerocopy = zerocopy
        self.bin = binary or "iperf3"
        self.peer = binary is None
        self.name = ("flowperf iperf3" if binary else "iperf3") + (" -Z" if zerocopy else "")
        self.kind = "zerocopy" if zerocopy else ""

    def start_server(self):
        self.port = free_port()
        self.servers["tcp"] = spawn_server([self.bin, "-s", "-B", "127.0.0.1", "-p", str(self.port)])
        wait_listening(self.port)

    def command(self, w, seconds):
        base = [self.bin, "-c", "127.0.0.1", "-p", str(self.port), "-t", str(seconds), "-J"]
        if self.zerocopy:
            base.append("-Z")
            if w == "udp_stream_64":
                return None
        return {
            "tcp_stream_16k": base + ["-l", "16K"],
            "tcp_stream_128k": base + ["-l", "128K"],
            "tcp_stream_128k_p4": base + ["-l", "128K", "-P", "4"],
            "udp_stream_64": base + ["-u", "-b", "0", "-l", "64"],
        }.get(w)

    def parse(self, w, out):
        end = json.loads(out[:out.rindex("}") + 1])["end"]
        if WORKLOADS[w][0] == "stream":
            r = end["sum_received"]
            return r["bits_per_second"] / 1e9, r["bytes"]
        s = end["sum"]
        got = s["packets"] - s["lost_packets"]
        return got / s["seconds"] / 1e6, got * 64


class Iperf2(Tool):
    name = "iperf2"

    def start_server(self):
        self.port = free_port()
        self.servers["tcp"] = spawn_server(["iperf", "-s", "-B", "127.0.0.1", "-p", str(self.port)])
        wait_listening(self.port)

    def command(self, w, seconds):
        base = ["iperf", "-c", "127.0.0.1", "-p", str(self.port), "-t", str(seconds), "-y", "C"]
        return {
            "tcp_stream_16k": base + ["-l", "16K"],
            "tcp_stream_128k": base + ["-l", "128K"],
        }.get(w)

    def parse(self, w, out):
        # timestamp,src,sport,dst,dport,id,interval,bytes,bits_per_second (the sender's count)
        last = [line for line in out.splitlines() if line.count(",") >= 8][-1].split(",")
        return float(last[8]) / 1e9, int(last[7])


class Qperf(Tool):
    name = "qperf"

    def start_server(self):
        self.port = free_port()
        self.servers["tcp"] = spawn_server(["qperf", "-lp", str(self.port)])
        wait_listening(self.port)

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
        t = re.search(r"time\s*=\s*([\d.]+)", out)
        seconds = float(t.group(1)) if t else 1
        if m.group(1) == "bw":
            return value * 8 / 1e9, int(value * seconds)
        rate = 1 / (2 * value)  # qperf's latency is half the round trip
        return rate, int(rate * seconds)


class Neper(Tool):
    """neper's tcp_stream, tcp_rr, tcp_crr and udp_rr. Its server serves one
    test and exits, so each run starts its own, and the server's CPU comes
    from wait4 when it has exited."""

    name = "neper"

    def __init__(self, directory):
        super().__init__()
        self.dir = directory
        self.ports = (0, 0)  # control, data

    def command(self, w, seconds):
        if w not in NEPER_ARGS:
            return None
        prog, args = NEPER_ARGS[w]
        return [os.path.join(self.dir, prog), "-c", "-H", "127.0.0.1", "-C", str(self.ports[0]),
                "-P", str(self.ports[1]), "-l", str(max(1, round(seconds)))] + args + NEPER_QUIET

    def run(self, w, seconds):
        prog, args = NEPER_ARGS[w]
        self.ports = (free_port(), free_port())
        server = subprocess.Popen(
            [os.path.join(self.dir, prog), "-C", str(self.ports[0]), "-P", str(self.ports[1]),
             "-l", str(max(1, round(seconds)))] + args + NEPER_QUIET,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ru = None
        try:
            if not wait_listening(self.ports[0]):
                raise RuntimeError(f"neper {prog}: its server did not listen")
            self.servers = {"tcp": server}
            r = super().run(w, seconds)
            end = time.monotonic() + 10
            while ru is None and time.monotonic() < end:
                pid, _, usage = os.wait4(server.pid, os.WNOHANG)
                if pid == server.pid:
                    ru = usage
                    server.returncode = 0  # reaped here
                else:
                    time.sleep(0.02)
        finally:
            self.servers = {}
            if ru is None:
                terminate(server)
        if ru is None:
            raise RuntimeError(f"neper {prog}: its server did not exit after its test")
        r["server_user_s"], r["server_sys_s"] = ru.ru_utime, ru.ru_stime
        return r

    def parse(self, w, out):
        kv = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        if WORKLOADS[w][0] == "stream":
            # The client's remote_throughput: what the server read, bits/s.
            bps = float(kv["remote_throughput"])
            return bps / 1e9, int(bps * float(kv.get("test_length", 1)) / 8)
        return float(kv["throughput"]), int(kv["num_transactions"])


class Sockperf(Tool):
    """sockperf ping-pong: one message in flight, as in TCP_RR/UDP_RR."""

    name = "sockperf"
    stderr_too = True

    def start_server(self):
        self.ports = {"udp": free_port(), "tcp": free_port()}
        self.servers["udp"] = spawn_server(
            ["sockperf", "sr", "-i", "127.0.0.1", "-p", str(self.ports["udp"])])
        self.servers["tcp"] = spawn_server(
            ["sockperf", "sr", "--tcp", "-i", "127.0.0.1", "-p", str(self.ports["tcp"])])
        wait_listening(self.ports["tcp"])

    def server_for(self, w):
        return self.servers["tcp" if w.startswith("tcp") else "udp"]

    def command(self, w, seconds):
        if w not in ("tcp_rr_64", "udp_rr_64"):
            return None
        proto = "tcp" if w.startswith("tcp") else "udp"
        return (["sockperf", "pp", "-i", "127.0.0.1", "-p", str(self.ports[proto]), "-m", "64",
                 "-t", str(max(1, round(seconds)))] + (["--tcp"] if proto == "tcp" else []))

    def parse(self, w, out):
        m = re.search(r"\[Valid Duration\] RunTime=([\d.]+) sec; SentMessages=\d+; "
                      r"ReceivedMessages=(\d+)", out)
        seconds, got = float(m.group(1)), int(m.group(2))
        return got / seconds, got


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def pooled_user_per_unit(runs, kind, sides=("client", "server")):
    """User CPU seconds per GB moved (stream, udp) or per million transactions,
    pooled over the runs: all their user time over all their work. The kernel
    charges user time in whole ticks (4 ms at HZ=250) that a run earns only a
    few of when its user-space work is small, so a per-run ratio is mostly
    rounding; pooling the rounds counts every tick they earned."""
    runs = [r for r in runs if r["work"] > 0]
    work = sum(r["work"] for r in runs)
    if not work:
        return float("nan")
    scale = 1e9 if kind in ("stream", "udp") else 1e6
    return sum(r[f"{side}_user_s"] for r in runs for side in sides) / work * scale


def fmt_value(v, unit):
    if v != v:
        return "-"
    if unit == "trans/s":
        return f"{v:,.0f}"
    return f"{v:.3f}"


def startup_times(flowperf, netperf_dir, runs):
    """Median wall time of short commands, interleaved."""
    fp_port = free_port()
    servers = [spawn_server([flowperf, "server", "-q", "-p", str(fp_port), "-B", "127.0.0.1"])]
    wait_listening(fp_port)
    cmds = [
        ("/bin/true", ["/bin/true"]),
        ("flowperf --version", [flowperf, "--version"]),
        ("flowperf -t TCP_RR -n 1 (embedded server, end to end)", [flowperf, "-t", "TCP_RR", "-n", "1"]),
        ("flowperf -H 127.0.0.1 -t TCP_RR -n 1 (running server)",
         [flowperf, "-H", "127.0.0.1", "-p", str(fp_port), "-t", "TCP_RR", "-n", "1"]),
        ("flowperf -t UDP_RR -n 1 (embedded server, end to end)", [flowperf, "-t", "UDP_RR", "-n", "1"]),
    ]
    if netperf_dir:
        np_port = free_port()
        servers.append(spawn_server([os.path.join(netperf_dir, "netserver"), "-D", "-p", str(np_port),
                                     "-L", "127.0.0.1"]))
        wait_listening(np_port)
        cmds.append(("netperf -t TCP_RR -l -1 (running netserver, 1 transaction)",
                     [os.path.join(netperf_dir, "netperf"), "-H", "127.0.0.1", "-p", str(np_port),
                      "-t", "TCP_RR", "-l", "-1", "-P", "0"]))
    if shutil.which("iperf3"):
        cmds.append(("iperf3 --version", ["iperf3", "--version"]))
    times = {label: [] for label, _ in cmds}
    try:
        for _ in range(runs):
            for label, cmd in cmds:
                t = time.perf_counter()
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[label].append((time.perf_counter() - t) * 1e3)
    finally:
        for s in servers:
            terminate(s)
    return [(label, median(v), min(v)) for label, v in times.items()]


def peak_rss_scale(flowperf, counts, runs, seconds):
    """Peak RSS of a TCP_RR client and of its own (fresh) server at each flow
    count, interleaved over the runs. The client's comes from GNU time's %M
    (the exec'd image only; polling VmHWM would miss the peak, which comes at
    the very end with the results), the server's from its VmHWM after the
    client is done. Returns {n: {"client": [KiB...], "server": [KiB...]}}."""
    raise_fd_limit()
    gnu_time = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
    out = {n: {"client": [], "server": []} for n in counts}
    for _ in range(runs):
        for n in counts:
            port = free_port()
            server = spawn_server([flowperf, "server", "-q", "-p", str(port), "-B", "127.0.0.1"])
            try:
                wait_listening(port)
                with tempfile.NamedTemporaryFile("r") as tf:
                    cmd = [flowperf, "-H", "127.0.0.1", "-p", str(port), "-t", "TCP_RR",
                           "-P", str(n), "-l", f"{seconds:g}"]
                    if gnu_time:
                        cmd = [gnu_time, "-f", "%M", "-o", tf.name] + cmd
                    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
                    _, status, ru = os.wait4(p.pid, 0)
                    if os.waitstatus_to_exitcode(status) != 0:
                        print(f"memory -P {n}: the client failed", file=sys.stderr)
                        continue
                    lines = tf.read().split()
                    client = int(lines[-1]) if gnu_time and lines else ru.ru_maxrss
                out[n]["client"].append(client)
                out[n]["server"].append(vm_hwm_kib(server.pid))
                print(f"memory -P {n}: client {client} KiB, server {out[n]['server'][-1]} KiB",
                      file=sys.stderr)
            finally:
                terminate(server, grace=10)
    return out


def memory_report(mem, runs, seconds):
    counts = sorted(n for n in mem if mem[n]["client"] and mem[n]["server"])
    if not counts:
        return []
    lines = [f"Memory: peak RSS of a TCP_RR client (`-P N -l {seconds:g}`) and of its own "
             f"server, median of {runs} interleaved runs; per flow: the growth over the "
             f"smallest count, divided by the extra flows (kernel socket memory is not in "
             f"RSS).", "",
             "| flows | client peak RSS | server peak RSS | client per extra flow | "
             "server per extra flow |", "|---|---|---|---|---|"]
    base = counts[0]
    c0, s0 = median(mem[base]["client"]), median(mem[base]["server"])
    for n in counts:
        c, sv = median(mem[n]["client"]), median(mem[n]["server"])
        if n == base:
            per_c = per_s = "-"
        else:
            per_c = f"{(c - c0) / (n - base):.2f} KiB"
            per_s = f"{(sv - s0) / (n - base):.2f} KiB"
        lines.append(f"| {n:,} | {c / 1024:.1f} MiB | {sv / 1024:.1f} MiB | {per_c} | {per_s} |")
    return lines


def machine_line():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({cpu}), Linux {platform.release()}"


def report(args, tools, runs, failures, startup, load0, load1, mem=None, instr=None,
           sweep=None):
    out = []
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    out.append(f"Measured {date} on {machine_line()}; loopback (127.0.0.1), {args.pairs} "
               f"interleaved rounds of {args.seconds:g} s per tool and workload; medians. "
               f"Load average (1/5/15 min) {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f} at the "
               f"start, {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f} at the end: compare rows "
               f"within a workload (they ran interleaved), not across runs or machines. CPU columns are user-space seconds (`ru_utime` of the client, "
               f"`/proc/PID/stat` utime of the server) per GB moved or per million "
               f"transactions, all rounds pooled; the kernel's share, usually the larger, "
               f"is not in them. The kernel splits a process's CPU time into user and system "
               f"by sampling at its scheduler tick (every 1-10 ms, by its HZ), and an RR run "
               f"earns only a few user-mode samples: the instruction counts further down are "
               f"the exact measure of the tools' own work.")
    out.append("")
    out.append("| workload | tool | median | range | unit | client user CPU | server user CPU | "
               "client peak RSS | runs |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    names = [t.name for t in tools]
    for w in args.workloads:
        kind, unit, _ = WORKLOADS[w]
        per = "s/GB" if kind in ("stream", "udp") else "s/Mtrans"
        for name in names:
            mine = [r for r in runs if r["workload"] == w and r["tool"] == name]
            if not mine:
                continue
            vals = [r["value"] for r in mine]
            out.append(
                f"| {w} | {name} | {fmt_value(median(vals), unit)} | "
                f"{fmt_value(min(vals), unit)}–{fmt_value(max(vals), unit)} | {unit} | "
                f"{pooled_user_per_unit(mine, kind, ('client',)):.3f} {per} | "
                f"{pooled_user_per_unit(mine, kind, ('server',)):.3f} {per} | "
                f"{median([r['client_max_rss_kib'] for r in mine]) / 1024:.1f} MiB | {len(mine)} |")
    out.append("")
    out.append("flowperf / peer: the ratio of the median rates and the median of the "
               "round-by-round ratios, with their range (above 1: flowperf is faster), and the "
               "ratio of user CPU per unit of work, client plus server (below 1: "
               "flowperf uses less).")
    out.append("")
    out.append("| workload | flowperf mode | peer | rate ratio | per round (range) | "
               "user CPU ratio |")
    out.append("|---|---|---|---|---|---|")
    for w in args.workloads:
        kind = WORKLOADS[w][0]
        for fp in [t for t in tools if not t.peer]:
            mine = [r for r in runs if r["workload"] == w and r["tool"] == fp.name]
            if not mine:
                continue
            for peer in [t for t in tools if t.peer and t.kind == fp.kind]:
                theirs = [r for r in runs if r["workload"] == w and r["tool"] == peer.name]
                if not theirs:
                    continue
                rate = median([r["value"] for r in mine]) / median([r["value"] for r in theirs])
                # Round by round: the two ran seconds apart, so a drift of the
                # machine's load between rounds cancels out of each ratio.
                by_round = {r["round"]: r["value"] for r in theirs if r["value"] > 0}
                paired = [r["value"] / by_round[r["round"]] for r in mine if r["round"] in by_round]
                peer_cpu = pooled_user_per_unit(theirs, kind)
                cpu = pooled_user_per_unit(mine, kind) / peer_cpu if peer_cpu else float("nan")
                out.append(f"| {w} | {fp.name} | {peer.name} | {rate:.2f}x | "
                           f"{median(paired):.2f}x ({min(paired):.2f}–{max(paired):.2f}) | "
                           + (f"{cpu:.2f}x |" if cpu == cpu else "- |"))
    p2 = [r["value"] for r in runs if r["workload"] == "tcp_rr_p2" and r["tool"] == "flowperf"]
    p10k = [r["value"] for r in runs if r["workload"] == "tcp_rr_p10000" and r["tool"] == "flowperf"]
    if p2 and p10k:
        def per_cpu(w):
            # Transactions per CPU-second of both processes, user and system.
            return median([r["work"] / (r["client_user_s"] + r["client_sys_s"] +
                                        r["server_user_s"] + r["server_sys_s"])
                           for r in runs if r["workload"] == w and r["tool"] == "flowperf"
                           and r["client_user_s"] + r["client_sys_s"] > 0])
        e2, e10k = per_cpu("tcp_rr_p2"), per_cpu("tcp_rr_p10000")
        out.append("")
        out.append(f"Scale: TCP_RR with 10,000 flows on 2 threads per side ran at "
                   f"{median(p10k):,.0f} transactions/s, {median(p10k) / median(p2):.2f}x the "
                   f"{median(p2):,.0f}/s of 2 flows on 2 threads (interleaved medians). Per "
                   f"CPU-second of both processes (user and system, connection set-up "
                   f"included): {e10k:,.0f} against {e2:,.0f} transactions, "
                   f"{e10k / e2:.2f}x.")
    if sweep:
        out.append("")
        out.extend(scale.report(sweep))
    if mem:
        out.append("")
        out.extend(memory_report(mem, args.memory_runs, args.seconds))
    if startup:
        out.append("")
        out.append(f"Start-up: wall time of whole commands, median (and minimum) of "
                   f"{args.startup_runs} interleaved runs.")
        out.append("")
        out.append("| command | median | min |")
        out.append("|---|---|---|")
        for label, med, mn in startup:
            out.append(f"| `{label}` | {med:.1f} ms | {mn:.1f} ms |")
    if instr:
        out.append("")
        out.extend(instructions.report(instr["results"], instr["tools"], instr["workloads"]))
    if failures:
        out.append("")
        out.append(f"Failed runs (left out of the medians): " +
                   "; ".join(f"{t} {w} round {i}" for t, w, i, _ in failures))
    out.append("")
    out.append(f"Regenerate: `{args.command_line}`")
    return "\n".join(out)


def write_readme(path, text):
    with open(path) as f:
        readme = f.read()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in readme and END in readme:
        head, rest = readme.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        readme = head + block + tail
    else:
        readme = readme.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(readme)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_tool_arguments(ap, HERE)
    ap.add_argument("--pairs", type=int, default=5, help="interleaved rounds per workload (>= 5)")
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS))
    ap.add_argument("--startup-runs", type=int, default=21)
    ap.add_argument("--memory-flows", default="1,100,1000,10000",
                    help="flow counts of the peak RSS scale check (empty: skip it)")
    ap.add_argument("--scale-flows", default="2,1000,3000,5000,10000",
                    help="flow counts of the where-the-time-goes profile, bench/scale.py "
                         "(empty: skip it)")
    ap.add_argument("--memory-runs", type=int, default=3,
                    help="runs per flow count in the peak RSS check")
    ap.add_argument("--instructions", choices=("auto", "yes", "no"), default="auto",
                    help="count user-space instructions per unit with callgrind "
                         "(bench/instructions.py); auto: when valgrind is installed")
    ap.add_argument("--tools", default="",
                    help="comma-separated tool names to run (as the table names them, e.g. "
                         "'flowperf,iperf3,flowperf iperf3'); empty: every tool found")
    ap.add_argument("--json", default=None, help="write all runs here")
    ap.add_argument("--readme", default=os.path.join(HERE, "..", "docs", "benchmarks.md"))
    ap.add_argument("--no-readme", action="store_true", help="print the table only")
    args = ap.parse_args()
    if args.seconds < 1:
        ap.error(f"--seconds {args.seconds:g}: at least 1 (netperf takes a shorter -l as "
                 f"'no time limit' and never ends)")
    if args.pairs < 1:
        ap.error(f"--pairs {args.pairs}: at least 1 (5 or more for the table in docs/benchmarks.md)")
    if args.instructions == "yes" and not shutil.which("valgrind"):
        ap.error("--instructions yes: valgrind is not installed (apt-get install valgrind)")
    args.workloads = [w for w in args.workloads.split(",") if w]
    for w in args.workloads:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w}; known: {', '.join(WORKLOADS)}")
    args.command_line = "python3 bench/compare.py " + " ".join(sys.argv[1:])

    fp = os.path.abspath(args.flowperf)
    tools = [Flowperf(fp), Flowperf(fp, ["--busy-poll"]), Flowperf(fp, ["--batch", "1"]),
             Flowperf(fp, ["--gso"]), Flowperf(fp, ["--gso", "--gro"]),
             Flowperf(fp, ["--rst-close"]), Flowperf(fp, ["--sendfile"])]
    npdir = args.netperf_dir or (os.path.dirname(shutil.which("netperf")) if shutil.which("netperf") else None)
    if npdir and os.path.exists(os.path.join(npdir, "netserver")):
        tools.append(Netperf(npdir))
    else:
        npdir = None
    neper_dir = find_neper(args.neper_dir)
    if args.neper_dir and not neper_dir:
        ap.error(f"--neper-dir {args.neper_dir}: no tcp_rr, tcp_stream, tcp_crr and udp_rr there")
    if neper_dir:
        tools.append(Neper(neper_dir))
    for binary, cls in (("iperf3", Iperf3), ("qperf", Qperf), ("sockperf", Sockperf), ("iperf", Iperf2)):
        if shutil.which(binary):
            tools.append(cls())
    if shutil.which("iperf3"):
        tools.append(Iperf3(zerocopy=True))
    personality = os.path.join(os.path.dirname(os.path.abspath(fp)), "iperf3")
    if os.path.exists(personality):
        tools += [Iperf3(binary=personality), Iperf3(zerocopy=True, binary=personality)]
    if args.tools:
        wanted = [t.strip() for t in args.tools.split(",") if t.strip()]
        known = [t.name for t in tools]
        for w in wanted:
            if w not in known:
                ap.error(f"--tools: no tool named '{w}' here; found: {', '.join(known)}")
        tools = [t for t in tools if t.name in wanted]

    raise_fd_limit()  # for the 10,000-flow runs, flowperf's and neper's
    load0 = os.getloadavg()
    for t in tools:
        t.start_server()
    runs, failures = [], []
    try:
        for w in args.workloads:
            active = [t for t in tools if t.supports(w)]
            for i in range(args.pairs):
                for t in active:
                    try:
                        r = t.run(w, args.seconds)
                    except Exception as e:  # one failed run must not lose the others
                        failures.append((t.name, w, i, str(e)))
                        print(f"{w:16} {t.name:22} round {i}: FAILED {e}", file=sys.stderr)
                        continue
                    r["round"] = i
                    runs.append(r)
                    print(f"{w:16} {t.name:22} round {i}: {r['value']:.3f}", file=sys.stderr)
    finally:
        for t in tools:
            t.stop_server()
    startup = startup_times(fp, npdir, args.startup_runs) if args.startup_runs > 0 else []
    counts = [int(n) for n in args.scale_flows.split(",") if n.strip()]
    sweep = scale.profile(fp, counts) if counts else []
    counts = [int(n) for n in args.memory_flows.split(",") if n.strip()]
    mem = peak_rss_scale(fp, counts, args.memory_runs, args.seconds) if counts else {}
    instr = None
    if args.instructions == "yes" or (args.instructions == "auto" and shutil.which("valgrind")):
        iw = [w for w in instructions.WORKLOADS if w in args.workloads]
        itools = instructions.tools_for(fp, npdir, neper_dir)
        instr = {"results": instructions.measure(itools, iw), "tools": itools, "workloads": iw}
    load1 = os.getloadavg()

    text = report(args, tools, runs, failures, startup, load0, load1, mem, instr, sweep)
    print(text)
    if not args.no_readme:
        write_readme(args.readme, text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": args.pairs, "seconds": args.seconds, "load": [load0, load1],
                       "runs": runs, "failures": failures, "startup": startup,
                       "memory": {str(n): v for n, v in mem.items()},
                       "scale": sweep,
                       "instructions": [{"tool": t, "workload": w, "side": side, "per_unit": v}
                                        for (t, w, side), v in
                                        (instr["results"].items() if instr else [])]},
                      f, indent=1)


if __name__ == "__main__":
    main()
