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
  kCount
};
inline constexpr int kNumPktTypes = static_cast<int>(PktType::kCount);

enum class Opcode : uint8_t { kWrite, kSend, kRead };

// Flags on a data packet.
enum PktFlags : uint8_t {
  kFirst = 1,         // first packet of a message (carries RETH for WRITE)
  kLast = 2,          // last packet of a message
  kReadResponse = 4,  // data flowing responder -> requester for a READ
};

struct Packet {
  Packet* next = nullptr;  // intrusive queue link
  uint64_t flow_hash = 0;  // hash of the 5-tuple; switches mix in their seed
  uint64_t psn = 0;        // 64-bit internally; the wire carries the low 24 bits
  int64_t msg_offset = 0;  // data: byte offset in its message; READ request: bytes requested
  uint64_t aux = 0;        // data: message index; READ request: one past its last PSN
  Time sent_at;            // when the NIC put it on the wire (for RTT samples)
  Time tail_ready;         // cut-through: when its last bit is in this switch
  uint32_t conn = 0;       // RC connection (QP pair) index
  uint32_t payload = 0;    // payload bytes
  uint32_t wire = 0;       // bytes on the wire incl. preamble and inter-frame gap
  int32_t src = 0;         // source endpoint (host) id
  int32_t dst = 0;         // destination endpoint (host) id
  uint16_t in_port = 0;    // ingress port at the node that holds it
  uint16_t hops = 0;
  PktType type = PktType::kData;
  uint8_t tc = 0;          // traffic class 0..7
  uint8_t flags = 0;
  Opcode opcode = Opcode::kWrite;
};

}  // namespace rdmasim
