// libFuzzer target: the monitor's HTTP endpoint, what any client on the
// network can send it. monitor::http_response on the input as a request
// received so far: it must either wait for more (only while the head is
// incomplete and under kMaxRequest) or answer with a status line and a
// Content-Length that matches the body, and never throw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "monitor/http.h"

namespace monitor = flowperf::monitor;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string request(reinterpret_cast<const char*>(data), size);
  const monitor::HttpServer::Render render = [] { return std::string("flowperf_x 1\n"); };
  bool complete = false;
  const std::string r = monitor::http_response(request, render, &complete);
  if (!complete) {
    if (r.size() != 0 || size >= monitor::HttpServer::kMaxRequest) std::abort();
    return 0;
  }
  if (r.rfind("HTTP/1.1 ", 0) != 0) std::abort();
  const auto head_end = r.find("\r\n\r\n");
  const auto len_at = r.find("Content-Length: ");
  if (head_end == std::string::npos || len_at == std::string::npos || len_at > head_end)
    std::abort();
  const size_t declared = std::strtoul(r.c_str() + len_at + 16, nullptr, 10);
  const size_t body = r.size() - head_end - 4;
  // HEAD answers carry the length of the body they leave out.
  if (body != declared && !(body == 0 && request.rfind("HEAD ", 0) == 0)) std::abort();
  return 0;
}
