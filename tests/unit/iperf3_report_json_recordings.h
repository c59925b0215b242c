// Recorded -J documents of iperf3 3.12 (Debian 3.12-1+deb12u2) on loopback,
// byte-for-byte test vectors for iperf3_report_test.cc; the text recordings
// are in iperf3_report_recordings.h.
#pragma once

namespace iperf3_recordings {

inline constexpr const char* kRecTcpJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	41960,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:33 GMT",
			"timesecs":	1796391933
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"htpyco6l3rztiimwqarz6vl53r4fkaihefyd",
		"tcp_mss_default":	32768,
		"target_bitrate":	200000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	200000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.002843,
					"seconds":	1.0028430223464966,
					"bytes":	25034752,
					"bits_per_second":	199710235.33810967,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	133,
					"rttvar":	40,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.002843,
				"seconds":	1.0028430223464966,
				"bytes":	25034752,
				"bits_per_second":	199710235.33810967,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.002843,
					"end":	2.000284,
					"seconds":	0.997440993785858,
					"bytes":	25034752,
					"bits_per_second":	200791843.57545859,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	135,
					"rttvar":	23,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.002843,
				"end":	2.000284,
				"seconds":	0.997440993785858,
				"bytes":	25034752,
				"bits_per_second":	200791843.57545859,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	2.000284,
					"seconds":	2.000284,
					"bytes":	50069504,
					"bits_per_second":	200249580.55956054,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1114112,
					"max_rtt":	135,
					"min_rtt":	133,
					"mean_rtt":	134,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	2.000455,
					"seconds":	2.000284,
					"bytes":	50069504,
					"bits_per_second":	200232463.1146414,
					"sender":	true
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	2.000284,
			"seconds":	2.000284,
			"bytes":	50069504,
			"bits_per_second":	200249580.55956054,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.000455,
			"seconds":	2.000455,
			"bytes":	50069504,
			"bits_per_second":	200232463.1146414,
			"sender":	true
		},
		"cpu_utilization_percent":	{
			"host_total":	3.8515360396473288,
			"host_user":	1.5805151778048396,
			"host_system":	2.2709709734179508,
			"remote_total":	1.4426052173530526,
			"remote_user":	0.96167016083156132,
			"remote_system":	0.48083508041578066
		},
		"sender_tcp_congestion":	"bbr",
		"receiver_tcp_congestion":	"bbr"
	}
}
)rec";

inline constexpr const char* kRecUdpJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	44644,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:35 GMT",
			"timesecs":	1796391935
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"oskanbds4nv5q7qz5jqwu2lhd4glds4ngrxo",
		"target_bitrate":	10000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	212992,
		"rcvbuf_actual":	212992,
		"test_start":	{
			"protocol":	"UDP",
			"num_streams":	1,
			"blksize":	32768,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	10000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000175,
					"seconds":	1.0001749992370605,
					"bytes":	1277952,
					"bits_per_second":	10221827.188040728,
					"packets":	39,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.000175,
				"seconds":	1.0001749992370605,
				"bytes":	1277952,
				"bits_per_second":	10221827.188040728,
				"packets":	39,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000175,
					"end":	2.000189,
					"seconds":	1.0000139474868774,
					"bytes":	1245184,
					"bits_per_second":	9961333.0644378,
					"packets":	38,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.000175,
				"end":	2.000189,
				"seconds":	1.0000139474868774,
				"bytes":	1245184,
				"bits_per_second":	9961333.0644378,
				"packets":	38,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"udp":	{
					"socket":	5,
					"start":	0,
					"end":	2.000189,
					"seconds":	2.000189,
					"bytes":	2523136,
					"bits_per_second":	10091590.344712423,
					"jitter_ms":	0.029629730153055228,
					"lost_packets":	0,
					"packets":	77,
					"lost_percent":	0,
					"out_of_order":	0,
					"sender":	true
				}
			}],
		"sum":	{
			"start":	0,
			"end":	2.000411,
			"seconds":	2.000411,
			"bytes":	2523136,
			"bits_per_second":	10091590.344712423,
			"jitter_ms":	0.029629730153055228,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	true
		},
		"sum_sent":	{
			"start":	0,
			"end":	2.000189,
			"seconds":	2.000189,
			"bytes":	2523136,
			"bits_per_second":	10091590.344712423,
			"jitter_ms":	0,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.000411,
			"seconds":	2.000411,
			"bytes":	2523136,
			"bits_per_second":	10090470.408331087,
			"jitter_ms":	0.029629730153055228,
			"lost_packets":	0,
			"packets":	77,
			"lost_percent":	0,
			"sender":	false
		},
		"cpu_utilization_percent":	{
			"host_total":	2.2618110344187983,
			"host_user":	0.41295178755470413,
			"host_system":	1.8488592468640943,
			"remote_total":	0.22309969101967508,
			"remote_user":	0,
			"remote_system":	0.22304970229213311
		}
	}
}
)rec";

