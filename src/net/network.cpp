#include "net/network.h"

#include <string>

namespace rdmasim {

std::string Network::check_conservation() const {
  static constexpr const char* kNames[] = {"data", "ack",     "nak",   "read-request", "pfc",
                                           "cnp",  "trimmed", "grant", "sharp"};
  uint64_t live_total = 0;
  for (int t = 0; t < kNumPktTypes; ++t) {
    const uint64_t accounted =
        ledger_.delivered[t] + ledger_.dropped[t] + ledger_.retyped[t] + ledger_.live[t];
    if (accounted != ledger_.created[t])
      return std::string("packet conservation violated for ") + kNames[t] + ": created " +
             std::to_string(ledger_.created[t]) + " != delivered " + std::to_string(ledger_.delivered[t]) +
             " + dropped " + std::to_string(ledger_.dropped[t]) + " + trimmed " +
             std::to_string(ledger_.retyped[t]) + " + in flight " + std::to_string(ledger_.live[t]);
    live_total += ledger_.live[t];
  }
  if (live_total != pool_.live())
    return "packet conservation violated: ledger says " + std::to_string(live_total) +
           " in flight, pool holds " + std::to_string(pool_.live());
  return {};
}

}  // namespace rdmasim
