// The bytes of a frame as it would cross the wire, built from a simulated
// packet's fields: the simulator carries no headers, so a capture has to
// synthesise them. Written from the specifications:
//   RoCEv2 (IBTA Vol.1 Annex A17): Ethernet II, IPv4 (RFC 791), UDP
//     (RFC 768) to port 4791, BTH and its extension headers (IBTA Vol.1
//     §9.2-9.3), ICRC; the CNP of Annex A17.9.3 (opcode 0x81, 16 reserved
//     bytes). No 802.1Q tag: the priority is carried by DSCP, as RoCE
//     deployments with "trust dscp" do, so the frame is as long as the
//     simulator counted it.
//   PFC (IEEE 802.1Qbb clause 36 / Annex 31B of 802.3): MAC control,
//     EtherType 0x8808, opcode 0x0101, class-enable vector, eight quanta.
//   InfiniBand (IBTA Vol.1 §7.7): LRH, BTH and extension headers, ICRC,
//     VCRC, each in an ERF record (pcap LINKTYPE_ERF, ERF type 21
//     INFINIBAND): Debian's tshark (4.0) does not read LINKTYPE_INFINIBAND
//     (247) files at all. Link-level flow-control packets are left out: its
//     InfiniBand Link dissector (ERF type 25) reports well-formed ones as
//     malformed depending on their FCTBS, so a capture of them would mislead.
//   iWARP (RFC 5040, 5041, 5044 over RFC 9293 TCP): Ethernet, IPv4, TCP,
//     one MPA FPDU per segment carrying the DDP and RDMAP headers.
//   SHARP aggregation packets (InfiniBand, or RoCEv2 where a profile enables
//     it): RC WRITE Only frames between the two ends of each link they cross
//     (LIDs and addresses from topology ids), sized as the simulator sizes
//     them; left out of iWARP captures.
// CRCs (ICRC, VCRC, MPA CRC32c) are written as zero; the IPv4 header
// checksum is computed, since dissectors check it.
#pragma once

#include <cstdint>
#include <vector>

#include "net/packet.h"
#include "transport/iwarp/iwarp_framing.h"

namespace rdmasim {

enum class CaptureLink : uint8_t { kRocev2, kInfiniband, kIwarp };

// Who a frame is between: the link it crosses (for the hop's MAC addresses)
// and the endpoints of its connection (IP addresses, LIDs, QP, TCP ports).
struct FrameEnds {
  uint32_t tx_node = 0;  // the transmitting node's topology id and port
  uint16_t tx_port = 0;
  uint32_t rx_node = 0;  // the receiving end of the link
  uint16_t rx_port = 0;
  int src_host = 0;  // endpoint that sent the packet
  int dst_host = 0;
  Time first_bit;  // when it leaves (ERF and TCP timestamps)
};

class FrameBuilder {
 public:
  FrameBuilder(CaptureLink link, IwarpFraming iwarp);

  static constexpr uint32_t kLinkTypeEthernet = 1;
  static constexpr uint32_t kLinkTypeErf = 197;
  static constexpr size_t kErfHeader = 16;
  // pcap's LINKTYPE for every frame this builder makes.
  [[nodiscard]] uint32_t link_type() const {
    return link_ == CaptureLink::kInfiniband ? kLinkTypeErf : kLinkTypeEthernet;
  }
  // Builds the frame of `p` (InfiniBand: its ERF record) into an internal
  // buffer reused from frame to frame; empty for a frame no capture of this
  // link records (see above). Valid until the next call. Credit packets
  // never reach it (Port::note_link_frame).
  [[nodiscard]] const std::vector<uint8_t>& build(const Packet& p, const FrameEnds& e);
  // InfiniBand: each endpoint's subnet (TopoNode::subnet). A packet between
  // subnets carries a GRH, as the simulator sizes it.
  void set_host_subnets(std::vector<int> subnet) { host_subnet_ = std::move(subnet); }

  // Helpers shared with the tests.
  static constexpr uint32_t kTcpIsnRequester = 0x10000000;  // the requester's stream
  static constexpr uint32_t kTcpIsnResponder = 0x20000000;
  static constexpr uint32_t kMpaStartBytes = 24;  // MPA Request / Reply with 4 bytes of private data
  // The TCP sequence number of segment `seg` of a stream (the simulator
  // counts segments; each is given `mss` bytes of sequence space, so a
  // short segment is followed by a gap in the byte stream).
  [[nodiscard]] uint32_t tcp_seq(bool requester_stream, uint64_t seg) const;
  [[nodiscard]] static uint32_t qpn(uint32_t conn) { return (conn + 0x100) & 0xffffff; }
  // SHARP aggregation packets: destination QP 0xff0000 | the operation, a
  // recognisable stand-in (the simulator keeps no QP for them).
  static constexpr uint32_t kSharpQpn = 0xff0000;

 private:
  void ethernet(const FrameEnds& e, uint16_t ether_type);
  size_t ipv4_begin(const FrameEnds& e, uint8_t protocol, uint8_t tos);
  void ipv4_end(size_t at);
  void bth_and_rest(const Packet& p);
  void roce(const Packet& p, const FrameEnds& e);
  void pfc(const Packet& p, const FrameEnds& e);
  void infiniband(const Packet& p, const FrameEnds& e);
  void erf_begin(uint8_t type, Time t);
  void iwarp(const Packet& p, const FrameEnds& e);
  void put8(uint32_t v) { b_.push_back(static_cast<uint8_t>(v)); }
  void put16(uint32_t v);
  void put24(uint32_t v);
  void put32(uint32_t v);
  void put64(uint64_t v);
  void zeros(size_t n) { b_.insert(b_.end(), n, uint8_t{0}); }
  void mac(uint32_t node, uint16_t port);

  CaptureLink link_;
  IwarpFraming iwarp_;
  std::vector<int> host_subnet_;
  std::vector<uint8_t> b_;
};

}  // namespace rdmasim
