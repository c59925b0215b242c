"""What bench/compare.py and bench/instructions.py share: free ports, waiting
for a server to listen, and each tool's arguments per workload."""

import os
import resource
import shutil
import socket
import time

# flowperf's native test arguments per workload.
FLOWPERF_ARGS = {
    "tcp_stream_16k": ["-t", "TCP_STREAM", "-m", "16K"],
    "tcp_stream_128k": ["-t", "TCP_STREAM", "-m", "128K"],
    "tcp_stream_128k_p4": ["-t", "TCP_STREAM", "-m", "128K", "-P", "4"],
    "tcp_rr_1": ["-t", "TCP_RR", "-r", "1,1"],
    "tcp_rr_64": ["-t", "TCP_RR", "-r", "64,64"],
    "udp_rr_1": ["-t", "UDP_RR", "-r", "1,1"],
    "udp_rr_64": ["-t", "UDP_RR", "-r", "64,64"],
    "tcp_crr": ["-t", "TCP_CRR"],
    "udp_stream_64": ["-t", "UDP_STREAM", "-m", "64"],
    "tcp_rr_p2": ["-t", "TCP_RR", "-P", "2", "--threads", "2"],
    "tcp_rr_p10000": ["-t", "TCP_RR", "-P", "10000", "--threads", "2"],
}

# netperf's test and test-specific arguments per workload (after -H, -p, -l).
NETPERF_ARGS = {
    "tcp_stream_16k": ["-t", "TCP_STREAM", "--", "-m", "16K"],
    "tcp_stream_128k": ["-t", "TCP_STREAM", "--", "-m", "128K"],
    "tcp_rr_1": ["-t", "TCP_RR", "--", "-r", "1,1"],
    "tcp_rr_64": ["-t", "TCP_RR", "--", "-r", "64,64"],
    "udp_rr_1": ["-t", "UDP_RR", "--", "-r", "1,1"],
    "udp_rr_64": ["-t", "UDP_RR", "--", "-r", "64,64"],
    "tcp_crr": ["-t", "TCP_CRR", "--", "-r", "1,1"],
    "udp_stream_64": ["-t", "UDP_STREAM", "--", "-m", "64"],
}


# neper (github.com/google/neper): its program and arguments per workload.
# Every neper command also takes NEPER_QUIET: by default each process writes
# a log file into its working directory.
NEPER_QUIET = ["--nolog"]
NEPER_ARGS = {
    "tcp_stream_16k": ("tcp_stream", ["-B", "16384"]),
    "tcp_stream_128k": ("tcp_stream", ["-B", "131072"]),
    "tcp_rr_1": ("tcp_rr", ["-Q", "1", "-R", "1"]),
    "tcp_rr_64": ("tcp_rr", ["-Q", "64", "-R", "64"]),
    "udp_rr_1": ("udp_rr", ["-Q", "1", "-R", "1"]),
    "udp_rr_64": ("udp_rr", ["-Q", "64", "-R", "64"]),
    "tcp_crr": ("tcp_crr", ["-Q", "1", "-R", "1"]),
    # Many flows: -F flows over -T threads, the same on its server.
    "tcp_rr_p2": ("tcp_rr", ["-Q", "1", "-R", "1", "-F", "2", "-T", "2"]),
    "tcp_rr_p10000": ("tcp_rr", ["-Q", "1", "-R", "1", "-F", "10000", "-T", "2"]),
}


def find_neper(directory=None):
    """The directory holding neper's tcp_rr, tcp_stream, tcp_crr and udp_rr
    (`directory`, else where tcp_rr is on PATH), or None."""
    if directory is None:
        found = shutil.which("tcp_rr")
        directory = os.path.dirname(found) if found else None
    if directory and all(os.access(os.path.join(directory, b), os.X_OK)
                         for b in ("tcp_rr", "tcp_stream", "tcp_crr", "udp_rr")):
        return directory
    return None


def add_tool_arguments(ap, bench_dir):
    """The options both scripts take: where flowperf, netperf and neper are."""
    ap.add_argument("--flowperf", default=os.path.join(bench_dir, "..", "build", "flowperf"))
    ap.add_argument("--netperf-dir", default=None, help="directory with netperf and netserver")
    ap.add_argument("--neper-dir", default=None,
                    help="directory with neper's tcp_rr, tcp_stream, tcp_crr, udp_rr "
                         "(default: where tcp_rr is on PATH)")


def raise_fd_limit():
    """Raises the open-file limit to the hard limit: -P 10000 needs about
    10,000 descriptors on each side."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether a TCP socket listens on `port`, from /proc/net/tcp: probing with
    a connection would be a client to the server (iperf3 takes a probe's
    close as a failed test, and under valgrind then drops the next client)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def wait_listening(port, limit=5.0):
    """Waits until something listens on TCP port `port`, at most `limit`
    seconds; whether it does."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if listening(port):
            return True
        time.sleep(0.05)
    return False
