// Short control conversations that run no test, for the qperf front end:
//
//   fetch_welcome:  Hello ──► ◄── Welcome            then close  (qperf's conf,
//                                                     and "is a server there?")
//   request_quit:   Hello ──► ◄── Welcome  Quit ──► ◄── Stop     (qperf's quit)
//
// Both retry a refused or unanswered connection for ServerProbe::wait_s
// (qperf's --wait_server), so a client started just before its server still
// finds it.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "net/socket.h"
#include "proto/messages.h"
#include "session/control_connect.h"

namespace flowperf::session {

struct ServerProbe {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  IpFamily family = IpFamily::kAny;
  double timeout_s = 5;  // for each connect and each answer
  double wait_s = 0;     // keep retrying a failed connect this long
};

// Connects, says Hello, returns the server's Welcome, and closes. Throws
// ConnectError when nothing answers, Error for anything else (a refusal,
// a version mismatch, a silent server).
proto::Welcome fetch_welcome(const ServerProbe& probe);

// Asks the server to exit; returns once it acknowledged. Throws like
// fetch_welcome, and Error when the server does not take quit requests.
void request_quit(const ServerProbe& probe);

}  // namespace flowperf::session
