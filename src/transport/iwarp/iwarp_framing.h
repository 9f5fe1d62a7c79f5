// Bytes an iWARP segment occupies on Ethernet: RDMAP over DDP over MPA over
// TCP/IPv4 (RFC 5040, 5041, 5044), one FPDU per TCP segment as RNICs align
// them (RFC 5044 §8). Every number is a header size from those RFCs:
//   Ethernet II 14 + FCS 4, 64 B minimum frame, 20 B preamble/SFD/IFG
//   (IEEE 802.3); IPv4 20 (RFC 791, no options); TCP 20, +12 with the
//   timestamps option padded to a 4-byte boundary (RFC 7323 §3);
//   MPA: ULPDU_Length 2 + pad to 4 bytes + CRC32c 4 (RFC 5044 §4.1: the CRC
//   field is present whether or not CRCs were negotiated), and a
//   4-byte marker every 512 bytes of TCP stream when markers are negotiated
//   (RFC 5044 §4.3; off by default, RFC 6581 made them optional);
//   DDP tagged header 14 (control 2 incl. RDMAP's byte, STag 4, TO 8;
//   RFC 5041 §4.1) for RDMA Write and Read Response; untagged 18 (control 2,
//   reserved 4 for Send, QN 4, MSN 4, MO 4; RFC 5041 §4.2) for Send and the
//   Read Request, whose RDMAP body adds 28 (RFC 5040 §4.4).
#pragma once

#include <algorithm>
#include <cstdint>

namespace rdmasim {

struct IwarpFraming {
  static constexpr uint32_t kWireExtra = 20;  // preamble 7 + SFD 1 + IFG 12
  static constexpr uint32_t kMinFrame = 64;   // incl. FCS
  static constexpr uint32_t kEthernet = 14 + 4;
  static constexpr uint32_t kIpv4 = 20;
  static constexpr uint32_t kTcp = 20;
  static constexpr uint32_t kTcpTimestamps = 12;
  static constexpr uint32_t kMpaLength = 2;
  static constexpr uint32_t kMpaCrc = 4;
  static constexpr uint32_t kMarker = 4;
  static constexpr uint32_t kMarkerSpacing = 512;
  static constexpr uint32_t kDdpTagged = 14;
  static constexpr uint32_t kDdpUntagged = 18;
  static constexpr uint32_t kReadRequestBody = 28;

  uint32_t ip_mtu = 1500;  // bytes of IP datagram per frame
  bool timestamps = false;
  bool markers = false;

  [[nodiscard]] uint32_t tcp_header() const { return kTcp + (timestamps ? kTcpTimestamps : 0); }
  // TCP payload bytes per segment (the effective MSS).
  [[nodiscard]] uint32_t mss() const { return ip_mtu - kIpv4 - tcp_header(); }
  // Marker bytes in a segment of `tcp_payload` bytes (worst-case placement:
  // one per started 512-byte stretch, as the MULPDU bound of RFC 5044 §4.3 counts them).
  [[nodiscard]] uint32_t markers_in(uint32_t tcp_payload) const {
    return markers ? kMarker * ((tcp_payload + kMarkerSpacing - 1) / kMarkerSpacing) : 0;
  }
  // MPA framing around a ULPDU (the DDP segment) of `ulpdu` bytes: the pad
  // aligns length field plus ULPDU to 4 bytes, then the CRC (RFC 5044 §4.1).
  [[nodiscard]] static uint32_t fpdu(uint32_t ulpdu) { return (kMpaLength + ulpdu + 3) / 4 * 4 + kMpaCrc; }
  [[nodiscard]] static uint32_t ddp_header(bool tagged) { return tagged ? kDdpTagged : kDdpUntagged; }
  // MULPDU, the largest ULPDU an FPDU in one segment holds (RFC 5044 §4.3):
  // EMSS - (6 + 4 ceil(EMSS / 512) with markers + EMSS mod 4).
  [[nodiscard]] uint32_t mulpdu() const {
    const uint32_t emss = mss();
    return emss - (kMpaLength + kMpaCrc + markers_in(emss) + emss % 4);
  }
  // Payload bytes one segment carries.
  [[nodiscard]] uint32_t max_payload(bool tagged) const { return mulpdu() - ddp_header(tagged); }
  [[nodiscard]] static uint32_t frame(uint32_t bytes) { return std::max(bytes, kMinFrame) + kWireExtra; }
  // A data segment carrying `payload` bytes of a Write (tagged) or Send.
  [[nodiscard]] uint32_t data_wire(uint32_t payload, bool tagged) const {
    const uint32_t tcp_payload = fpdu(ddp_header(tagged) + payload);
    return frame(kEthernet + kIpv4 + tcp_header() + tcp_payload + markers_in(tcp_payload));
  }
  [[nodiscard]] uint32_t read_request_wire() const {
    const uint32_t tcp_payload = fpdu(kDdpUntagged + kReadRequestBody);
    return frame(kEthernet + kIpv4 + tcp_header() + tcp_payload + markers_in(tcp_payload));
  }
  // A pure TCP ACK: no payload, padded to the minimum frame.
  [[nodiscard]] uint32_t ack_wire() const { return frame(kEthernet + kIpv4 + tcp_header()); }

  // Connection set-up (the handshake option). SYN and SYN-ACK carry options
  // (RFC 9293 §3.1): MSS 4 and NOP + window scale 4 (RFC 7323 §2), then
  // SACK-permitted 2 (RFC 2018 §2) with 2 NOPs, or with timestamps SACK-
  // permitted and the 10-byte timestamps option in 12 (Linux's layout), or
  // timestamps alone with 2 NOPs in 12.
  static constexpr uint32_t kMpaKey = 16;     // "MPA ID Req Frame" / "MPA ID Rep Frame" (RFC 5044 §7.1)
  static constexpr uint32_t kMpaControl = 4;  // M, C, R, Res, Rev, PD_Length
  static constexpr uint32_t kMpaV2Ird = 4;    // private data: IRD/ORD of MPA v2 (RFC 6581 §4)
  [[nodiscard]] uint32_t syn_wire(bool sack) const {
    const uint32_t opts = 8 + (timestamps ? 12 : (sack ? 4 : 0));
    return frame(kEthernet + kIpv4 + kTcp + opts);
  }
  // An MPA Request or Reply: the first bytes of each stream (RFC 5044 §7.1).
  [[nodiscard]] uint32_t mpa_start_wire() const {
    return frame(kEthernet + kIpv4 + tcp_header() + kMpaKey + kMpaControl + kMpaV2Ird);
  }
};

}  // namespace rdmasim
