#include "support/log_file.h"

#include <thread>

namespace flowperf::testing {

LogFile::LogFile() : file_(std::tmpfile()) {}

LogFile::~LogFile() {
  if (file_) std::fclose(file_);
}

std::string LogFile::text() const {
  if (!file_) return "";
  ::flockfile(file_);
  std::fflush(file_);
  std::rewind(file_);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) s.append(buf, n);
  ::funlockfile(file_);
  return s;
}

bool LogFile::has(const std::string& needle, std::chrono::milliseconds limit) const {
  using namespace std::chrono_literals;
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (text().find(needle) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace flowperf::testing
