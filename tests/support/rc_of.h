// RC's own state behind a fabric's transport, for tests of RC internals
// (window, pacing, CNP timing). Everything else goes through Fabric::verbs().
#pragma once

#include <memory>

#include "fabric/fabric.h"
#include "fabric/parts.h"
#include "transport/rc.h"

namespace rdmasim {

inline RcEngine& rc_of(Fabric& f) { return dynamic_cast<RcEngine&>(f.transport()); }
inline const RcEngine& rc_of(const Fabric& f) { return dynamic_cast<const RcEngine&>(f.transport()); }

// Installs a congestion-control algorithm and the receiver feedback it names,
// as the fabric does for the configured one.
inline void install_cc(Fabric& f, std::unique_ptr<CongestionControl> cc) {
  f.transport().set_receiver_feedback(make_receiver_feedback(cc.get(), f.net()));
  f.transport().set_congestion_control(std::move(cc));
}

}  // namespace rdmasim
