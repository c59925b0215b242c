// The netperf personality's help screens (netperf -h, netperf -- -h), laid
// out as netperf 2.7 lays out its own, with what flowperf applies.
#include <string>

#include "cli/netperf_args.h"

namespace flowperf::cli {

std::string netperf_global_help() {
  return R"(
Usage: netperf [global options] -- [test options]

Global options:
    -a send,recv      Local buffer alignment: a power of two up to 4096 (our
                      buffers start on a page boundary); larger is refused
    -A send,recv      The same for the server's buffers (sent in the request)
    -B brandstr       A tag printed after the result when headers are off (-P 0)
    -c [cpu_rate]     Local CPU utilisation and service demand (from
                      /proc/stat, which needs no rate: a rate is refused)
    -C [cpu_rate]     The same for the netserver
    -d                netperf's debugging output (refused)
    -D time,[units] * Print an interim result every time seconds; a negative
                      time reads the clock on every unit of work
    -f G|M|K|g|m|k    Units: G/M/K bytes (2^30, 2^20, 2^10) or g/m/k bits
                      (10^9, 10^6, 10^3) per second; B bytes, b bits,
                      x transactions
    -F lfill[,rfill]* Fill our send buffers with lfill's bytes (rfill, a file
                      for the server to read, is refused)
    -h                This text
    -H name|ip,fam *  The netserver to test against, and its address family
    -i max,min        Run the test at most max and at least min times
                      (3 to 30) for a confidence interval
    -I lvl[,intvl]    Confidence level 95 or 99 and the interval's full
                      width in percent of the mean (5)
    -j                Keep timing statistics (always kept)
    -l testlen        Test length: seconds (>0), or a negative count of bytes
                      (stream tests) or transactions (RR tests)
    -L name|ip,fam *  Local address and family of the control connection
    -n numcpu         Number of CPUs (refused: read from /proc/stat)
    -N                No control connection (not supported)
    -o send,recv      Local buffer offsets: 0 only (others are refused)
    -O send,recv      Remote buffer offsets: 0 only
    -p port,lport*    netserver's port (12865) and our local port
    -P 0|1            Hide or show the banner and column headers
    -r                Confidence on the result only
    -s seconds        Pause this long between setup and the test
    -S                SO_KEEPALIVE on the data sockets of both ends
    -t testname       TCP_STREAM (default), TCP_MAERTS, TCP_SENDFILE,
                      UDP_STREAM, TCP_RR, TCP_CRR, TCP_CC, UDP_RR or OMNI
    -T lcpu,rcpu      Run the data path on these CPUs (here, at the server)
    -v verbosity      0: the result alone, 1: the table (default), 2: more
    -V                Version, then exit
    -W send,recv      Buffer ring widths (refused: one buffer per flow)
    -w time, -b n     Paced bursts (refused, as netperf's default build)
    -k, -K            Dirty buffers (refused, as netperf's default build)
    -y local,remote   SO_PRIORITY of the data sockets
    -Y local,remote   IP TOS / IPv6 traffic class of the data sockets: 0 to
                      255 (0x10 in hex) or a name such as lowdelay or af11
    -Z passphrase     Send this passphrase first, for a netserver run with -Z
    -4                IPv4 for control and data
    -6                IPv6 for control and data

Two-value options: "x" sets both values, "x," only the first, ",y" only the
second, "x,y" each.

* These take "x" as the first value alone, leaving the second at its default,
as netperf always has; write ",y" or "x,y" to set the second.
)";
}

std::string netperf_test_help() {
  return R"(
Usage: netperf [global options] -- [test options]

Test options (OMNI and the classic tests):
    -b number         Extra requests in flight in TCP_RR and UDP_RR (first burst)
    -c                A connection test (with -d rr: TCP_CRR)
    -C                TCP_CORK on the local TCP data socket
    -d direction      OMNI direction: send (stream), recv (maerts), rr, or the
                      bits 2 = send and 4 = receive; "send|recv" combines
    -D [L][,R]        TCP_NODELAY on both ends
    -e secs           UDP_RR receive timeout (met: each transaction waits a
                      few round trips, then counts as lost)
    -h                This text
    -H name,fam       Data connection target address and family
    -k [file]         key=value output of the selectors in file or list;
                      "?" lists the selectors
    -K loc[,rem]      TCP congestion control of the data connection, each end
    -L name,fam       Data connection source address and family
    -m local,remote   Bytes per send in stream tests (default: the send buffer)
    -M remote,local   Bytes per receive in stream tests
    -n                A connected UDP socket here (always, in flowperf)
    -N                A connected UDP socket at the server (refused)
    -o [file]         Comma-separated output of the selectors in file or list;
                      "?" lists the selectors
    -O [file]         Column output of the selectors in file or list;
                      "?" lists the selectors
    -P local[,remote] Data connection ports, here and at the server (TCP_CRR:
                      the local port is a new ephemeral one per connection)
    -p min[,max]      TCP_CRR client port range (refused; see -P)
    -r req,[rsp]      Request and response sizes of RR tests (default 1,1)
    -R 0|1            SO_DONTROUTE (refused: routing is always allowed)
    -s send[,recv]    Local socket buffer sizes
    -S send[,recv]    Remote socket buffer sizes
    -t type           OMNI socket type: stream or dgram
    -T protocol       OMNI protocol: tcp or udp
    -u uuid           The test's UUID (the UUID selector)
    -4                IPv4 data connection
    -6                IPv6 data connection

Two-value options: "x" sets both values, "x," only the first, ",y" only the
second, "x,y" each; -m and -M take a lone "x" as the first value only.
)";
}

}  // namespace flowperf::cli
