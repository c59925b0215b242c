// Recorded output of iperf3 3.12 (Debian 3.12-1+deb12u2) on loopback, used
// as byte-for-byte test vectors by iperf3_report_test.cc.
//  - k15_N: ../shared/protocols/iperf3-wire.md §15.N, without the server's
//    "Server listening" banner and the client's "\niperf Done.\n";
//  - kRec*: further runs of the same 3.12 (-P 2, --bidir -P 2 -O 1, -u -P 2 -R,
//    an interrupted client, -J documents), recorded for this test.
#pragma once

namespace iperf3_recordings {

inline constexpr const char* k15_1 = R"rec(Connecting to host 127.0.0.1, port 5299
[  5] local 127.0.0.1 port 54312 connected to 127.0.0.1 port 5299
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  2.21 GBytes  19.0 Gbits/sec   94    895 KBytes       
[  5]   1.00-2.00   sec  2.01 GBytes  17.2 Gbits/sec   18   3.75 MBytes       
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-2.00   sec  4.22 GBytes  18.1 Gbits/sec  112             sender
[  5]   0.00-2.00   sec  4.22 GBytes  18.1 Gbits/sec                  receiver
)rec";

inline constexpr const char* k15_2 = R"rec(Accepted connection from 127.0.0.1, port 54308
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 54312
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-1.00   sec  2.21 GBytes  19.0 Gbits/sec                  
[  5]   1.00-2.00   sec  2.01 GBytes  17.2 Gbits/sec                  
[  5]   2.00-2.00   sec  2.25 MBytes  66.7 Gbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-2.00   sec  4.22 GBytes  18.1 Gbits/sec                  receiver
)rec";

inline constexpr const char* k15_3 = R"rec(Connecting to host 127.0.0.1, port 5299
[  5] local 127.0.0.1 port 58849 connected to 127.0.0.1 port 5299
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  
[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  38  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.548 ms  0/77 (0%)  receiver
)rec";

inline constexpr const char* k15_4 = R"rec(Accepted connection from 127.0.0.1, port 53356
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 58849
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.040 ms  0/39 (0%)  
[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  0.548 ms  0/38 (0%)  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.548 ms  0/77 (0%)  receiver
)rec";

inline constexpr const char* k15_5 = R"rec(Connecting to host 127.0.0.1, port 5299
Reverse mode, remote host 127.0.0.1 is sending
[  5] local 127.0.0.1 port 54330 connected to 127.0.0.1 port 5299
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-1.00   sec  2.17 GBytes  18.6 Gbits/sec                  
[  5]   1.00-2.00   sec  1.86 GBytes  15.9 Gbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-2.00   sec  4.02 GBytes  17.2 Gbits/sec   27             sender
[  5]   0.00-2.00   sec  4.02 GBytes  17.3 Gbits/sec                  receiver
)rec";

inline constexpr const char* k15_6 = R"rec(Accepted connection from 127.0.0.1, port 54322
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 54330
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  2.17 GBytes  18.6 Gbits/sec   25    767 KBytes       
[  5]   1.00-2.00   sec  1.86 GBytes  15.9 Gbits/sec    2   2.37 MBytes       
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-2.00   sec  4.02 GBytes  17.2 Gbits/sec   27             sender
)rec";

inline constexpr const char* k15_7 = R"rec(Connecting to host 127.0.0.1, port 5299
[  5] local 127.0.0.1 port 41360 connected to 127.0.0.1 port 5299
[  7] local 127.0.0.1 port 41368 connected to 127.0.0.1 port 5299
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
[  5][TX-C]   0.00-1.00   sec  1.37 GBytes  11.8 Gbits/sec  150    767 KBytes       
[  7][RX-C]   0.00-1.00   sec   797 MBytes  6.68 Gbits/sec                  
[  5][TX-C]   1.00-2.00   sec  1.17 GBytes  10.1 Gbits/sec   15    767 KBytes       
[  7][RX-C]   1.00-2.00   sec   843 MBytes  7.08 Gbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[  5][TX-C]   0.00-2.00   sec  2.54 GBytes  10.9 Gbits/sec  165             sender
[  5][TX-C]   0.00-2.00   sec  2.54 GBytes  10.9 Gbits/sec                  receiver
[  7][RX-C]   0.00-2.00   sec  1.61 GBytes  6.90 Gbits/sec   36             sender
[  7][RX-C]   0.00-2.00   sec  1.60 GBytes  6.87 Gbits/sec                  receiver
)rec";

