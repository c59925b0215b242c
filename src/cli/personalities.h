// Entry points of the front ends other than the native CLI. main() picks one
// by the name the binary was called as (or by `flowperf NAME ...`); argv[0]
// is then that name.
#pragma once

namespace flowperf::cli {

int netperf_main(int argc, char** argv);
int netserver_main(int argc, char** argv);
int qperf_main(int argc, char** argv);
int iperf3_main(int argc, char** argv);

}  // namespace flowperf::cli
