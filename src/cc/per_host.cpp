#include "cc/per_host.h"

#include <stdexcept>
#include <string_view>

namespace rdmasim {

PerHostCongestionControl::PerHostCongestionControl(std::unique_ptr<CongestionControl> base,
                                                   std::vector<std::unique_ptr<CongestionControl>> by_host)
    : base_(std::move(base)), by_host_(std::move(by_host)) {
  for (const auto& c : by_host_)
    if (c != nullptr && std::string_view(c->name()) != base_->name())
      throw std::invalid_argument(std::string("a NIC runs congestion control '") + c->name() +
                                  "' in a fabric of '" + base_->name() + "': only its parameters may differ");
}

void PerHostCongestionControl::attach(CcHost* host) {
  CongestionControl::attach(host);
  base_->attach(host);
  for (const auto& c : by_host_)
    if (c != nullptr) c->attach(host);
}

}  // namespace rdmasim
