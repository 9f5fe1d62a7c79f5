// TCP as an iWARP RNIC runs it in hardware (a TCP offload engine). The
// defaults are the RFCs' own unless marked; a profile overrides them and
// cites why (fabric/profiles.cpp).
#pragma once

#include <cstdint>

#include "config/params.h"
#include "engine/units.h"

namespace rdmasim {

struct TcpConfig {
  uint32_t ip_mtu = 1500;  // Ethernet MTU: the IP datagram per frame (RFC 894)
  bool timestamps = false;
  bool markers = false;
  // Delayed ACK (RFC 1122 §4.2.3.2, RFC 5681 §4.2): an ACK at least every
  // second full segment, and no later than the timer after the first
  // unacknowledged one. Out-of-order segments are acknowledged at once.
  uint32_t delayed_ack = 2;
  Time delayed_ack_timeout = Time::from_ms(40);  // Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN)
  // RFC 6298: RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)), doubled on each
  // expiry up to max_rto (§5.5). A connection is set up before its first
  // message (rdma_cm connects QPs ahead of traffic), and its SYN/SYN-ACK
  // RTT sample on a datacenter path is far below min_rto, so the RTO
  // starts at min_rto rather than RFC 6298's 1 s for an unsampled path.
  Time min_rto = Time::from_ms(200);  // Linux TCP_RTO_MIN; RFC 6298 §2.4 says 1 s
  Time max_rto =
      Time::from_s(60);  // RFC 6298 §2.5: "a maximum value MAY be placed on RTO ... at least 60 seconds"
  // G of RFC 6298 §2.2: assumption, an RNIC's timer ticks in microseconds.
  static constexpr Time kClockGranularity = Time::from_us(1);
  uint32_t dupack_threshold = 3;      // RFC 5681 §3.2
  uint64_t receive_window = 4 << 20;  // bytes; assumption: an RNIC's socket buffer, above one BDP
  bool ecn = false;                   // ECN-capable segments (RFC 3168); DCTCP needs it
  bool sack = false;                  // selective acknowledgments (RFC 2018) and RFC 6675 recovery
  bool handshake = false;             // set each connection up on its first message (SYN, SYN-ACK, MPA)
  // RFC 6298 §2.1: the RTO before any RTT sample, for SYN and MPA Request
  // retransmissions, doubled on each expiry (§5.5).
  static constexpr Time kInitialRto = Time::from_s(1);

  // The fabric.tcp keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.count({"ip_mtu", "Ethernet MTU: IP bytes per frame; the MSS is this less the IP and TCP headers"},
            ip_mtu, 576, 9216);
    v.flag({"timestamps", "TCP timestamps option (RFC 7323): 12 more header bytes per segment"}, timestamps);
    v.flag(
        {"markers", "MPA markers every 512 bytes of the TCP stream (RFC 5044 §4.3; optional since RFC 6581)"},
        markers);
    v.count({"delayed_ack", "the receiver ACKs at least every N in-order segments (RFC 5681 §4.2: 2)"},
            delayed_ack, 1, 64);
    v.time(
        {"delayed_ack_timeout", "longest an in-order segment waits for its ACK (RFC 1122: at most 500 ms)"},
        delayed_ack_timeout, kPositive);
    v.time({"min_rto", "lower bound of the retransmission timeout (RFC 6298 §2.4; Linux 200 ms)"}, min_rto,
           kPositive);
    v.time({"max_rto", "upper bound of the doubled retransmission timeout (RFC 6298 §2.5)"}, max_rto,
           kPositive);
    v.check(min_rto <= max_rto, "max_rto", "expected max_rto at least min_rto");
    v.count({"dupack_threshold", "duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2: 3)"},
            dupack_threshold, 1, 64);
    v.size(Key{"receive_window", "bytes the receiver advertises: the most a connection keeps unacknowledged"},
           receive_window);
    v.check(receive_window >= 2 * 9216, "receive_window",
            "expected a receive window of at least two segments");
    v.flag({"ecn", "segments are ECN-capable and the receiver echoes CE (RFC 3168; DCTCP, RFC 8257)"}, ecn);
    v.flag({"sack",
            "selective acknowledgments (RFC 2018) with SACK-based loss recovery (RFC 6675); off: "
            "NewReno recovery from duplicate ACKs (RFC 6582)"},
           sack);
    v.flag({"handshake",
            "set each connection up when its first message is posted: TCP three-way handshake, "
            "then MPA Request/Reply (RFC 5044 §7), before any data; off: set up ahead of the run"},
           handshake);
  }
};

}  // namespace rdmasim