inline constexpr const char* kRecBidirJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	41980,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}, {
				"socket":	7,
				"local_host":	"127.0.0.1",
				"local_port":	41986,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:45:37 GMT",
			"timesecs":	1796391937
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"eut6pqr2bzcyjuiu3uu5eytmotkvqrstmwzv",
		"tcp_mss_default":	32768,
		"target_bitrate":	200000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	2,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	200000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000038,
					"seconds":	1.0000380277633667,
					"bytes":	25034752,
					"bits_per_second":	200270400.16461319,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1113088,
					"rtt":	82,
					"rttvar":	56,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}, {
					"socket":	7,
					"start":	0,
					"end":	1.000062,
					"seconds":	1.0000619888305664,
					"bytes":	25034752,
					"bits_per_second":	200265601.76954362,
					"omitted":	false,
					"sender":	false
				}],
			"sum":	{
				"start":	0,
				"end":	1.000038,
				"seconds":	1.0000380277633667,
				"bytes":	25034752,
				"bits_per_second":	200270400.16461319,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			},
			"sum_bidir_reverse":	{
				"start":	0,
				"end":	1.000038,
				"seconds":	1.0000380277633667,
				"bytes":	25034752,
				"bits_per_second":	200270400.16461319,
				"omitted":	false,
				"sender":	false
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000038,
					"end":	2.000046,
					"seconds":	1.0000079870224,
					"bytes":	25034752,
					"bits_per_second":	200276416.38777614,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1113088,
					"rtt":	51,
					"rttvar":	3,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}, {
					"socket":	7,
					"start":	1.000062,
					"end":	2.000131,
					"seconds":	1.00006902217865,
					"bytes":	25034752,
					"bits_per_second":	200264193.32907087,
					"omitted":	false,
					"sender":	false
				}],
			"sum":	{
				"start":	1.000038,
				"end":	2.000046,
				"seconds":	1.0000079870224,
				"bytes":	25034752,
				"bits_per_second":	200276416.38777614,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			},
			"sum_bidir_reverse":	{
				"start":	1.000038,
				"end":	2.000046,
				"seconds":	1.0000079870224,
				"bytes":	25034752,
				"bits_per_second":	200276416.38777614,
				"omitted":	false,
				"sender":	false
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	2.000046,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200273409.71157661,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1113088,
					"max_rtt":	82,
					"min_rtt":	51,
					"mean_rtt":	66,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	2.001288,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200149119.96674141,
					"sender":	true
				}
			}, {
				"sender":	{
					"socket":	7,
					"start":	0,
					"end":	2.000046,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200273409.71157661,
					"retransmits":	0,
					"max_snd_cwnd":	360448,
					"max_snd_wnd":	65536,
					"max_rtt":	27,
					"min_rtt":	27,
					"mean_rtt":	27,
					"sender":	false
				},
				"receiver":	{
					"socket":	7,
					"start":	0,
					"end":	2.001288,
					"seconds":	2.000046,
					"bytes":	50069504,
					"bits_per_second":	200149119.96674141,
					"sender":	false
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	2.000046,
			"seconds":	2.000046,
			"bytes":	50069504,
			"bits_per_second":	200273409.71157661,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	2.001288,
			"seconds":	2.001288,
			"bytes":	50069504,
			"bits_per_second":	200149119.96674141,
			"sender":	true
		},
		"sum_sent_bidir_reverse":	{
			"start":	0,
			"end":	2.000046,
			"seconds":	2.000046,
			"bytes":	50069504,
			"bits_per_second":	200273409.71157661,
			"retransmits":	0,
			"sender":	false
		},
		"sum_received_bidir_reverse":	{
			"start":	0,
			"end":	2.001288,
			"seconds":	2.001288,
			"bytes":	50069504,
			"bits_per_second":	200149119.96674141,
			"sender":	false
		},
		"cpu_utilization_percent":	{
			"host_total":	3.3590507701538321,
			"host_user":	0,
			"host_system":	3.359000978407809,
			"remote_total":	3.7326070087127974,
			"remote_user":	1.1252635150294132,
			"remote_system":	2.60719359179417
		},
		"sender_tcp_congestion":	"bbr",
		"receiver_tcp_congestion":	"bbr"
	}
}
)rec";

