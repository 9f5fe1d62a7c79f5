#include "collective/protocol.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "collective/nccl_list.h"

namespace rdmasim {
namespace {

// NCCL src/include/device.h: NCCL_STEPS slots per buffer; an LL line is
// 16 B (two 4 B data words, two 4 B flags); LL128 lines are 16 uint64_t of
// which one carries the flag (NCCL_LL128_LINEELEMS 16, DATAELEMS 15).
constexpr int64_t kSteps = 8;
constexpr int64_t kLlLinesPerThread = 8, kLlMaxThreads = 512, kLlLineBytes = 16, kLlLineData = 8;
constexpr int64_t kLl128ElemsPerThread = 120, kLl128MaxThreads = 640, kLl128Line = 128, kLl128LineData = 120;
// NCCL_BUFFSIZE default (NCCL environment-variable documentation): 4 MiB.
constexpr int64_t kSimpleBuffer = 4 << 20;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

const char* proto_name(Proto p) {
  switch (p) {
    case Proto::kLL:
      return "LL";
    case Proto::kLL128:
      return "LL128";
    case Proto::kSimple:
      return "Simple";
  }
  return "?";
}

Proto proto_from_name(const std::string& s) {
  auto lower = [](std::string v) {
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v;
  };
  for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple})
    if (lower(s) == lower(proto_name(p))) return p;
  throw std::invalid_argument("unknown protocol '" + s + "' (known: LL, LL128, Simple)");
}

ProtoSet parse_nccl_proto(const std::string& s) {
  if (s == "auto") return 0;
  const NcclList list = split_nccl_list(s, "NCCL_PROTO", "LL, LL128 or Simple");
  ProtoSet listed = 0;
  for (const std::string& name : list.names) listed |= proto_bit(proto_from_name(name));
  constexpr ProtoSet kAll = (1U << kProtos) - 1;
  const ProtoSet set = list.exclude ? static_cast<ProtoSet>(kAll & ~listed) : listed;
  if (set == 0) throw std::invalid_argument("NCCL_PROTO '" + s + "' leaves no protocol");
  return set;
}

std::string nccl_proto_text(ProtoSet set) {
  if (set == 0) return "auto";
  std::string out;
  for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple})
    if ((set & proto_bit(p)) != 0) out += (out.empty() ? "" : ",") + std::string(proto_name(p));
  return out;
}

bool proto_set_is_single(ProtoSet set) { return set != 0 && (set & (set - 1)) == 0; }

Proto proto_of_single(ProtoSet set) {
  for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple})
    if (set == proto_bit(p)) return p;
  throw std::invalid_argument("not a single protocol: " + nccl_proto_text(set));
}

int64_t proto_wire_bytes(Proto p, int64_t data) {
  switch (p) {
    case Proto::kLL:
      return ceil_div(data, kLlLineData) * kLlLineBytes;
    case Proto::kLL128:
      return ceil_div(data, kLl128LineData) * kLl128Line;
    case Proto::kSimple:
      return data;
  }
  return data;
}

int64_t proto_grain_bytes(Proto p) {
  constexpr int64_t kWarp = 32;
  switch (p) {
    case Proto::kLL:
      return kWarp * kLlLinesPerThread * kLlLineData;
    case Proto::kLL128:
      return kWarp * kLl128ElemsPerThread * 8 / kLl128Line * kLl128LineData;
    case Proto::kSimple:
      return proto_step_bytes(p);
  }
  return proto_step_bytes(p);
}

int64_t proto_step_bytes(Proto p) {
  switch (p) {
    case Proto::kLL:
      return kLlLinesPerThread * kLlMaxThreads * kLlLineData;  // 32 KiB of data in 64 KiB of lines
    case Proto::kLL128:
      return kLl128ElemsPerThread * kLl128MaxThreads * 8 / kLl128Line * kLl128LineData;  // 576,000 B
    case Proto::kSimple:
      return kSimpleBuffer / kSteps;  // 512 KiB
  }
  return kSimpleBuffer / kSteps;
}

}  // namespace rdmasim
