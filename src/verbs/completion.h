// What the verbs layer reports upward: work completions. Shared by every
// transport, so workloads and collectives never name a transport class.
#pragma once

#include <cstdint>

#include "engine/units.h"
#include "net/packet.h"

namespace rdmasim {

// A queue pair's number within its fabric (dense, from 0 in creation order).
using QpId = uint32_t;

struct Completion {
  QpId conn = 0;
  uint64_t wr_id = 0;
  Opcode op = Opcode::kWrite;
  int64_t bytes = 0;
  Time posted;
  Time completed;
};

// Where a QP reports its completions. on_complete: the requester's work
// completion (WRITE/SEND acknowledged, READ data in place). on_receive: the
// responder saw the last byte of a WRITE or SEND land.
class CompletionSink {
 public:
  virtual void on_complete(const Completion& c) = 0;
  virtual void on_receive(const Completion& c) {}

 protected:
  ~CompletionSink() = default;
};

}  // namespace rdmasim