inline constexpr const char* k15_8 = R"rec(Accepted connection from 127.0.0.1, port 41344
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 41360
[  8] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 41368
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
[  5][RX-S]   0.00-1.00   sec  1.37 GBytes  11.8 Gbits/sec                  
[  8][TX-S]   0.00-1.00   sec   802 MBytes  6.73 Gbits/sec   10   1.50 MBytes       
[  5][RX-S]   1.00-2.00   sec  1.17 GBytes  9.98 Gbits/sec                  
[  8][TX-S]   1.00-2.00   sec   844 MBytes  7.05 Gbits/sec   26   3.62 MBytes       
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[  5][RX-S]   0.00-2.00   sec  2.54 GBytes  10.9 Gbits/sec                  receiver
[  8][TX-S]   0.00-2.00   sec  1.61 GBytes  6.89 Gbits/sec   36             sender
)rec";

inline constexpr const char* k15_9 = R"rec(Connecting to host 127.0.0.1, port 5299
Reverse mode, remote host 127.0.0.1 is sending
[  5] local 127.0.0.1 port 44454 connected to 127.0.0.1 port 5299
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec   160 KBytes  1.31 Mbits/sec  0.020 ms  0/5 (0%)  
[  5]   1.00-2.00   sec   128 KBytes  1.05 Mbits/sec  0.046 ms  0/4 (0%)  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec   288 KBytes  1.18 Mbits/sec  0.000 ms  0/9 (0%)  sender
[  5]   0.00-2.00   sec   288 KBytes  1.18 Mbits/sec  0.046 ms  0/9 (0%)  receiver
)rec";

inline constexpr const char* k15_10 = R"rec(Accepted connection from 127.0.0.1, port 43118
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 44454
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   0.00-1.00   sec   128 KBytes  1.05 Mbits/sec  4  
[  5]   1.00-2.00   sec   128 KBytes  1.05 Mbits/sec  4  
[  5]   2.00-2.00   sec  32.0 KBytes   730 Mbits/sec  1  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec   288 KBytes  1.18 Mbits/sec  0.000 ms  0/9 (0%)  sender
)rec";

inline constexpr const char* k15_11 = R"rec(Connecting to host 127.0.0.1, port 5299
[  5] local 127.0.0.1 port 57684 connected to 127.0.0.1 port 5299
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  2.19 GBytes  18.8 Gbits/sec   36   1023 KBytes       
[  5]   1.00-2.00   sec  2.28 GBytes  19.6 Gbits/sec   72   3.25 MBytes       
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-2.00   sec  4.47 GBytes  19.2 Gbits/sec  108             sender
[  5]   0.00-2.00   sec  4.47 GBytes  19.2 Gbits/sec                  receiver

Server output:
Accepted connection from 127.0.0.1, port 57668
[  5] local 127.0.0.1 port 5299 connected to 127.0.0.1 port 57684
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-1.00   sec  2.19 GBytes  18.8 Gbits/sec                  
[  5]   1.00-2.00   sec  2.28 GBytes  19.5 Gbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-2.00   sec  4.47 GBytes  19.2 Gbits/sec                  receiver

)rec";

