// A log for a server run inside the test's process: a temporary file the
// server's threads write to (ServerConfig::log), read back by the test.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace flowperf::testing {

class LogFile {
 public:
  LogFile();
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // What the server writes to.
  std::FILE* file() const { return file_; }
  // All written so far. Locked against the server's writes (one between
  // the rewind and the read would land at the start), and leaves the
  // position at the end for the next write.
  std::string text() const;
  // Whether `needle` is written within `limit`. A server writes a test's
  // last line after it has answered the client, so a test that checks the
  // log as soon as its client returns must wait for it.
  bool has(const std::string& needle,
           std::chrono::milliseconds limit = std::chrono::seconds(5)) const;

 private:
  std::FILE* file_;
};

}  // namespace flowperf::testing
