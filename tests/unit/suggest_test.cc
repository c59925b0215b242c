// core/suggest: the nearest known word to a mistyped one, which every front
// end's unknown-option and unknown-test errors offer.
#include "core/suggest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flowperf::core {
namespace {

TEST(Suggest, EditDistanceCountsEachKindOfEditOnce) {
  EXPECT_EQ(edit_distance("rate", "rate"), 0u);
  EXPECT_EQ(edit_distance("raet", "rate"), 1u);             // neighbours swapped
  EXPECT_EQ(edit_distance("rat", "rate"), 1u);              // a letter left out
  EXPECT_EQ(edit_distance("rrate", "rate"), 1u);            // one too many
  EXPECT_EQ(edit_distance("rute", "rate"), 1u);             // one replaced
  EXPECT_EQ(edit_distance("TCP_SREAM", "tcp_stream"), 1u);  // case is not an edit
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, NearestWithinTheAllowanceForTheWordsLength) {
  const std::vector<std::string> opts = {"--rate", "--reverse", "--request-response",
                                         "-r",     "--length",  "--json"};
  EXPECT_EQ(nearest("--raet", opts), "--rate");  // the issue's typo
  EXPECT_EQ(nearest("-raet", opts), "--rate");   // one dash short
  EXPECT_EQ(nearest("--jsno", opts), "--json");
  EXPECT_EQ(nearest("--lenght", opts), "--length");
  EXPECT_EQ(nearest("--revrese", opts), "--reverse");  // a swap within 7 letters
  EXPECT_EQ(nearest("--xyzzy", opts), "");             // nothing near
  EXPECT_EQ(nearest("--jq", opts), "");                // 2 edits are too many for 2 letters
  EXPECT_EQ(nearest("-R", opts), "");                  // one letter: no guess
  EXPECT_EQ(nearest("", opts), "");
  EXPECT_EQ(nearest("--", opts), "");
}

TEST(Suggest, AnAbbreviationOfOneCandidateFindsIt) {
  const std::vector<std::string> opts = {"--request-response", "--reverse", "--rate"};
  EXPECT_EQ(nearest("--request", opts), "--request-response");
  EXPECT_EQ(nearest("--re", opts), "");  // too short to say, and several start so
  const std::vector<std::string> two = {"--bidir-something", "--bidirectional"};
  EXPECT_EQ(nearest("--bidi", two), "");  // two candidates start so: no guess
}

TEST(Suggest, TestNamesIgnoreCase) {
  const std::vector<std::string> tests = {"TCP_STREAM", "TCP_MAERTS", "UDP_STREAM", "TCP_RR",
                                          "TCP_CRR",    "UDP_RR",     "OMNI"};
  EXPECT_EQ(nearest("TCP_SREAM", tests), "TCP_STREAM");
  EXPECT_EQ(nearest("tcp_rr", tests), "TCP_RR");
  EXPECT_EQ(nearest("UDP_RRR", tests), "UDP_RR");
  EXPECT_EQ(nearest("SCTP_STREAM", tests), "TCP_STREAM");  // one letter more
  EXPECT_EQ(nearest("FOO", tests), "");
  const std::vector<std::string> qperf = {"tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf", "quit"};
  EXPECT_EQ(nearest("tcp_bww", qperf), "tcp_bw");
  EXPECT_EQ(nearest("udplat", qperf), "udp_lat");
}

}  // namespace
}  // namespace flowperf::core
