// Bytes a packet occupies on the wire, per fabric. Every number below is a
// header or trailer size from the relevant spec; wire_extra is what the
// physical layer adds between frames (Ethernet: 7 B preamble + 1 B SFD + 12 B
// minimum inter-frame gap, IEEE 802.3 clause 4.4.2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace rdmasim {

struct Framing {
  std::string name;
  uint32_t base_header = 0;  // every packet: L2 + L3 + L4 + BTH + ICRC + FCS
  uint32_t reth = 0;         // RDMA Extended Transport Header (first WRITE packet, READ request)
  uint32_t aeth = 0;         // ACK Extended Transport Header (ACK / NAK)
  uint32_t min_frame = 0;    // shorter frames are padded to this
  uint32_t wire_extra = 0;   // preamble, SFD and inter-frame gap
  uint32_t int_header = 0;   // in-band telemetry carried by data and ACKs (HPCC)
  uint32_t ack_header = 0;   // an ACK's own header when it is not base_header + aeth (a TCP ACK)
  uint32_t nack_header = 0;  // a NACK's, where the transport has its own (UET)

  [[nodiscard]] uint32_t frame(uint32_t header_and_payload) const {
    return std::max(header_and_payload, min_frame) + wire_extra;
  }
  [[nodiscard]] uint32_t data_wire(uint32_t payload, bool with_reth) const {
    return frame(base_header + int_header + (with_reth ? reth : 0) + payload);
  }
  [[nodiscard]] uint32_t ack_wire() const {
    return frame((ack_header != 0 ? ack_header : base_header + aeth) + int_header);
  }
  [[nodiscard]] uint32_t read_request_wire() const { return frame(base_header + reth); }
  // CNP: BTH + 16 reserved bytes + ICRC (IBTA Annex A17 §A17.9.3).
  [[nodiscard]] uint32_t cnp_wire() const { return frame(base_header + 16); }
  // A MAC control (PAUSE/PFC) frame: minimum size (IEEE 802.1Qbb Annex N).
  [[nodiscard]] uint32_t pfc_wire() const { return min_frame + wire_extra; }

  // RoCEv2 (IBTA Annex A17): Ethernet II 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4
  // + FCS 4 = 62 B; RETH 16 B and AETH 4 B (IBTA Vol.1 §9.3); 64 B minimum
  // frame and 20 B of preamble/SFD/IFG (IEEE 802.3).
  static Framing rocev2() { return Framing{"rocev2", 62, 16, 4, 64, 20, 0, 0, 0}; }
  // Native InfiniBand (IBTA Vol.1 §7.7 and §9.2-9.3): LRH 8 + BTH 12 + ICRC 4
  // + VCRC 2 = 26 B; RETH 16 B, AETH 4 B. No minimum frame and no inter-frame
  // gap: the start/end delimiters live in the 64b/66b line code, which the
  // data rate (400 Gb/s NDR, 200 Gb/s HDR) already excludes.
  static Framing infiniband() { return Framing{"infiniband", 26, 16, 4, 0, 0, 0, 0, 0}; }
  // iWARP (transport/iwarp/iwarp_framing.h has the derivation): a Write
  // segment's headers, Eth 14 + FCS 4 + IPv4 20 + TCP 20 (+12 timestamps) +
  // MPA length 2 + CRC 4 + DDP tagged 14; a Send's untagged header is 4 more
  // (the `reth` slot); an ACK is Eth + IPv4 + TCP + FCS. The transport frames
  // its own packets exactly; the fabric uses this for buffer headroom and BDP.
  static Framing iwarp(bool timestamps) {
    const uint32_t tcp = timestamps ? 32 : 20;
    return Framing{"iwarp", 18 + 20 + tcp + 6 + 14, 4, 0, 64, 20, 0, 18 + 20 + tcp, 0};
  }
  // Ultra Ethernet over UDP (UEC 1.0 §3.4-3.5): Ethernet 14 + IPv4 20 + UDP 8
  // + PDS RUD/ROD request 12 + SES standard request 44 + FCS 4 = 102 B on
  // every data packet (its SES header replaces RETH); an ACK is Ethernet +
  // IPv4 + UDP + PDS ACK_CC 32 (cumulative PSN, SACK offset and 64-bit
  // bitmap, NSCC state) + FCS = 78 B; a NACK's PDS header is 16 B (62 B,
  // padded to 64). The header sizes are the UEC 1.0 formats as public
  // parsers of them lay them out.
  static Framing uet() { return Framing{"uet", 102, 0, 0, 64, 20, 0, 78, 62}; }
  // What a switch keeps of a trimmed UET packet: its headers through the PDS
  // request (Ethernet, IPv4, UDP, PDS 12 B, FCS), enough for the target to NACK it.
  static constexpr uint32_t kUetTrimMin = 14 + 20 + 8 + 12 + 4;
};

}  // namespace rdmasim
