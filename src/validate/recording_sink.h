// The validate cases' completion sink: every completion and receive, in order.
#pragma once

#include <vector>

#include "verbs/completion.h"

namespace rdmasim {

struct RecordingSink : CompletionSink {
  std::vector<Completion> done, received;
  void on_complete(const Completion& c) override { done.push_back(c); }
  void on_receive(const Completion& c) override { received.push_back(c); }
};

}  // namespace rdmasim
