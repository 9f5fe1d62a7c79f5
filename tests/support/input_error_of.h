// The InputError a call throws, for tests of what a loader refuses; a call
// that throws none fails the test.
#pragma once

#include <gtest/gtest.h>

#include "config/error.h"

namespace rdmasim::testing {

template <typename Fn>
InputError input_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError thrown";
  return InputError("", 0, 0, "", "");
}

}  // namespace rdmasim::testing
