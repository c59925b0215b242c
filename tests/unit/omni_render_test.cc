// Unit tests for report/omni_selectors: netperf's selector names, list and
// file parsing, defaults, values from results, the CPU selectors, the -O
// column layout, CSV and keyval.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "netperf_report_fixtures.h"
#include "report/netperf_report.h"
#include "report/omni_selectors.h"

namespace flowperf::report {
namespace {

using namespace testing;
// ---- OMNI selectors ---------------------------------------------------------------

TEST(OmniSelectors, NetperfsListInItsOrder) {
  const auto& all = omni_selectors();
  ASSERT_EQ(all.size(), 175u);
  EXPECT_STREQ(all.front().name, "OUTPUT_NONE");
  EXPECT_STREQ(all[1].name, "SOCKET_TYPE");
  EXPECT_STREQ(all.back().name, "OUTPUT_END");
  EXPECT_STREQ(all[all.size() - 2].name, "COMMAND_LINE");
  for (const char* name : {"THROUGHPUT",
                           "THROUGHPUT_UNITS",
                           "ELAPSED_TIME",
                           "MIN_LATENCY",
                           "MAX_LATENCY",
                           "MEAN_LATENCY",
                           "STDDEV_LATENCY",
                           "P50_LATENCY",
                           "P90_LATENCY",
                           "P99_LATENCY",
                           "REQUEST_SIZE",
                           "RESPONSE_SIZE",
                           "TRANSACTION_RATE",
                           "RT_LATENCY",
                           "LOCAL_BYTES_SENT",
                           "LOCAL_BYTES_RECVD",
                           "REMOTE_BYTES_SENT",
                           "REMOTE_BYTES_RECVD",
                           "LOCAL_SEND_CALLS",
                           "REMOTE_SEND_CALLS",
                           "LSS_SIZE",
                           "LSS_SIZE_REQ",
                           "LSS_SIZE_END",
                           "TRANSPORT_MSS",
                           "LOCAL_TRANSPORT_RETRANS",
                           "REMOTE_TRANSPORT_RETRANS",
                           "LOCAL_CONG_CONTROL",
                           "REMOTE_CONG_CONTROL",
                           "PROTOCOL",
                           "DIRECTION",
                           "SOURCE_ADDR",
                           "SOURCE_PORT",
                           "DEST_ADDR",
                           "DEST_PORT",
                           "COMMAND_LINE",
                           "UUID",
                           "RESULT_BRAND",
                           "LOCAL_FILL_FILE"})
    EXPECT_TRUE(find_omni_selector(name)) << name;
  EXPECT_EQ(find_omni_selector("throughput"), find_omni_selector("THROUGHPUT"));
  EXPECT_FALSE(find_omni_selector("THRUPUT"));
  std::string list = omni_selector_list(false);
  EXPECT_EQ(list.substr(0, 33), "OUTPUT_NONE\nSOCKET_TYPE\nPROTOCOL\n");
  EXPECT_EQ(std::count(list.begin(), list.end(), '\n'), 175);
  std::string csv = omni_selector_list(true);
  EXPECT_EQ(csv.substr(0, 33), "OUTPUT_NONE,SOCKET_TYPE,PROTOCOL,");
  EXPECT_EQ(csv.back(), '\n');
}

TEST(OmniSelectors, ParseLists) {
  std::string why;
  auto sel = parse_omni_selection("THROUGHPUT, THROUGHPUT_UNITS, MIN_LATENCY,MAX_LATENCY", &why);
  ASSERT_TRUE(sel) << why;
  ASSERT_EQ(sel->size(), 1u);
  EXPECT_EQ((*sel)[0].size(), 4u);
  EXPECT_EQ((*sel)[0][0], *find_omni_selector("THROUGHPUT"));
  sel = parse_omni_selection("mean_latency", &why);  // a single name
  ASSERT_TRUE(sel);
  EXPECT_EQ((*sel)[0][0], *find_omni_selector("MEAN_LATENCY"));
  sel = parse_omni_selection("THROUGHPUT;ELAPSED_TIME PROTOCOL;UUID;COMMAND_LINE;DIRECTION", &why);
  ASSERT_TRUE(sel);
  ASSERT_EQ(sel->size(), 4u);  // netperf prints at most four lines
  EXPECT_EQ((*sel)[1].size(), 2u);
  sel = parse_omni_selection("THROUGHPUT,OUTPUT_END,PROTOCOL", &why);
  ASSERT_TRUE(sel);
  EXPECT_EQ((*sel)[0].size(), 1u);  // OUTPUT_END ends the line
  EXPECT_FALSE(parse_omni_selection("THROUGHPUT,THRUPUT", &why));
  EXPECT_EQ(why, "'THRUPUT' is not a netperf output selector (`-O ?` lists them)");
  EXPECT_FALSE(parse_omni_selection("/no/such/file", &why));
  EXPECT_NE(why.find("neither a netperf output selector nor a readable file"), std::string::npos);
  sel = parse_omni_selection("all", &why);
  ASSERT_TRUE(sel);
  ASSERT_EQ(sel->size(), 4u);
  EXPECT_EQ((*sel)[0].front(), *find_omni_selector("SOCKET_TYPE"));
  EXPECT_EQ((*sel)[0].back(), *find_omni_selector("RESPONSE_SIZE"));
  EXPECT_EQ((*sel)[3].back(), *find_omni_selector("COMMAND_LINE"));
}

TEST(OmniSelectors, ParseAFile) {
  char path[] = "/tmp/omni_selection_XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream f(path);
    f << "THROUGHPUT, Throughput Units\n"  // names or their header text
      << "mean_latency\n";
  }
  std::string why;
  auto sel = parse_omni_selection(path, &why);
  ASSERT_TRUE(sel) << why;
  ASSERT_EQ(sel->size(), 2u);
  EXPECT_EQ((*sel)[0], (std::vector<size_t>{*find_omni_selector("THROUGHPUT"),
                                            *find_omni_selector("THROUGHPUT_UNITS")}));
  EXPECT_EQ((*sel)[1], std::vector<size_t>{*find_omni_selector("MEAN_LATENCY")});
  {
    std::ofstream f(path);
    f << "THROUGHPUT,BOGUS\n";
  }
  EXPECT_FALSE(parse_omni_selection(path, &why));
  EXPECT_EQ(why, "'BOGUS' is not a netperf output selector (`-O ?` lists them)");
  std::remove(path);
}

TEST(OmniSelectors, Defaults) {
  auto names = [](const OmniSelection& s) {
    std::string out;
    for (size_t i : s.at(0)) out += std::string(omni_selectors()[i].name) + ",";
    return out;
  };
  EXPECT_EQ(names(default_omni_selection(OmniShape::kSend, false)),
            "LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE,ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(names(default_omni_selection(OmniShape::kReceive, false)),
            "RSS_SIZE_END,LSR_SIZE_END,REMOTE_SEND_SIZE,ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(names(default_omni_selection(OmniShape::kRequestResponse, false)),
            "LSS_SIZE_END,LSR_SIZE_END,RSR_SIZE_END,RSS_SIZE_END,REQUEST_SIZE,RESPONSE_SIZE,"
            "ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(default_omni_selection(OmniShape::kSend, true)[0].size(), 6u + 17u);
}

OmniValues seed_values() {
  // The numbers of seed 000's omni example.
  OmniValues v;
  v.direction = "Send|Recv";
  v.throughput = 10130.16;
  v.units = "Trans";
  v.min_latency = 78;
  v.max_latency = 10821;
  v.mean_latency = 98.63;
  v.request_size = v.response_size = 64;
  v.stddev_latency = 86.38;
  return v;
}

const char* kSeedList =
    "THROUGHPUT, THROUGHPUT_UNITS, MIN_LATENCY,MAX_LATENCY, MEAN_LATENCY, REQUEST_SIZE, "
    "RESPONSE_SIZE,STDDEV_LATENCY";

TEST(OmniRender, HumanColumnsAsInSeed000) {
  auto sel = parse_omni_selection(kSeedList, nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), true),
            "Throughput Throughput Minimum      Maximum      Mean         Request Response Stddev  "
            "     \n"
            "           Units      Latency      Latency      Latency      Size    Size     Latency "
            "     \n"
            "                      Microseconds Microseconds Microseconds Bytes   Bytes    "
            "Microseconds \n"
            "                                                                                      "
            "     \n"
            "10130.16   Trans/s    78           10821        98.63        64      64       86.38   "
            "     \n");
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), false),
            "10130.16   Trans/s    78           10821        98.63        64      64       86.38   "
            "     \n");
}