inline constexpr const char* kRecBidirP2OmitClient = R"rec(Connecting to host 127.0.0.1, port 5377
[  5] local 127.0.0.1 port 45618 connected to 127.0.0.1 port 5377
[  7] local 127.0.0.1 port 45620 connected to 127.0.0.1 port 5377
[  9] local 127.0.0.1 port 45636 connected to 127.0.0.1 port 5377
[ 12] local 127.0.0.1 port 45640 connected to 127.0.0.1 port 5377
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
[  5][TX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       (omitted)
[  7][TX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       (omitted)
[SUM][TX-C]   0.00-1.00   sec  47.8 MBytes   400 Mbits/sec    0             (omitted)
[  9][RX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  (omitted)
[ 12][RX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  (omitted)
[SUM][RX-C]   0.00-1.00   sec  47.8 MBytes   400 Mbits/sec                  (omitted)
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5][TX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[  7][TX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[SUM][TX-C]   0.00-1.00   sec  47.8 MBytes   401 Mbits/sec    0             
[  9][RX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  
[ 12][RX-C]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  
[SUM][RX-C]   0.00-1.00   sec  47.8 MBytes   401 Mbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5][TX-C]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[  7][TX-C]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[SUM][TX-C]   1.00-2.00   sec  47.8 MBytes   401 Mbits/sec    0             
[  9][RX-C]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec                  
[ 12][RX-C]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec                  
[SUM][RX-C]   1.00-2.00   sec  47.8 MBytes   401 Mbits/sec                  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[  5][TX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[  5][TX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[  7][TX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[  7][TX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[SUM][TX-C]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec    0             sender
[SUM][TX-C]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec                  receiver
[  9][RX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[  9][RX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[ 12][RX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[ 12][RX-C]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[SUM][RX-C]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec    0             sender
[SUM][RX-C]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec                  receiver
)rec";

inline constexpr const char* kRecP2TitleClient = R"rec(tit:  Connecting to host 127.0.0.1, port 5377
tit:  [  5] local 127.0.0.1 port 45658 connected to 127.0.0.1 port 5377
tit:  [  7] local 127.0.0.1 port 45674 connected to 127.0.0.1 port 5377
tit:  [ ID] Interval           Transfer     Bitrate         Retr  Cwnd
tit:  [  5]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
tit:  [  7]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
tit:  [SUM]   0.00-1.00   sec  47.8 MBytes   401 Mbits/sec    0             
tit:  - - - - - - - - - - - - - - - - - - - - - - - - -
tit:  [  5]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
tit:  [  7]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
tit:  [SUM]   1.00-2.00   sec  47.8 MBytes   401 Mbits/sec    0             
tit:  - - - - - - - - - - - - - - - - - - - - - - - - -
tit:  [ ID] Interval           Transfer     Bitrate         Retr
tit:  [  5]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
tit:  [  5]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
tit:  [  7]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
tit:  [  7]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
tit:  [SUM]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec    0             sender
tit:  [SUM]   0.00-2.00   sec  95.5 MBytes   400 Mbits/sec                  receiver
)rec";

inline constexpr const char* kRecUdpP2ReverseClient = R"rec(Connecting to host 127.0.0.1, port 5377
Reverse mode, remote host 127.0.0.1 is sending
[  5] local 127.0.0.1 port 53732 connected to 127.0.0.1 port 5377
[  7] local 127.0.0.1 port 55412 connected to 127.0.0.1 port 5377
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.021 ms  0/39 (0%)  
[  7]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  0.033 ms  0/39 (0%)  
[SUM]   0.00-1.00   sec  2.44 MBytes  20.4 Mbits/sec  0.027 ms  0/78 (0%)  
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  0.029 ms  0/38 (0%)  
[  7]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  0.045 ms  0/38 (0%)  
[SUM]   1.00-2.00   sec  2.38 MBytes  19.9 Mbits/sec  0.037 ms  0/76 (0%)  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.029 ms  0/77 (0%)  receiver
[  7]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender
[  7]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.045 ms  0/77 (0%)  receiver
[SUM]   0.00-2.00   sec  4.81 MBytes  20.2 Mbits/sec  0.000 ms  0/154 (0%)  sender
[SUM]   0.00-2.00   sec  4.81 MBytes  20.2 Mbits/sec  0.037 ms  0/154 (0%)  receiver
)rec";

inline constexpr const char* kRecBidirP2OmitServer =
    R"rec(Accepted connection from 127.0.0.1, port 45610
[  5] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 45618
[  8] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 45620
[ 11] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 45636
[ 13] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 45640
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
[  5][RX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  (omitted)
[  8][RX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  (omitted)
[SUM][RX-S]   0.00-1.00   sec  47.8 MBytes   400 Mbits/sec                  (omitted)
[ 11][TX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       (omitted)
[ 13][TX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       (omitted)
[SUM][TX-S]   0.00-1.00   sec  47.8 MBytes   400 Mbits/sec    0             (omitted)
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5][RX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  
[  8][RX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec                  
[SUM][RX-S]   0.00-1.00   sec  47.8 MBytes   401 Mbits/sec                  
[ 11][TX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[ 13][TX-S]   0.00-1.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[SUM][TX-S]   0.00-1.00   sec  47.8 MBytes   401 Mbits/sec    0             
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5][RX-S]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec                  
[  8][RX-S]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec                  
[SUM][RX-S]   1.00-2.00   sec  47.8 MBytes   401 Mbits/sec                  
[ 11][TX-S]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[ 13][TX-S]   1.00-2.00   sec  23.9 MBytes   200 Mbits/sec    0   1.12 MBytes       
[SUM][TX-S]   1.00-2.00   sec  47.8 MBytes   401 Mbits/sec    0             
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[  5][RX-S]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[  8][RX-S]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec                  receiver
[SUM][RX-S]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec                  receiver
[ 11][TX-S]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[ 13][TX-S]   0.00-2.00   sec  47.8 MBytes   200 Mbits/sec    0             sender
[SUM][TX-S]   0.00-2.00   sec  95.5 MBytes   401 Mbits/sec    0             sender
)rec";

inline constexpr const char* kRecUdpP2ReverseServer =
    R"rec(Accepted connection from 127.0.0.1, port 45706
[  5] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 53732
[  6] local 127.0.0.1 port 5377 connected to 127.0.0.1 port 55412
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  
[  6]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  
[SUM]   0.00-1.00   sec  2.44 MBytes  20.4 Mbits/sec  78  
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  38  
[  6]   1.00-2.00   sec  1.19 MBytes  9.96 Mbits/sec  38  
[SUM]   1.00-2.00   sec  2.38 MBytes  19.9 Mbits/sec  76  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender
[  6]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender
[SUM]   0.00-2.00   sec  4.81 MBytes  20.2 Mbits/sec  0.000 ms  0/154 (0%)  sender
)rec";

inline constexpr const char* kRecInterruptedClient = R"rec(Connecting to host 127.0.0.1, port 5377
[  5] local 127.0.0.1 port 46994 connected to 127.0.0.1 port 5377
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  12.0 MBytes   101 Mbits/sec    0   1.12 MBytes       
[  5]   1.00-1.49   sec  5.75 MBytes  99.1 Mbits/sec    0   1.12 MBytes       
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-1.49   sec  17.8 MBytes   100 Mbits/sec    0             sender
[  5]   0.00-1.49   sec  0.00 Bytes  0.00 bits/sec                  receiver
)rec";

inline constexpr const char* kRecInterruptedUdpP2Client =
    R"rec(Connecting to host 127.0.0.1, port 5377
[  5] local 127.0.0.1 port 33063 connected to 127.0.0.1 port 5377
[  7] local 127.0.0.1 port 45049 connected to 127.0.0.1 port 5377
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  
[  7]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  
[SUM]   0.00-1.00   sec  2.44 MBytes  20.4 Mbits/sec  78  
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5]   1.00-1.48   sec   576 KBytes  9.75 Mbits/sec  18  
[  7]   1.00-1.48   sec   576 KBytes  9.75 Mbits/sec  18  
[SUM]   1.00-1.48   sec  1.12 MBytes  19.5 Mbits/sec  36  
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-1.48   sec  1.78 MBytes  10.1 Mbits/sec  0.000 ms  0/57 (0%)  sender
[  5]   0.00-1.48   sec  0.00 Bytes  0.00 bits/sec  0.000 ms  0/0 (0%)  receiver
[  7]   0.00-1.48   sec  1.78 MBytes  10.1 Mbits/sec  0.000 ms  0/57 (0%)  sender
[  7]   0.00-1.48   sec  0.00 Bytes  0.00 bits/sec  0.000 ms  0/0 (0%)  receiver
[SUM]   0.00-1.48   sec  3.56 MBytes  20.1 Mbits/sec  0.000 ms  0/114 (0%)  sender
[SUM]   0.00-1.48   sec  0.00 Bytes  0.00 bits/sec  0.000 ms  0/0 (0%)  receiver
)rec";

inline constexpr const char* kRecTcpJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	41960,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:33 GMT",
			"timesecs":	1796391933
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"htpyco6l3rztiimwqarz6vl53r4fkaihefyd",
		"tcp_mss_default":	32768,
		"target_bitrate":	200000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	200000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.002843,
					"seconds":	1.0028430223464966,
					"bytes":	25034752,
					"bits_per_second":	199710235.33810967,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	133,
					"rttvar":	40,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.002843,
				"seconds":	1.0028430223464966,
				"bytes":	25034752,
				"bits_per_second":	199710235.33810967,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.002843,
					"end":	2.000284,
					"seconds":	0.997440993785858,
					"bytes":	25034752,
					"bits_per_second":	200791843.57545859,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	135,
					"rttvar":	23,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.002843,
				"end":	2.000284,
				"seconds":	0.997440993785858,
				"bytes":	25034752,
				"bits_per_second":	200791843.57545859,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	2.000284,
					"seconds":	2.000284,
					"bytes":	50069504,
					"bits_per_second":	200249580.55956054,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1114112,
					"max_rtt":	135,
					"min_rtt":	133,
					"mean_rtt":	134,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	2.000455,
					"seconds":	2.000284,
					"bytes":	50069504,
					"bits_per_second":	200232463.1146414,
					"sender":	true
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	2.000284,
			"seconds":	2.000284,
			"bytes":	50069504,
			"bits_per_second":	200249580.55956054,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.000455,
			"seconds":	2.000455,
			"bytes":	50069504,
			"bits_per_second":	200232463.1146414,
			"sender":	true
		},
		"cpu_utilization_percent":	{
			"host_total":	3.8515360396473288,
			"host_user":	1.5805151778048396,
			"host_system":	2.2709709734179508,
			"remote_total":	1.4426052173530526,
			"remote_user":	0.96167016083156132,
			"remote_system":	0.48083508041578066
		},
		"sender_tcp_congestion":	"bbr",
		"receiver_tcp_congestion":	"bbr"
	}
}
)rec";

inline constexpr const char* kRecUdpJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	44644,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:35 GMT",
			"timesecs":	1796391935
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"oskanbds4nv5q7qz5jqwu2lhd4glds4ngrxo",
		"target_bitrate":	10000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	212992,
		"rcvbuf_actual":	212992,
		"test_start":	{
			"protocol":	"UDP",
			"num_streams":	1,
			"blksize":	32768,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	10000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000175,
					"seconds":	1.0001749992370605,
					"bytes":	1277952,
					"bits_per_second":	10221827.188040728,
					"packets":	39,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.000175,
				"seconds":	1.0001749992370605,
				"bytes":	1277952,
				"bits_per_second":	10221827.188040728,
				"packets":	39,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000175,
					"end":	2.000189,
					"seconds":	1.0000139474868774,
					"bytes":	1245184,
					"bits_per_second":	9961333.0644378,
					"packets":	38,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.000175,
				"end":	2.000189,
				"seconds":	1.0000139474868774,
				"bytes":	1245184,
				"bits_per_second":	9961333.0644378,
				"packets":	38,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"udp":	{
					"socket":	5,
					"start":	0,
					"end":	2.000189,
					"seconds":	2.000189,
					"bytes":	2523136,
					"bits_per_second":	10091590.344712423,
					"jitter_ms":	0.029629730153055228,
					"lost_packets":	0,
					"packets":	77,
					"lost_percent":	0,
					"out_of_order":	0,
					"sender":	true
				}
			}],
		"sum":	{
			"start":	0,
			"end":	2.000411,
			"seconds":	2.000411,
			"bytes":	2523136,
			"bits_per_second":	10091590.344712423,
			"jitter_ms":	0.029629730153055228,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	true
		},
		"sum_sent":	{
			"start":	0,
			"end":	2.000189,
			"seconds":	2.000189,
			"bytes":	2523136,
			"bits_per_second":	10091590.344712423,
			"jitter_ms":	0,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.000411,
			"seconds":	2.000411,
			"bytes":	2523136,
			"bits_per_second":	10090470.408331087,
			"jitter_ms":	0.029629730153055228,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	false
		},
		"cpu_utilization_percent":	{
			"host_total":	2.2618110344187983,
			"host_user":	0.41295178755470413,
			"host_system":	1.8488592468640943,
			"remote_total":	0.22309969101967508,
			"remote_user":	0,
			"remote_system":	0.22304970229213311
		}
	}
}
)rec";

inline constexpr const char* kRecBidirJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	41980,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}, {
				"socket":	7,
				"local_host":	"127.0.0.1",
				"local_port":	41986,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:37 GMT",
			"timesecs":	1796391937
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"eut6pqr2bzcyjuiu3uu5eytmotkvqrstmwzv",
		"tcp_mss_default":	32768,
		"target_bitrate":	200000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	200000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000038,
					"seconds":	1.0000380277633667,
					"bytes":	25034752,
					"bits_per_second":	200270400.16461319,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1113088,
					"rtt":	82,
					"rttvar":	56,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}, {
					"socket":	7,
					"start":	0,
					"end":	1.000062,
					"seconds":	1.0000619888305664,
					"bytes":	25034752,
					"bits_per_second":	200265601.76954362,
					"omitted":	false,
					"sender":	false
				}],
			"sum":	{
				"start":	0,
				"end":	1.000038,
				"seconds":	1.0000380277633667,
				"bytes":	25034752,
				"bits_per_second":	200270400.16461319,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			},
			"sum_bidir_reverse":	{
				"start":	0,
				"end":	1.000038,
				"seconds":	1.0000380277633667,
				"bytes":	25034752,
				"bits_per_second":	200270400.16461319,
				"omitted":	false,
				"sender":	false
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000038,
					"end":	2.000046,
					"seconds":	1.0000079870224,
					"bytes":	25034752,
					"bits_per_second":	200276416.38777614,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1113088,
					"rtt":	51,
					"rttvar":	3,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}, {
					"socket":	7,
					"start":	1.000062,
					"end":	2.000131,
					"seconds":	1.00006902217865,
					"bytes":	25034752,
					"bits_per_second":	200264193.32907087,
					"omitted":	false,
					"sender":	false
				}],
			"sum":	{
				"start":	1.000038,
				"end":	2.000046,
				"seconds":	1.0000079870224,
				"bytes":	25034752,
				"bits_per_second":	200276416.38777614,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			},
			"sum_bidir_reverse":	{
				"start":	1.000038,
				"end":	2.000046,
				"seconds":	1.0000079870224,
				"bytes":	25034752,
				"bits_per_second":	200276416.38777614,
				"omitted":	false,
				"sender":	false
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	2.000046,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200273409.71157661,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1113088,
					"max_rtt":	82,
					"min_rtt":	51,
					"mean_rtt":	66,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	2.001288,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200149119.96674141,
					"sender":	true
				}
			}, {
				"sender":	{
					"socket":	7,
					"start":	0,
					"end":	2.000046,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200273409.71157661,
					"retransmits":	0,
					"max_snd_cwnd":	360448,
					"max_snd_wnd":	65536,
					"max_rtt":	27,
					"min_rtt":	27,
					"mean_rtt":	27,
					"sender":	false
				},
				"receiver":	{
					"socket":	7,
					"start":	0,
					"end":	2.001288,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200149119.96674141,
					"sender":	false
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	2.000046,
			"seconds":	2.000046,
			"bytes":	50069504,
			"bits_per_second":	200273409.71157661,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.001288,
			"seconds":	2.001288,
			"bytes":	50069504,
			"bits_per_second":	200149119.96674141,
			"sender":	true
		},
		"sum_sent_bidir_reverse":	{
			"start":	0,
			"end":	2.000046,
			"seconds":	2.000046,
			"bytes":	50069504,
			"bits_per_second":	200273409.71157661,
			"retransmits":	0,
			"sender":	false
		},
		"sum_received_bidir_reverse":	{
			"start":	0,
			"end":	2.001288,
			"seconds":	2.001288,
			"bytes":	50069504,
			"bits_per_second":	200149119.96674141,
			"sender":	false
		},
		"cpu_utilization_percent":	{
			"host_total":	3.3590507701538321,
			"host_user":	0,
			"host_system":	3.359000978407809,
			"remote_total":	3.7326070087127974,
			"remote_user":	1.1252635150294132,
			"remote_system":	2.60719359179417
		},
		"sender_tcp_congestion":	"bbr",
		"receiver_tcp_congestion":	"bbr"
	}
}
)rec";

