// Ctrl-C for a running client: the handler only sets a flag, which the
// controller polls; the test then ends and prints what it measured.
#pragma once

#include <atomic>

namespace flowperf::cli {

// The one process-wide flag a signal handler may touch.
const std::atomic<bool>* install_interrupt_handler();
// Blocks SIGINT and SIGTERM in this thread and threads it creates later, so
// a server can wait for them with wait_for_termination().
void block_termination_signals();
int wait_for_termination();

}  // namespace flowperf::cli