TEST(OmniRender, KeyvalAsInSeed000) {
  auto sel = parse_omni_selection(kSeedList, nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kKeyval, *sel, seed_values(), true),
            "THROUGHPUT=10130.16\nTHROUGHPUT_UNITS=Trans/s\nMIN_LATENCY=78\nMAX_LATENCY=10821\n"
            "MEAN_LATENCY=98.63\nREQUEST_SIZE=64\nRESPONSE_SIZE=64\nSTDDEV_LATENCY=86.38\n");
}

TEST(OmniRender, Csv) {
  auto sel = parse_omni_selection("THROUGHPUT,THROUGHPUT_UNITS,LSS_SIZE_END", nullptr);
  ASSERT_TRUE(sel);
  OmniValues v = seed_values();
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, true),
            "Throughput,Throughput Units,Local Send Socket Size Final\n10130.16,Trans/s,-1\n");
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, false), "10130.16,Trans/s,-1\n");
  // No -B: RESULT_BRAND has no value; netperf leaves the field empty.
  sel = parse_omni_selection("RESULT_BRAND,PROTOCOL", nullptr);
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, true), "Result Tag,Protocol\n, TCP\n");
  EXPECT_EQ(render_omni(OmniStyle::kKeyval, *sel, v, true), "PROTOCOL=TCP\n");
  v.brand = "b1";
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, false), "\"b1\",TCP\n");
}

