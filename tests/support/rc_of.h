// RC's own state behind a fabric's transport, for tests of RC internals
// (window, pacing, CNP timing). Everything else goes through Fabric::verbs().
#pragma once

#include "fabric/fabric.h"
#include "transport/rc.h"

namespace rdmasim {

inline RcEngine& rc_of(Fabric& f) { return dynamic_cast<RcEngine&>(f.transport()); }
inline const RcEngine& rc_of(const Fabric& f) { return dynamic_cast<const RcEngine&>(f.transport()); }

}  // namespace rdmasim