inline constexpr const char* kRecErrorJson = R"rec({
	"start":	{
		"connected":	[],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64"
	},
	"intervals":	[],
	"end":	{
	},
	"error":	"unable to connect to server: Connection refused"
}
)rec";

inline constexpr const char* kRecInterruptedJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	47028,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:49:07 GMT",
			"timesecs":	1796392147
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"itynwegziu5qznfc6wl5o4mcqh2kwapqnibz",
		"tcp_mss_default":	32768,
		"target_bitrate":	100000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	5,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	100000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000257,
					"seconds":	1.0002570152282715,
					"bytes":	12582912,
					"bits_per_second":	100637430.6477894,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	92,
					"rttvar":	9,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.000257,
				"seconds":	1.0002570152282715,
				"bytes":	12582912,
				"bits_per_second":	100637430.6477894,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000257,
					"end":	1.187966,
					"seconds":	0.18770900368690491,
					"bytes":	2359296,
					"bits_per_second":	100551212.93745767,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	117,
					"rttvar":	16,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.000257,
				"end":	1.187966,
				"seconds":	0.18770900368690491,
				"bytes":	2359296,
				"bits_per_second":	100551212.93745767,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	1.187966,
					"seconds":	1.187966,
					"bytes":	14942208,
					"bits_per_second":	100623809.0989136,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1114112,
					"max_rtt":	117,
					"min_rtt":	92,
					"mean_rtt":	104,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	1.187966,
					"seconds":	1.187966,
					"bytes":	0,
					"bits_per_second":	0,
					"sender":	true
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	1.187966,
			"seconds":	1.187966,
			"bytes":	14942208,
			"bits_per_second":	100623809.0989136,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	1.187966,
			"seconds":	1.187966,
			"bytes":	0,
			"bits_per_second":	0,
			"sender":	true
		},
		"cpu_utilization_percent":	{
			"host_total":	2.3347079561919624,
			"host_user":	0.739631458052773,
			"host_system":	1.5950764981391892,
			"remote_total":	0,
			"remote_user":	0,
			"remote_system":	0
		},
		"sender_tcp_congestion":	"bbr"
	},
	"error":	"interrupt - the client has terminated",
	"title":	"tt",
	"extra_data":	"ee"
}
)rec";

}  // namespace iperf3_recordings