TEST(OmniRender, BlocksAreSeparatedByABlankLine) {
  auto sel = parse_omni_selection("PROTOCOL;DIRECTION", nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), true),
            "Protocol \n         \n         \n         \nTCP      \n"
            "\n"
            "Direction  \n           \n           \n           \nSend|Recv  \n");
}

TEST(OmniValuesText, WhatNetperfPrintsWithoutAValue) {
  OmniValues v;
  auto value = [&](const char* name) { return *omni_value(*find_omni_selector(name), v); };
  EXPECT_EQ(value("MIN_LATENCY"), "-1");
  EXPECT_EQ(value("MEAN_LATENCY"), "-1.00");
  EXPECT_EQ(value("LOCAL_CPU_UTIL"), "-1.00");
  EXPECT_EQ(value("LOCAL_CPU_METHOD"), "U");
  EXPECT_EQ(value("LOCAL_SD"), "-1.000");
  EXPECT_EQ(value("CONFIDENCE_INTERVAL"), "-1.000000");
  EXPECT_EQ(value("TRANSACTION_RATE"), "1.000");
  EXPECT_EQ(value("RT_LATENCY"), "-1.000");
  EXPECT_EQ(value("TRANSPORT_MSS"), "-1");
  EXPECT_EQ(value("LOCAL_SOCKET_TOS"), "0xffffffff");
  EXPECT_EQ(value("LOCAL_INTERFACE_VENDOR"), "0xfffffffe");
  EXPECT_EQ(value("REMOTE_SYSNAME"), "Deprecated");
  EXPECT_EQ(value("LOCAL_CONG_CONTROL"), "");
  EXPECT_EQ(value("OUTPUT_NONE"), " ");
  EXPECT_FALSE(omni_value(*find_omni_selector("RESULT_BRAND"), v));
  EXPECT_FALSE(omni_value(*find_omni_selector("OUTPUT_END"), v));
  v.command_line = "netperf -t omni";
  EXPECT_EQ(value("COMMAND_LINE"), "\"netperf -t omni\"");
  v.local_bytes_sent = 1000;
  v.local_send_calls = 3;
  EXPECT_EQ(value("LOCAL_BYTES_PER_SEND"), "333.33");
  EXPECT_EQ(value("LOCAL_BYTES_XFERD"), "1000");
  EXPECT_EQ(value("THROUGHPUT_UNITS"), "10^6bits/s");
}

