// iperf3's authentication as the iperf3 personality sets it up, before any
// socket is opened (3.12 does the same while it reads its options):
//
//   client  --username NAME --rsa-public-key-path PUB: the password from
//           IPERF3_PASSWORD, else asked for on the terminal (echo off); with
//           neither, it stops rather than wait for a prompt nobody sees.
//   server  --rsa-private-key-path KEY --authorized-users-path FILE
//           [--time-skew-threshold N]: the key and the file are read now, so
//           a wrong path fails at start-up rather than at the first client.
//
// Failures print what 3.12 prints ("parameter error - you must specify ...",
// the usage on stdout) after a line of flowperf's saying what was wrong.
#pragma once

#include <functional>
#include <string>

#include "cli/iperf3_args.h"
#include "session/iperf3_server.h"

namespace flowperf::cli {

// What to print before exiting 1.
struct Iperf3SetupFailure {
  std::string out, err;
};

// A function that makes a fresh token (its time the time of the call), for
// the parameters. Throws Iperf3SetupFailure.
std::function<std::string()> iperf3_client_token(const Iperf3Args& a);

// The server's authentication. Throws Iperf3SetupFailure.
session::Iperf3Auth iperf3_server_auth(const Iperf3Args& a);

}  // namespace flowperf::cli
