// Each measurement struct's fields, listed once, by name. A codec is a
// visitor called as v(name, member, presence) for every field in turn:
// proto/ walks these lists to put results on its wire and take them off
// again, report/ walks them to write the user's JSON. Adding a field here
// adds it to both, in both directions; the wire's encoding and the JSON's
// are each their own code, so changing one leaves the other as it was.
//
// The member is const when encoding and mutable when decoding, so one list
// serves both (the `Is` constraint accepts either).
#pragma once

#include <concepts>
#include <type_traits>

#include "results/measurements.h"

namespace flowperf::results {

// What a decoder does when a field is absent, and an encoder when an
// optional member is empty.
enum class Presence {
  kRequired,   // always written; absent on reading is an error
  kOptional,   // may be absent on reading (an older peer); an empty optional is written as null
  kOmitEmpty,  // may be absent on reading; not written when empty (an empty optional or
               // container, false, zero)
};

template <class T, class U>
concept Is = std::same_as<std::remove_const_t<T>, U>;

template <class V, Is<net::TcpInfo> T>
void fields(V& v, T& t) {
  v("total_retrans", t.total_retrans);
  v("rtt_us", t.rtt_us);
  v("rttvar_us", t.rttvar_us);
  v("snd_cwnd", t.snd_cwnd);
  v("snd_mss", t.snd_mss);
  v("rcv_mss", t.rcv_mss);
  v("pmtu", t.pmtu);
  v("snd_wnd", t.snd_wnd);
  v("pacing_rate_bps", t.pacing_rate_bps);
  v("delivery_rate_bps", t.delivery_rate_bps);
  v("rto_us", t.rto_us, Presence::kOmitEmpty);
  v("ato_us", t.ato_us, Presence::kOmitEmpty);
  v("rcv_ssthresh", t.rcv_ssthresh, Presence::kOmitEmpty);
  v("snd_ssthresh", t.snd_ssthresh, Presence::kOmitEmpty);
  v("reordering", t.reordering, Presence::kOmitEmpty);
  v("congestion_control", t.congestion_control);
}

template <class V, Is<measure::CpuUsage> T>
void fields(V& v, T& c) {
  v("util", c.util);
  v("user", c.user);
  v("system", c.system);
  v("iowait", c.iowait);
  v("irq", c.irq);
  v("softirq", c.softirq);
  v("peak_cpu", c.peak_cpu);
  v("peak_util", c.peak_util);
  v("num_cpus", c.num_cpus);
  v("process_user_s", c.process_user_s);
  v("process_system_s", c.process_system_s);
  v("elapsed_s", c.elapsed_s);
  v("method", c.method);
}

template <class V, Is<measure::NicUsage> T>
void fields(V& v, T& n) {
  v("name", n.name);
  v("elapsed_s", n.elapsed_s);
  v("rx_packets", n.delta.rx_packets);
  v("tx_packets", n.delta.tx_packets);
  v("rx_bytes", n.delta.rx_bytes);
  v("tx_bytes", n.delta.tx_bytes);
  v("rx_dropped", n.delta.rx_dropped);
  v("tx_dropped", n.delta.tx_dropped);
  v("rx_errors", n.delta.rx_errors);
  v("tx_errors", n.delta.tx_errors);
}

template <class V, Is<FlowResult> T>
void fields(V& v, T& f) {
  v("index", f.index);
  v("elapsed_s", f.elapsed_s);
  v("bytes_sent", f.bytes_sent);
  v("bytes_recv", f.bytes_recv);
  v("send_calls", f.send_calls);
  v("recv_calls", f.recv_calls);
  v("transactions", f.transactions);
  v("datagrams_sent", f.datagrams_sent);
  v("datagrams_recv", f.datagrams_recv);
  v("timeouts", f.timeouts);
  v("late", f.late);
  v("out_of_order", f.out_of_order);
  v("duplicates", f.duplicates);
  v("send_errors", f.send_errors);
  v("connects", f.connects);
  v("sched_intended", f.sched_intended, Presence::kOmitEmpty);
  v("sched_late", f.sched_late, Presence::kOmitEmpty);
  v("sched_held", f.sched_held, Presence::kOmitEmpty);
  v("sched_unsent", f.sched_unsent, Presence::kOmitEmpty);
  v("sched_max_lag_ns", f.sched_max_lag_ns, Presence::kOmitEmpty);
  v("jitter_ns", f.jitter_ns);
  v("finished", f.finished);
  v("error", f.error);
  v("error_errno", f.error_errno, Presence::kOmitEmpty);
  v("latency", f.latency, Presence::kOmitEmpty);
  v("tcp_info", f.tcp, Presence::kOmitEmpty);
  v("connection_mss", f.connection_mss, Presence::kOmitEmpty);
}

template <class V, Is<IntervalFlow> T>
void fields(V& v, T& f) {
  v("bytes_sent", f.bytes_sent);
  v("bytes_recv", f.bytes_recv);
  v("transactions", f.transactions);
  v("datagrams_sent", f.datagrams_sent, Presence::kOptional);
  v("datagrams_recv", f.datagrams_recv, Presence::kOptional);
  v("lost", f.lost, Presence::kOptional);
  v("out_of_order", f.out_of_order, Presence::kOptional);
  v("jitter_ns", f.jitter_ns, Presence::kOptional);
  v("timeouts", f.timeouts, Presence::kOptional);
  v("retrans", f.retrans, Presence::kOptional);
  v("tcp", f.tcp, Presence::kOptional);
}

template <class V, Is<IntervalSample> T>
void fields(V& v, T& s) {
  v("start_s", s.start_s);
  v("end_s", s.end_s);
  v("flows", s.flows);
  v("cpu", s.cpu, Presence::kOptional);
  v("nic", s.nic, Presence::kOptional);
  v("latency", s.latency, Presence::kOmitEmpty);
}

// "flows" comes last: codecs that write a side's flows one at a time (tens
// of thousands of them) handle it apart from the rest, the side's "head".
template <class V, Is<SideResult> T>
void fields(V& v, T& s) {
  v("elapsed_s", s.elapsed_s);
  v("threads", s.threads);
  v("sndbuf", s.sndbuf);
  v("rcvbuf", s.rcvbuf);
  v("sndbuf_end", s.sndbuf_end, Presence::kOptional);
  v("rcvbuf_end", s.rcvbuf_end, Presence::kOptional);
  v("send_width", s.send_width, Presence::kOmitEmpty);
  v("recv_width", s.recv_width, Presence::kOmitEmpty);
  v("latency", s.latency);
  v("cpu", s.cpu, Presence::kOptional);
  v("nic", s.nic, Presence::kOptional);
  v("intervals", s.intervals, Presence::kOptional);
  v("flows", s.flows);
}

// A type with a field list above.
template <class T>
concept Described = Is<T, net::TcpInfo> || Is<T, measure::CpuUsage> || Is<T, measure::NicUsage> ||
    Is<T, FlowResult> || Is<T, IntervalFlow> || Is<T, IntervalSample> || Is<T, SideResult>;

}  // namespace flowperf::results