TEST(OmniValuesText, CpuSelectorsWithoutMeasurement) {
  // netperf without -c/-C (and for an end not measured): the local peak is
  // -1, the remote one 0 from netserver's zeroed reply.
  OmniValues v;
  auto value = [&](const char* name) { return *omni_value(*find_omni_selector(name), v); };
  for (const char* name : {"LOCAL_CPU_UTIL", "REMOTE_CPU_UTIL", "LOCAL_CPU_PEAK_UTIL"})
    EXPECT_EQ(value(name), "-1.00") << name;
  for (const char* name :
       {"LOCAL_CPU_PERCENT_USER", "LOCAL_CPU_PERCENT_SYSTEM", "LOCAL_CPU_PERCENT_IOWAIT",
        "LOCAL_CPU_PERCENT_IRQ", "LOCAL_CPU_PERCENT_SWINTR", "REMOTE_CPU_PERCENT_USER",
        "REMOTE_CPU_PERCENT_SYSTEM", "REMOTE_CPU_PERCENT_IOWAIT", "REMOTE_CPU_PERCENT_IRQ",
        "REMOTE_CPU_PERCENT_SWINTR", "REMOTE_CPU_PEAK_UTIL"})
    EXPECT_EQ(value(name), "0.00") << name;
  EXPECT_EQ(value("LOCAL_CPU_METHOD"), "U");
  EXPECT_EQ(value("REMOTE_CPU_METHOD"), "U");
  EXPECT_EQ(value("LOCAL_SD"), "-1.000");
  EXPECT_EQ(value("REMOTE_SD"), "-1.000");
  EXPECT_EQ(value("LOCAL_CPU_COUNT"), "0");
  EXPECT_EQ(value("REMOTE_CPU_COUNT"), "0");
  EXPECT_EQ(value("LOCAL_CPU_PEAK_ID"), "-1");
  EXPECT_EQ(value("REMOTE_CPU_PEAK_ID"), "0");
  EXPECT_EQ(value("LOCAL_CPU_MODEL"), "Deprecated");
  EXPECT_EQ(value("REMOTE_CPU_MODEL"), "Deprecated");
}

// ---- netperf's variables from a result ----------------------------------------------

