// NCCL's three protocols (NCCL_PROTO), which decide how a channel's data and
// its "this slot is full" signal travel from one GPU to the next:
//   Simple  data, then a flag behind a memory fence: full bandwidth, but a
//           fence and a flag round per step (and, across the network, the
//           proxy's post/completion/flush cycle);
//   LL      every 8-byte store carries 4 B of data and a 4 B flag, so the
//           receiver polls the data itself: no fence, lowest latency, half
//           of every byte moved is flag;
//   LL128   128-byte lines of 120 B data and an 8 B flag, relying on 128-byte
//           stores arriving whole (NVLink): near-Simple bandwidth at
//           near-LL latency.
// The sizes here are NCCL's buffer layout (src/include/device.h): they set
// the bytes on the wire and how much data one pipeline step carries.
#pragma once

#include <cstdint>
#include <string>

namespace rdmasim {

enum class Proto : uint8_t { kLL, kLL128, kSimple };
inline constexpr int kProtos = 3;

[[nodiscard]] const char* proto_name(Proto p);  // "LL", "LL128", "Simple" (NCCL_PROTO's spelling)
// Accepts NCCL_PROTO's names, case-insensitive. Throws std::invalid_argument.
[[nodiscard]] Proto proto_from_name(const std::string& s);

// A set of protocols, bit i for Proto(i); 0 stands for NCCL_PROTO unset.
using ProtoSet = uint8_t;
[[nodiscard]] constexpr ProtoSet proto_bit(Proto p) {
  return static_cast<ProtoSet>(1U << static_cast<int>(p));
}
// NCCL_PROTO's value as NCCL reads it (src/graph/tuning.cc parseList): "auto"
// (unset: 0), a comma-separated list ("LL,Simple") or "^" and the protocols
// to leave out ("^LL128"), names case-insensitive. NCCL's per-collective
// prefixes ("allreduce:LL") are refused. Throws std::invalid_argument naming
// what was expected, or when nothing is left.
[[nodiscard]] ProtoSet parse_nccl_proto(const std::string& s);
// The set as NCCL_PROTO spells it: "auto" for 0, else the list ("LL,LL128").
[[nodiscard]] std::string nccl_proto_text(ProtoSet set);
// Whether `set` holds exactly one protocol; and that one (throws
// std::invalid_argument for any other set).
[[nodiscard]] bool proto_set_is_single(ProtoSet set);
[[nodiscard]] Proto proto_of_single(ProtoSet set);

// Bytes a protocol puts on the link for `data` bytes of payload: LL's 16-byte
// line holds 8 B of data, LL128's 128-byte line holds 120 B.
[[nodiscard]] int64_t proto_wire_bytes(Proto p, int64_t data);
// Payload a channel moves per pipeline step: its buffer (NCCL_BUFFSIZE and
// the LL/LL128 buffers) over NCCL_STEPS = 8 slots, less LL's and LL128's flags.
[[nodiscard]] int64_t proto_step_bytes(Proto p);
// Payload a receiver can forward as soon as it has arrived. Simple signals a
// whole step with one flag; LL and LL128 flag every line, and each warp
// forwards its own lines, so data moves on in a warp's share of a step:
// LL 32 threads x 8 lines x 8 B = 2 KiB, LL128 32 threads x 120 elements x
// 8 B less the flags = 28,800 B.
[[nodiscard]] int64_t proto_grain_bytes(Proto p);

}  // namespace rdmasim
