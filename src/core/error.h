// Errors that reach the user. Setup and usage problems are thrown as Error,
// carrying the message the user sees and the process exit code; main()
// catches them once. The data path never throws.
#pragma once

#include <stdexcept>
#include <string>

namespace flowperf {

enum class ExitCode : int {
  kOk = 0,
  kRuntime = 1,       // the test could not run or did not finish
  kUsage = 2,         // bad command line or an impossible test spec
  kInterrupted = 130  // stopped by SIGINT; partial results were printed
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// A problem with what the user asked for (exit 2).
inline Error usage_error(std::string message) {
  return Error(ExitCode::kUsage, std::move(message));
}
// A problem while running (exit 1).
inline Error runtime_error(std::string message) {
  return Error(ExitCode::kRuntime, std::move(message));
}

}  // namespace flowperf
