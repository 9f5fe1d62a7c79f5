// A packet as the datapath sees it. Small and flat: it is copied nowhere,
// pooled, and linked into queues through `next`.
#pragma once

#include <cstdint>

#include "engine/units.h"

namespace rdmasim {

enum class PktType : uint8_t {
  kData,         // RDMA WRITE / SEND / READ-response payload
  kAck,          // RC ACK (AETH)
  kNak,          // RC NAK: PSN sequence error
  kReadRequest,  // RDMA READ request (RETH, no payload)
  kPfc,          // IEEE 802.1Qbb PAUSE: tc = priority, psn = quanta (0 = XON)
  kCnp,          // RoCEv2 congestion notification packet (DCQCN NP -> RP)
  kTrimmed,      // UET: a data packet a switch cut to its headers (payload 0); the target NACKs it
  kGrant,        // UET RCCC credit control packet: psn = the window granted, in bytes
  // In-network aggregation (SHARP streaming aggregation): conn = operation,
  // psn = chunk, aux = kSharpDown | the receiving tree switch or host slot.
  // Switches hand it to their aggregation node, never to the shared buffer.
  kSharp,
  kCount
};
inline constexpr int kNumPktTypes = static_cast<int>(PktType::kCount);

enum class Opcode : uint8_t { kWrite, kSend, kRead };

// Flags on a packet: kWireLoss on any frame, the others on RC/TCP packets.
enum PktFlags : uint8_t {
  kFirst = 1,         // first packet of a message (carries RETH for WRITE)
  kLast = 2,          // last packet of a message
  kReadResponse = 4,  // data flowing responder -> requester for a READ
  kRnr = 8,           // on a NAK: receiver not ready (no receive WQE posted)
  kEct = 16,          // ECN-capable transport (IPv4 ECN field 10)
  kCe = 32,           // congestion experienced (IPv4 ECN field 11), set by a switch
  kSack = 64,         // on a NAK: IRN selective NACK; aux = arrived PSN - psn
  // On any frame: lost on the wire it is crossing (random loss, bit errors);
  // the receiving port discards it on arrival (Port::receive_frame).
  kWireLoss = 128,
};

// One cache line: the datapath touches a packet at every hop, and when many
// are queued those touches are cache misses, so every byte here costs.
struct alignas(64) Packet {
  Packet* next = nullptr;  // intrusive queue link
  uint64_t psn = 0;        // 64-bit internally; the wire carries the low 24 bits
  // Data: when the NIC put it on the wire. ACK: the echoed sent_at of the
  // newest in-order data packet it covers (RTT samples for TIMELY).
  Time sent_at;
  Time tail_ready;         // cut-through: when its last bit is in this switch
  uint32_t flow_hash = 0;  // hash of the 5-tuple; switches mix in their seed
  uint32_t conn = 0;       // RC connection (QP pair) index
  uint32_t aux = 0;        // data, READ request: message index; SACK NAK: see kSack
  uint32_t int_slot = 0;   // in-band telemetry stack (HPCC) in the network's IntTable; 0 = none
  int32_t dst = 0;         // destination endpoint (host) id
  uint16_t payload = 0;    // payload bytes (MTU <= 9000)
  uint16_t wire = 0;       // bytes on the wire incl. preamble and inter-frame gap
  uint16_t in_port = 0;    // ingress port at the node that holds it
  uint8_t hops = 0;
  uint8_t sl = 0;  // InfiniBand service level (LRH.SL); on IB links tc holds the VL
  PktType type = PktType::kData;
  uint8_t tc = 0;  // traffic class 0..7
  uint8_t flags = 0;
  Opcode opcode = Opcode::kWrite;
};
static_assert(sizeof(Packet) == 64, "Packet must stay one cache line");

}  // namespace rdmasim
