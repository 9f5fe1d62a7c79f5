#include "metrics/pcap_frames.h"

#include <algorithm>

namespace rdmasim {
namespace {

// IBTA Vol.1 §9.2 Table 38: RC opcodes.
enum : uint8_t {
  kSendFirst = 0x00,
  kSendMiddle = 0x01,
  kSendLast = 0x02,
  kSendOnly = 0x04,
  kWriteFirst = 0x06,
  kWriteMiddle = 0x07,
  kWriteLast = 0x08,
  kWriteOnly = 0x0a,
  kReadRequest = 0x0c,
  kReadResponseFirst = 0x0d,
  kReadResponseMiddle = 0x0e,
  kReadResponseLast = 0x0f,
  kReadResponseOnly = 0x10,
  kAcknowledge = 0x11,
  kCnpOpcode = 0x81,  // IBTA Annex A17 §A17.9.3
};

constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint16_t kEtherMacControl = 0x8808;
constexpr uint16_t kRoceV2Port = 4791;
constexpr uint16_t kIwarpPort =
    20049;                           // the responder's listening port (any port: iWARP has no assigned one)
constexpr size_t kMinEthernet = 60;  // 64-byte minimum frame less the FCS, which captures leave out

uint8_t ecn_bits(uint8_t flags) { return (flags & kCe) != 0 ? 3 : (flags & kEct) != 0 ? 2 : 0; }

// The simulator's packets do not carry the message's addresses and keys:
// these are fixed, recognisable stand-ins, per message where the message
// index is known.
constexpr uint32_t kRkey = 0x00c0ffee;
uint64_t remote_va(uint32_t msg) { return 0x7f0000000000ull + (uint64_t{msg} << 24); }

}  // namespace

FrameBuilder::FrameBuilder(CaptureLink link, IwarpFraming iwarp) : link_(link), iwarp_(iwarp) {
  b_.reserve(16384);  // a 9000-byte jumbo frame and its headers: never grown while capturing
}

void FrameBuilder::put16(uint32_t v) {
  put8(v >> 8);
  put8(v);
}
void FrameBuilder::put24(uint32_t v) {
  put8(v >> 16);
  put16(v);
}
void FrameBuilder::put32(uint32_t v) {
  put16(v >> 16);
  put16(v);
}
void FrameBuilder::put64(uint64_t v) {
  put32(static_cast<uint32_t>(v >> 32));
  put32(static_cast<uint32_t>(v));
}

// Locally administered unicast (02:...), one per port: each hop rewrites the
// MAC addresses as a routed fabric does, so a capture names the link.
void FrameBuilder::mac(uint32_t node, uint16_t port) {
  put8(0x02);
  put24(node);
  put16(port);
}

void FrameBuilder::ethernet(const FrameEnds& e, uint16_t ether_type) {
  mac(e.rx_node, e.rx_port);
  mac(e.tx_node, e.tx_port);
  put16(ether_type);
}

size_t FrameBuilder::ipv4_begin(const FrameEnds& e, uint8_t protocol, uint8_t tos) {
  const size_t at = b_.size();
  auto addr = [&](int host) {
    // 10.0.0.0/8, host i at 10.0.0.0 + i + 1: room for every host a scenario may have.
    put8(10);
    put24(static_cast<uint32_t>(host) + 1);
  };
  put8(0x45);  // version 4, 5 words: no options
  put8(tos);
  put16(0);  // total length: ipv4_end
  put16(0);  // identification: DF is set, never fragmented
  put16(0x4000);
  put8(64);
  put8(protocol);
  put16(0);  // checksum: ipv4_end
  addr(e.src_host);
  addr(e.dst_host);
  return at;
}

void FrameBuilder::ipv4_end(size_t at) {
  const size_t len = b_.size() - at;
  b_[at + 2] = static_cast<uint8_t>(len >> 8);
  b_[at + 3] = static_cast<uint8_t>(len);
  uint32_t sum = 0;
  for (size_t i = 0; i < 20; i += 2) sum += uint32_t{b_[at + i]} << 8 | b_[at + i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  const uint32_t c = ~sum & 0xffff;
  b_[at + 10] = static_cast<uint8_t>(c >> 8);
  b_[at + 11] = static_cast<uint8_t>(c);
}

// BTH, its extension headers, the payload with its pad, and the ICRC: the
// part RoCEv2 and InfiniBand share.
void FrameBuilder::bth_and_rest(const Packet& p) {
  uint8_t op = kAcknowledge;
  bool reth = false, aeth = false, ack_req = false, solicited = false;
  uint32_t payload = 0;
  const bool first = (p.flags & kFirst) != 0, last = (p.flags & kLast) != 0;
  switch (p.type) {
    case PktType::kData:
      payload = p.payload;
      if ((p.flags & kReadResponse) != 0) {
        op = first && last ? kReadResponseOnly
             : first       ? kReadResponseFirst
             : last        ? kReadResponseLast
                           : kReadResponseMiddle;
        aeth = first || last;  // IBTA Vol.1 §9.3.5: First, Last and Only carry an AETH
      } else if (p.opcode == Opcode::kSend) {
        op = first && last ? kSendOnly : first ? kSendFirst : last ? kSendLast : kSendMiddle;
        solicited = last;
        ack_req = last;
      } else {
        op = first && last ? kWriteOnly : first ? kWriteFirst : last ? kWriteLast : kWriteMiddle;
        reth = first;
        ack_req = last;
      }
      break;
    case PktType::kReadRequest:
      op = kReadRequest;
      reth = true;
      ack_req = true;
      break;
    case PktType::kCnp:
      op = kCnpOpcode;
      break;
    case PktType::kSharp:
      // Sized as the simulator sizes it, an RC WRITE Only: the RETH's 16 B
      // stand for SHARP's own aggregation header, which is not public.
      payload = p.payload;
      op = kWriteOnly;
      reth = true;
      break;
    default:  // ACK, NAK
      aeth = true;
      break;
  }
  const uint32_t pad = (4 - payload % 4) % 4;
  put8(op);
  put8((solicited ? 0x80 : 0) | pad << 4);  // SE, M = 0, PadCnt, TVer = 0
  put16(0xffff);                            // default P_Key
  put8(0);
  put24(p.type == PktType::kSharp ? kSharpQpn | (p.conn & 0xffff) : qpn(p.conn));
  put8(ack_req ? 0x80 : 0);
  put24(p.type == PktType::kCnp ? 0 : static_cast<uint32_t>(p.psn & 0xffffff));
  if (reth) {
    put64(remote_va(p.aux));
    put32(kRkey);
    // The message length is not on the packet; a single-packet WRITE's is its payload.
    put32((p.type == PktType::kData && last) || p.type == PktType::kSharp ? payload : 0);
  }
  if (aeth) {
    uint8_t syndrome = 0x1f;  // ACK, credit count 31: no end-to-end credits
    if (p.type == PktType::kNak) syndrome = (p.flags & kRnr) != 0 ? 0x20 | 0x0e : 0x60;  // RNR / PSN error
    put8(syndrome);
    put24(0);  // MSN: the responder's message count is not on the packet
  }
  if (p.type == PktType::kCnp) zeros(16);
  zeros(payload + pad);
  put32(0);  // ICRC
}

void FrameBuilder::roce(const Packet& p, const FrameEnds& e) {
  ethernet(e, kEtherIpv4);
  // DSCP = 8 x tc (class selectors): the priority PFC acts on.
  const size_t ip = ipv4_begin(e, 17, static_cast<uint8_t>((p.tc & 7) << 5 | ecn_bits(p.flags)));
  const size_t udp = b_.size();
  put16(0xc000 | (p.flow_hash & 0x3fff));  // the source port is RoCEv2's ECMP entropy
  put16(kRoceV2Port);
  put16(0);  // length, below
  put16(0);  // no UDP checksum (Annex A17.3.1)
  bth_and_rest(p);
  const size_t ulen = b_.size() - udp;
  b_[udp + 4] = static_cast<uint8_t>(ulen >> 8);
  b_[udp + 5] = static_cast<uint8_t>(ulen);
  ipv4_end(ip);
}

void FrameBuilder::pfc(const Packet& p, const FrameEnds& e) {
  put8(0x01);  // 01:80:C2:00:00:01, the MAC control address
  put8(0x80);
  put8(0xc2);
  put8(0x00);
  put8(0x00);
  put8(0x01);
  mac(e.tx_node, e.tx_port);
  put16(kEtherMacControl);
  put16(0x0101);  // priority-based flow control
  const uint8_t prio = p.tc & 7;
  put16(1u << prio);  // class-enable vector: the one priority this frame is about
  for (uint8_t i = 0; i < 8; ++i) put16(i == prio ? static_cast<uint32_t>(p.psn & 0xffff) : 0);
}

void FrameBuilder::infiniband(const Packet& p, const FrameEnds& e) {
  const size_t lrh = b_.size();
  auto subnet = [&](int host) {
    return static_cast<size_t>(host) < host_subnet_.size() ? host_subnet_[static_cast<size_t>(host)] : 0;
  };
  const bool global = subnet(e.src_host) != subnet(e.dst_host);
  put8((p.tc & 0xf) << 4);  // VL, LVer 0
  // SL; LNH: IBA local (BTH follows) or IBA global (a GRH first). The LIDs
  // are the endpoints' (a router rewrites them per subnet; not shown).
  put8((p.sl & 0xf) << 4 | (global ? 0x3 : 0x2));
  put16(static_cast<uint32_t>(e.dst_host) + 1);  // LIDs: endpoint i has LID i + 1 (0 is reserved)
  put16(0);                                      // packet length, below
  put16(static_cast<uint32_t>(e.src_host) + 1);
  size_t grh = 0;
  if (global) {
    // GRH (IBTA Vol.1 §8.3): IPVer 6, TClass, FlowLabel; PayLen (below);
    // NxtHdr 0x1B (BTH); HopLmt; SGID and DGID, each the subnet's prefix
    // (fec0::/64 plus the subnet number: routable, unlike fe80::) and a
    // port GUID (the endpoint's number + 1).
    grh = b_.size();
    put32(6u << 28);
    put16(0);
    put8(0x1b);
    put8(64);
    for (const int host : {e.src_host, e.dst_host}) {
      put64(0xfec0000000000000ull | static_cast<uint64_t>(subnet(host)));
      put64(static_cast<uint64_t>(host) + 1);
    }
  }
  bth_and_rest(p);
  if (global) {
    const size_t pay = b_.size() - grh - 40;  // BTH through ICRC
    b_[grh + 4] = static_cast<uint8_t>(pay >> 8);
    b_[grh + 5] = static_cast<uint8_t>(pay);
  }
  const size_t words = (b_.size() - lrh) / 4;  // LRH through ICRC
  b_[lrh + 4] = static_cast<uint8_t>(words >> 8 & 0x7);
  b_[lrh + 5] = static_cast<uint8_t>(words);
  put16(0);  // VCRC
}

// ERF record header (Endace ERF types reference): a little-endian 32.32
// fixed-point timestamp, type, flags (varying-length record), record
// length, loss counter, wire length; the lengths are set by build().
void FrameBuilder::erf_begin(uint8_t type, Time t) {
  const int64_t ns = t.ps() / 1000;
  const auto sec = static_cast<uint64_t>(ns / 1000000000);
  const uint64_t frac = (static_cast<uint64_t>(ns % 1000000000) << 32) / 1000000000;
  const uint64_t ts = sec << 32 | frac;
  for (int i = 0; i < 8; ++i) put8(static_cast<uint32_t>(ts >> (8 * i)));
  put8(type);
  put8(0x04);
  put16(0);
  put16(0);
  put16(0);
}

uint32_t FrameBuilder::tcp_seq(bool requester_stream, uint64_t seg) const {
  const uint32_t isn = requester_stream ? kTcpIsnRequester : kTcpIsnResponder;
  return isn + 1 + kMpaStartBytes + static_cast<uint32_t>(seg * iwarp_.mss());
}

void FrameBuilder::iwarp(const Packet& p, const FrameEnds& e) {
  if (p.type == PktType::kPfc) {
    pfc(p, e);
    return;
  }
  const bool setup = p.type == PktType::kAck && (p.flags & kFirst) != 0;
  const uint32_t step = setup ? p.aux : 0;
  // Which stream the segment belongs to (its sender's) and which it acknowledges.
  bool req_sends = false;
  if (setup)
    req_sends = step == 1 || step == 3;
  else if (p.type == PktType::kAck)
    req_sends = (p.flags & kReadResponse) != 0;  // an ACK of the responder's stream comes from the requester
  else
    req_sends = (p.flags & kReadResponse) == 0;
  const uint32_t isn_self = req_sends ? kTcpIsnRequester : kTcpIsnResponder;
  const uint32_t isn_peer = req_sends ? kTcpIsnResponder : kTcpIsnRequester;
  const uint32_t start_self = isn_self + 1 + kMpaStartBytes;
  const uint32_t start_peer = isn_peer + 1 + kMpaStartBytes;
  uint32_t seq = start_self, ack = start_peer;
  uint8_t flags = 0x10;  // ACK
  bool syn_options = false;
  switch (step) {
    case 1:
      seq = isn_self;
      ack = 0;
      flags = 0x02;
      syn_options = true;
      break;
    case 2:
      seq = isn_self;
      ack = isn_peer + 1;
      flags = 0x12;
      syn_options = true;
      break;
    case 3:
      seq = isn_self + 1;
      ack = isn_peer + 1;
      flags = 0x18;
      break;
    case 4:
      seq = isn_self + 1;
      ack = start_peer;
      flags = 0x18;
      break;
    default:
      if (p.type == PktType::kAck) {
        ack = tcp_seq(!req_sends, p.psn);
        if ((p.flags & kCe) != 0) flags |= 0x40;  // ECE
      } else {
        seq = tcp_seq(req_sends, p.psn);
        flags |= 0x08;  // PSH
      }
  }
  ethernet(e, kEtherIpv4);
  // Pure ACKs and set-up segments are not ECN-capable (RFC 3168 §6.1.4).
  const uint8_t ecn = p.type == PktType::kData ? ecn_bits(p.flags) : 0;
  const size_t ip = ipv4_begin(e, 6, static_cast<uint8_t>((p.tc & 7) << 5 | ecn));
  const uint16_t req_port = static_cast<uint16_t>(49152 + p.conn % 16384);
  put16(req_sends ? req_port : kIwarpPort);
  put16(req_sends ? kIwarpPort : req_port);
  put32(seq);
  put32(ack);
  const size_t off = b_.size();
  put8(0);  // data offset, below
  put8(flags);
  put16(65535);
  put16(0);  // checksum: left to offload, as captures on the sending host show it
  put16(0);
  const auto us = [](Time t) { return static_cast<uint32_t>(t.ps() / 1000000); };
  if (syn_options) {
    put8(2);  // MSS
    put8(4);
    put16(iwarp_.mss());
    put8(1);  // NOP, window scale 7
    put8(3);
    put8(3);
    put8(7);
    if (iwarp_.timestamps) {
      put8(4);  // SACK permitted, then timestamps (Linux's layout)
      put8(2);
      put8(8);
      put8(10);
      put32(us(e.first_bit));
      put32(0);
    }
  } else if (iwarp_.timestamps) {
    put8(1);
    put8(1);
    put8(8);
    put8(10);
    put32(us(e.first_bit));
    put32(p.type == PktType::kAck ? us(p.sent_at) : 0);  // an ACK echoes the segment that advanced it
  }
  if (p.type == PktType::kAck && (p.flags & kSack) != 0) {
    const uint64_t begin = p.psn + (p.aux >> 16);
    put8(1);
    put8(1);
    put8(5);
    put8(10);
    put32(tcp_seq(!req_sends, begin));
    put32(tcp_seq(!req_sends, begin + (p.aux & 0xffff)));
  }
  b_[off] = static_cast<uint8_t>((b_.size() - (off - 12)) / 4 << 4);
  if (step == 3 || step == 4) {
    // MPA Request / Reply (RFC 5044 §7.1): key, M C R flags (no markers, no
    // CRC: what the simulator sends), revision 1, 4 bytes of private data.
    const char* key = step == 3 ? "MPA ID Req Frame" : "MPA ID Rep Frame";
    for (int i = 0; i < 16; ++i) put8(static_cast<uint8_t>(key[i]));
    put8(0);
    put8(1);
    put16(4);
    put32(0);
  } else if (p.type == PktType::kData || p.type == PktType::kReadRequest) {
    // One FPDU (RFC 5044 §4): ULPDU length, the DDP segment, pad, CRC.
    const bool request = p.opcode == Opcode::kRead && (p.flags & kReadResponse) == 0;
    const bool tagged = !request && p.opcode != Opcode::kSend;
    const uint32_t payload = request ? 0 : p.payload;
    const uint32_t ulpdu =
        IwarpFraming::ddp_header(tagged) + (request ? IwarpFraming::kReadRequestBody : 0) + payload;
    const size_t fpdu = b_.size();
    put16(ulpdu);
    // DDP control (RFC 5041 §4.2): T, L, DV = 1; RDMAP control (RFC 5040
    // §4.2): RV = 1 and the opcode: Write 0, Read Request 1, Read Response 2, Send 3.
    put8((tagged ? 0x80 : 0) | ((p.flags & kLast) != 0 ? 0x40 : 0) | 0x01);
    const uint8_t rdmap = (p.flags & kReadResponse) != 0 ? 2
                          : request                      ? 1
                          : p.opcode == Opcode::kSend    ? 3
                                                         : 0;
    put8(0x40 | rdmap);
    if (tagged) {
      put32(kRkey);             // STag
      put64(remote_va(p.aux));  // tagged offset of the message (the segment's own is not on the packet)
    } else {
      put32(0);                // reserved (Send without invalidate)
      put32(request ? 1 : 0);  // queue number: Sends on 0, Read Requests on 1 (RFC 5040 §5.1)
      put32(p.aux + 1);        // MSN: messages on the queue, from 1
      put32(0);                // message offset (of the first segment; later ones are not on the packet)
    }
    if (request) {
      put32(kRkey);  // data sink STag, sink TO, read size (not on the packet), source STag, source TO
      put64(remote_va(p.aux));
      put32(0);
      put32(kRkey);
      put64(remote_va(p.aux));
    }
    zeros(payload);
    while ((b_.size() - fpdu) % 4 != 0) put8(0);
    put32(0);  // CRC32c
  }
  ipv4_end(ip);
}

const std::vector<uint8_t>& FrameBuilder::build(const Packet& p, const FrameEnds& e) {
  b_.clear();
  // SHARP over TCP is no product's: an iWARP capture leaves its frames out.
  if (p.type == PktType::kSharp && link_ == CaptureLink::kIwarp) return b_;
  if (link_ == CaptureLink::kInfiniband) {
    erf_begin(21, e.first_bit);
    infiniband(p, e);
    const size_t rlen = b_.size(), wlen = rlen - kErfHeader;
    b_[10] = static_cast<uint8_t>(rlen >> 8);
    b_[11] = static_cast<uint8_t>(rlen);
    b_[14] = static_cast<uint8_t>(wlen >> 8);
    b_[15] = static_cast<uint8_t>(wlen);
    return b_;
  }
  if (link_ == CaptureLink::kIwarp)
    iwarp(p, e);
  else if (p.type == PktType::kPfc)
    pfc(p, e);
  else
    roce(p, e);
  if (b_.size() < kMinEthernet) b_.resize(kMinEthernet, 0);
  return b_;
}

}  // namespace rdmasim
