// Test helper: records every completion a connection reports.
#pragma once

#include <vector>

#include "verbs/completion.h"

namespace rdmasim::testing {

struct Recorder : CompletionSink {
  std::vector<Completion> done;
  std::vector<Completion> received;
  void on_complete(const Completion& c) override { done.push_back(c); }
  void on_receive(const Completion& c) override { received.push_back(c); }
};

}  // namespace rdmasim::testing
