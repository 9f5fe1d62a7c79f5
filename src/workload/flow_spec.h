// One flow to inject: who sends how much to whom, and when. Shared by the
// synthetic generators and the trace readers so the simulator consumes both
// the same way.
#pragma once

#include <cstdint>

#include "engine/units.h"

namespace rdmasim {

struct FlowSpec {
  int64_t id = 0;
  int src = 0;
  int dst = 0;
  int priority = 0;
  int dport = 0;
  int64_t size_bytes = 0;
  Time start;

  friend bool operator==(const FlowSpec&, const FlowSpec&) = default;
};

}  // namespace rdmasim
