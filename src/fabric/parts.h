// The registry of a fabric's parts: each part is chosen by name from the
// fabric configuration and built here, so adding a transport or a
// congestion-control algorithm is its own folder plus one entry below.
#pragma once

#include <memory>
#include <string>

#include "cc/congestion_control.h"
#include "feedback/receiver_feedback.h"
#include "transport/transport.h"

namespace rdmasim {

struct FabricConfig;
class Network;

// What a part may need to know of the fabric it joins, computed by Fabric.
struct PartContext {
  Time max_base_rtt;     // longest unloaded host-to-host RTT (HPCC's T, IRN's window)
  uint32_t bdp_packets;  // one bandwidth-delay product of full packets at the host link rate
};

// Throws std::invalid_argument naming the known transports for an unknown name.
[[nodiscard]] std::unique_ptr<Transport> make_transport(const FabricConfig& cfg, Network& net);
// nullptr for "none". Throws std::invalid_argument for an unknown name.
[[nodiscard]] std::unique_ptr<CongestionControl> make_congestion_control(const FabricConfig& cfg,
                                                                         const PartContext& ctx);
// The receiver feedback `cc` names (NoFeedback for no congestion control).
// Throws std::invalid_argument for a name no class implements.
[[nodiscard]] std::unique_ptr<ReceiverFeedback> make_receiver_feedback(const CongestionControl* cc,
                                                                       Network& net);

}  // namespace rdmasim
