#include "transport/recovery/recovery.h"

#include "transport/rc.h"
#include "transport/recovery/go_back_n.h"
#include "transport/recovery/irn.h"

namespace rdmasim {

Time Recovery::rto(const RcConnection&) const { return rc_.config().rto; }

std::unique_ptr<Recovery> make_recovery(RcEngine& rc, const RcConfig& cfg) {
  // IRN's responder keeps out-of-order packets already; the others keep them
  // only when the fabric reorders (adaptive routing).
  if (cfg.recovery == LossRecovery::kIrn) return std::make_unique<Irn>(rc);
  const bool whole_message = cfg.recovery == LossRecovery::kGoBack0;
  if (cfg.accept_out_of_order) return std::make_unique<ReorderTolerant>(rc, whole_message);
  if (whole_message) return std::make_unique<GoBack0>(rc);
  return std::make_unique<GoBackN>(rc);
}

}  // namespace rdmasim
