// The iperf3 personality's usage text: flowperf's own words for iperf3
// 3.12's options (the same names and argument forms), apart from the parser
// in iperf3_args.cc.
#include "cli/iperf3_args.h"

namespace flowperf::cli {

std::string iperf3_usage() {
  // flowperf's words for iperf3 3.12's options (same names and argument forms).
  return R"(Usage: iperf3 [-s|-c host] [options]
       iperf3 [-h|--help] [-v|--version]

flowperf's iperf3 personality: iperf3 3.12's options and protocol, and the
options added up to 3.21.

Server or Client:
  -p, --port      #         the port the server listens on and clients connect to
                            (default 5201)
  -f, --format   [kmgtKMGT] fixed unit for rates and amounts: k, m, g, t for bits,
                            K, M, G, T for bytes (default: chosen per value)
  -i, --interval  #         seconds between interim reports; 0 for none (default 1)
  -I, --pidfile file        write this process's id to file
  -F, --file name           (not supported here) transfer a file's contents
  -A, --affinity n/n,m      pin this end to CPU n (and, from a client, the server
                            to CPU m)
  -B, --bind <host>[%<dev>] use <host>'s address for this end's sockets
                            (the %<dev> form is not supported here)
  --bind-dev <dev>          (not supported here) tie sockets to a network device
  -V, --verbose             print more detail
  -J, --json                print one JSON object with the whole test
  --json-stream             print one JSON object a line as the test goes:
                            start, each interval, end (iperf3 3.17's; client)
  --json-stream-full-output with --json-stream, also the whole -J object at the end
  --logfile f               append the output to file f instead of the terminal
  --forceflush              flush the output after every report
  --timestamps<=format>     start every output line with the time; "=" and a
                            strftime(3) format choose how it is written
  --rcv-timeout #           give up after # ms without data (default 120000)
  --snd-timeout #           (not supported here) ms limit for unacknowledged data
  --cntl-ka[=#/#/#]         TCP keepalive on the control connection: idle seconds,
                            seconds between probes, probes; an empty part keeps
                            the system's value
  -m, --mptcp               (not supported here yet) MPTCP data connections
  -d, --debug[=#]           print debugging messages; "=" and a level from 1 to 4
                            choose how many (default 4: all)
  -v, --version             print the version and system, then exit
  -h, --help                print this text, then exit
Server specific:
  -s, --server              be the server
  -D, --daemon              detach and keep serving in the background
  -1, --one-off             serve a single test, then exit
  --server-bitrate-limit #[KMG][/#]  (not supported here) cap the total rate
  --idle-timeout #          restart the server after # seconds without a test
  --server-max-duration #   refuse tests longer than # seconds (-t plus -O), and
                            tests without a time (-t 0, -n, -k)
  --max-tests #             flowperf's: tests served at the same time (default 100)
  --one-at-a-time           flowperf's: serve one test at a time and turn other
                            clients away as busy, as iperf3 does
  --rsa-private-key-path    the RSA private key (PEM) that opens clients' tokens
  --authorized-users-path   the users file: USERNAME,HASH lines, HASH the hex
                            SHA-256 of "{USERNAME}PASSWORD"
  --time-skew-threshold     seconds a token's time may differ from this
                            server's clock (default 10)
  --use-pkcs1-padding       open tokens padded with PKCS#1 v1.5, as clients
                            before iperf3 3.17 send them (default: OAEP)
Client specific:
  -c, --client <host>[%<dev>] be a client of the server at <host>
                              (the %<dev> form is not supported here)
  --sctp                    (not supported here) test over SCTP
  -X, --xbind <name>        (not supported here) SCTP local addresses
  --nstreams      #         (not supported here) SCTP streams
  -u, --udp                 test over UDP instead of TCP
  --connect-timeout #       ms to wait for the control connection
                            (default: the system's)
  -b, --bitrate #[KMG][/#]  send at most # bits/s, 0 for no limit (UDP default
                            1 Mbit/s, TCP unlimited); "/#": packets per burst
  --pacing-timer #[KMG]     microseconds between pacing decisions (default 1000)
  --fq-rate #[KMG]          have the kernel pace each socket to # bits/s (fq)
  -t, --time      #         seconds to send for (default 10)
  -n, --bytes     #[KMG]    send this many bytes instead of for a time
  -k, --blockcount #[KMG]   send this many blocks (datagrams) instead of for a time
  -l, --length    #[KMG]    bytes per read and write (TCP 128 KB; UDP: the path's
                            segment size)
  --cport         <port>    the client's own port for data (default: any free port)
  -P, --parallel  #         streams to run side by side (1 to 128)
  -R, --reverse             the server sends and the client receives
  --bidir                   both ends send and receive at once
  -w, --window    #[KMG]    socket send and receive buffer size (this bounds
                            the TCP window)
  -C, --congestion <algo>   TCP congestion control algorithm to use
  -M, --set-mss   #         TCP maximum segment size in bytes
  -N, --no-delay            send small segments at once (TCP_NODELAY, no Nagle)
  -4, --version4            IPv4 only
  -6, --version6            IPv6 only
  -S, --tos N               IP type-of-service byte, 0 to 255, in decimal, octal
                            (leading 0) or hex (leading 0x)
  --dscp N or --dscp val    DSCP, 0 to 63 in the same notations, or a name such
                            as ef, af11 or cs1
  -L, --flowlabel N         (not supported here) IPv6 flow label
  -Z, --zerocopy            send without copying the data (sendfile)
  -O, --omit N              leave the first N seconds out of the results
  -T, --title str           start every output line with str
  --extra-data str          a string carried in both ends' JSON output
  --get-server-output       print the server's report too
  --udp-counters-64bit      64-bit sequence numbers in UDP datagrams
  --repeating-payload       send a repeating pattern instead of random bytes
  --dont-fragment           set IPv4's Don't Fragment bit
  --skip-rx-copy            (not supported here yet) receive without copying
                            (MSG_TRUNC)
  --gsro                    (not supported here yet) UDP GSO and GRO at both ends
  --username                the name to authenticate as; the password comes
                            from IPERF3_PASSWORD, else it is asked for
  --rsa-public-key-path     the server's RSA public key (PEM) for the token
  --use-pkcs1-padding       flowperf's: pad the token with PKCS#1 v1.5, for
                            servers before iperf3 3.17 (default: OAEP)

[KMG]: the number may end in K, M, G or T (kilo, mega, giga, tera): powers of
1024 for sizes, of 1000 for rates.
)";
}

}  // namespace flowperf::cli