inline constexpr const char* kRecErrorJson = R"rec({
	"start":	{
		"connected":	[],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64"
	},
	"intervals":	[],
	"end":	{
	},
	"error":	"unable to connect to server: Connection refused"
}
)rec";

inline constexpr const char* kRecInterruptedJson = R"rec({
	"start":	{
		"connected":	[{
				"socket":	5,
				"local_host":	"127.0.0.1",
				"local_port":	47028,
				"remote_host":	"127.0.0.1",
				"remote_port":	5377
			}],
		"version":	"iperf 3.12",
		"system_info":	"Linux vm 6.18.44-fc-v1272 #1 SMP PREEMPT_DYNAMIC @0 x86_64",
		"timestamp":	{
			"time":	"Fri, 04 Dec 2026 13:49:07 GMT",
			"timesecs":	1796392147
		},
		"connecting_to":	{
			"host":	"127.0.0.1",
			"port":	5377
		},
		"cookie":	"itynwegziu5qznfc6wl5o4mcqh2kwapqnibz",
		"tcp_mss_default":	32768,
		"target_bitrate":	100000000,
		"sock_bufsize":	0,
		"sndbuf_actual":	16384,
		"rcvbuf_actual":	131072,
		"test_start":	{
			"protocol":	"TCP",
			"num_streams":	1,
			"blksize":	131072,
			"omit":	0,
			"duration":	5,
			"bytes":	0,
			"blocks":	0,
			"reverse":	0,
			"tos":	0,
			"target_bitrate":	100000000
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"start":	0,
					"end":	1.000257,
					"seconds":	1.0002570152282715,
					"bytes":	12582912,
					"bits_per_second":	100637430.6477894,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	92,
					"rttvar":	9,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	0,
				"end":	1.000257,
				"seconds":	1.0002570152282715,
				"bytes":	12582912,
				"bits_per_second":	100637430.6477894,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}, {
			"streams":	[{
					"socket":	5,
					"start":	1.000257,
					"end":	1.187966,
					"seconds":	0.18770900368690491,
					"bytes":	2359296,
					"bits_per_second":	100551212.93745767,
					"retransmits":	0,
					"snd_cwnd":	1178694,
					"snd_wnd":	1114112,
					"rtt":	117,
					"rttvar":	16,
					"pmtu":	65535,
					"omitted":	false,
					"sender":	true
				}],
			"sum":	{
				"start":	1.000257,
				"end":	1.187966,
				"seconds":	0.18770900368690491,
				"bytes":	2359296,
				"bits_per_second":	100551212.93745767,
				"retransmits":	0,
				"omitted":	false,
				"sender":	true
			}
		}],
	"end":	{
		"streams":	[{
				"sender":	{
					"socket":	5,
					"start":	0,
					"end":	1.187966,
					"seconds":	1.187966,
					"bytes":	14942208,
					"bits_per_second":	100623809.0989136,
					"retransmits":	0,
					"max_snd_cwnd":	1178694,
					"max_snd_wnd":	1114112,
					"max_rtt":	117,
					"min_rtt":	92,
					"mean_rtt":	104,
					"sender":	true
				},
				"receiver":	{
					"socket":	5,
					"start":	0,
					"end":	1.187966,
					"seconds":	1.187966,
					"bytes":	0,
					"bits_per_second":	0,
					"sender":	true
				}
			}],
		"sum_sent":	{
			"start":	0,
			"end":	1.187966,
			"seconds":	1.187966,
			"bytes":	14942208,
			"bits_per_second":	100623809.0989136,
			"retransmits":	0,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	1.187966,
			"seconds":	1.187966,
			"bytes":	0,
			"bits_per_second":	0,
			"sender":	true
		},
		"cpu_utilization_percent":	{
			"host_total":	2.3347079561919624,
			"host_user":	0.739631458052773,
			"host_system":	1.5950764981391892,
			"remote_total":	0,
			"remote_user":	0,
			"remote_system":	0
		},
		"sender_tcp_congestion":	"bbr"
	},
	"error":	"interrupt - the client has terminated",
	"title":	"tt",
	"extra_data":	"ee"
}
)rec";

}  // namespace iperf3_recordings
