// What a congestion point does with a packet the switch buffer refused.
#pragma once

#include <cstdint>

namespace rdmasim {

enum class OverflowAction : uint8_t {
  kDrop,     // not this point's business: the next point decides, else the switch drops
  kForward,  // the point rewrote the packet (e.g. trimmed it to its headers in
             // a priority class); the switch offers it to the buffer again
};

}  // namespace rdmasim