TEST(NetperfValues, FromAStreamResult) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.lss_req = 32768;
  OmniValues v = netperf_values(result(TestKind::kTcpStream), o);
  EXPECT_EQ(v.socket_type, "Stream");
  EXPECT_EQ(v.protocol, "TCP");
  EXPECT_EQ(v.direction, "Send");
  EXPECT_DOUBLE_EQ(v.throughput, 1000);
  EXPECT_EQ(v.units, "10^6bits");
  EXPECT_EQ(v.lss_req, 32768);
  EXPECT_EQ(v.lss, 16384);
  EXPECT_EQ(v.lss_end, 16384);   // no reading at the end: the initial size
  EXPECT_EQ(v.rsr_end, 131072);  // likewise
  {
    // Read at the end (autotuning grew them): those sizes.
    results::TestResult r = result(TestKind::kTcpStream);
    r.local_side.sndbuf_end = 4194304;
    r.remote_side.rcvbuf_end = 6291456;
    r.local_side.flows[0].tcp = net::TcpInfo{};
    r.local_side.flows[0].tcp->snd_mss = 65483;
    r.local_side.flows[0].tcp->total_retrans = 3;
    r.local_side.flows[0].tcp->congestion_control = "cubic";
    r.remote_side.flows[0].tcp = net::TcpInfo{};
    r.remote_side.flows[0].tcp->congestion_control = "reno";
    r.spec.local.tos = 0x20;
    r.spec.remote.priority = 4;
    const OmniValues e = netperf_values(r, o);
    EXPECT_EQ(e.lss_end, 4194304);
    EXPECT_EQ(e.rsr_end, 6291456);
    EXPECT_EQ(e.transport_mss, 65483);
    EXPECT_EQ(e.local_retrans, 3);
    EXPECT_EQ(e.remote_retrans, 0);
    EXPECT_EQ(e.local_cong_control, "cubic");
    EXPECT_EQ(e.remote_cong_control, "reno");
    EXPECT_EQ(e.local_socket_tos, 0x20);
    EXPECT_EQ(e.remote_socket_tos, -1);
    EXPECT_EQ(e.local_socket_prio, -1);
    EXPECT_EQ(e.remote_socket_prio, 4);
  }
  EXPECT_EQ(v.local_send_size, 16384);
  EXPECT_EQ(v.remote_recv_size, 131072);
  EXPECT_EQ(v.request_size, -1);
  EXPECT_EQ(v.local_bytes_sent, 1'250'000'000u);
  EXPECT_EQ(v.remote_bytes_recvd, 1'250'000'000u);
  EXPECT_DOUBLE_EQ(v.local_send_tput, 1000);
  EXPECT_FALSE(v.mean_latency);
  EXPECT_EQ(v.dest_addr, "127.0.0.1");
  EXPECT_EQ(v.uuid, "0f0e0d0c-0b0a-4908-8706-050403020100");
}

TEST(NetperfValues, FromAnRrResult) {
  NetperfReportOptions o = options("OMNI Send|Recv TEST");
  OmniValues v = netperf_values(result(TestKind::kUdpRr), o);
  EXPECT_EQ(v.socket_type, "Datagram");
  EXPECT_EQ(v.protocol, "UDP");
  EXPECT_EQ(v.direction, "Send|Recv");
  EXPECT_EQ(v.units, "Trans");
  EXPECT_DOUBLE_EQ(v.throughput, 10172.5);
  EXPECT_DOUBLE_EQ(v.transaction_rate, 10172.5);
  EXPECT_NEAR(v.rt_latency, 98.304, 0.001);
  EXPECT_EQ(v.sd_units, "usec/Tran");
  EXPECT_EQ(v.min_latency, 55);
  EXPECT_EQ(v.max_latency, 150);
  EXPECT_DOUBLE_EQ(*v.mean_latency, 102.5);
  EXPECT_NEAR(*v.stddev_latency, 47.5, 0.5);
  EXPECT_NEAR(*v.p50_latency, 55, 1);
  EXPECT_NEAR(*v.p99_latency, 150, 2);
  EXPECT_EQ(v.request_size, 1);
  EXPECT_EQ(v.local_cong_control, "");  // netperf 2.7.1 prints nothing for UDP
  o.direction = "Send|Recv";
  EXPECT_EQ(netperf_values(result(TestKind::kTcpCrr), o).direction, "Send|Recv");  // as asked
  o.direction.clear();
  EXPECT_EQ(netperf_values(result(TestKind::kTcpCrr), o).direction, "Connect|Send|Recv");
}

const char* kCpuSelectors =
    "LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,LOCAL_CPU_PERCENT_SYSTEM,LOCAL_CPU_PERCENT_IOWAIT,"
    "LOCAL_CPU_PERCENT_IRQ,LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,LOCAL_SD,REMOTE_CPU_UTIL,"
    "REMOTE_CPU_PERCENT_USER,REMOTE_CPU_PERCENT_SYSTEM,REMOTE_CPU_PERCENT_IOWAIT,"
    "REMOTE_CPU_PERCENT_IRQ,REMOTE_CPU_PERCENT_SWINTR,REMOTE_CPU_METHOD,REMOTE_SD,SD_UNITS,"
    "LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_UTIL,LOCAL_CPU_PEAK_ID,LOCAL_CPU_MODEL,REMOTE_CPU_COUNT,"
    "REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PEAK_ID,REMOTE_CPU_MODEL";

TEST(NetperfResult, CpuSelectorsWithBothEnds) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.local_cpu = o.remote_cpu = true;
  o.omni = OmniStyle::kKeyval;
  o.selection = *parse_omni_selection(kCpuSelectors, nullptr);
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o),
            "LOCAL_CPU_UTIL=25.50\n"
            "LOCAL_CPU_PERCENT_USER=10.25\n"
            "LOCAL_CPU_PERCENT_SYSTEM=12.00\n"
            "LOCAL_CPU_PERCENT_IOWAIT=0.50\n"
            "LOCAL_CPU_PERCENT_IRQ=0.25\n"
            "LOCAL_CPU_PERCENT_SWINTR=3.00\n"
            "LOCAL_CPU_METHOD=S\n"
            "LOCAL_SD=8.356\n"
            "REMOTE_CPU_UTIL=50.00\n"
            "REMOTE_CPU_PERCENT_USER=20.00\n"
            "REMOTE_CPU_PERCENT_SYSTEM=25.00\n"
            "REMOTE_CPU_PERCENT_IOWAIT=0.00\n"
            "REMOTE_CPU_PERCENT_IRQ=1.00\n"
            "REMOTE_CPU_PERCENT_SWINTR=2.00\n"
            "REMOTE_CPU_METHOD=S\n"
            "REMOTE_SD=32.768\n"
            "SD_UNITS=usec/KB\n"
            "LOCAL_CPU_COUNT=4\n"
            "LOCAL_CPU_PEAK_UTIL=97.12\n"
            "LOCAL_CPU_PEAK_ID=3\n"
            "LOCAL_CPU_MODEL=Deprecated\n"
            "REMOTE_CPU_COUNT=8\n"
            "REMOTE_CPU_PEAK_UTIL=88.50\n"
            "REMOTE_CPU_PEAK_ID=1\n"
            "REMOTE_CPU_MODEL=Deprecated\n");
}

