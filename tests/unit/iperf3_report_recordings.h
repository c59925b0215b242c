// Recorded output of iperf3 3.12 (Debian 3.12-1+deb12u2) on loopback, used
// as byte-for-byte test vectors by iperf3_report_test.cc.
//  - k15_N: ../shared/protocols/iperf3-wire.md §15.N, without the server's
//    "Server listening" banner and the client's "\niperf Done.\n";
//  - kRec*: further runs of the same 3.12 (-P 2, --bidir -P 2 -O 1, -u -P 2 -R,
//    an interrupted client), recorded for this test;
//  - the -J documents: iperf3_report_json_recordings.h.
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

}  // namespace iperf3_recordings