TEST(NetperfResult, CpuSelectorsOnlyForTheEndsAskedFor) {
  NetperfReportOptions o = options("OMNI Send|Recv TEST");
  o.omni = OmniStyle::kCsv;
  o.selection = *parse_omni_selection(
      "LOCAL_CPU_UTIL,LOCAL_CPU_METHOD,LOCAL_SD,LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_ID,REMOTE_CPU_UTIL,"
      "REMOTE_CPU_METHOD,REMOTE_SD,REMOTE_CPU_COUNT,REMOTE_CPU_PEAK_ID,SD_UNITS",
      nullptr);
  o.headers = false;
  // Measured, but neither -c nor -C: netperf fills nothing.
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "-1.00,U,-1.000,0,-1,-1.00,U,-1.000,0,0,usec/Tran\n");
  o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "-1.00,U,-1.000,0,-1,50.00,S,393.217,8,1,usec/Tran\n");
  o.local_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "25.50,S,100.270,4,3,50.00,S,393.217,8,1,usec/Tran\n");
}

TEST(NetperfResult, OmniDefaultColumnsWithCpu) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.omni = OmniStyle::kCsv;
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(
      netperf_result(measured(TestKind::kTcpStream), o),
      "Local Send Socket Size Final,Remote Recv Socket Size Final,Local Send Size,Elapsed "
      "Time (sec),Throughput,Throughput Units,Local CPU Util %,Local CPU User %,Local CPU "
      "System %,Local CPU I/O %,Local CPU IRQ %,Local CPU swintr %,Local CPU Util "
      "Method,Remote CPU Util %,Remote CPU User %,Remote CPU System %,Remote CPU I/O "
      "%,Remote CPU IRQ %,Remote CPU swintr %,Remote CPU Util Method,Local Service "
      "Demand,Remote Service Demand,Service Demand Units\n"
      "16384,131072,16384,10.00,1000.00,10^6bits/s,25.50,10.25,12.00,0.50,0.25,3.00,S,50.00,20.00,"
      "25.00,0.00,1.00,2.00,S,8.356,32.768,usec/KB\n");
}

TEST(NetperfResult, OmniDefaultColumns) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.omni = OmniStyle::kHuman;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "Local       Remote      Local  Elapsed Throughput Throughput  \n"
            "Send Socket Recv Socket Send   Time               Units       \n"
            "Size        Size        Size   (sec)                          \n"
            "Final       Final                                             \n"
            "16384       131072      16384  10.00   1000.00    10^6bits/s  \n");
  o.omni = OmniStyle::kKeyval;
  o.selection = *parse_omni_selection("THROUGHPUT,UUID", nullptr);
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "THROUGHPUT=1000.00\nUUID=0f0e0d0c-0b0a-4908-8706-050403020100\n");
}

}  // namespace
}  // namespace flowperf::report
