// --set as the run command applies it: list items addressed with a number
// after a dot (workload.0.qps) and list values ([3,4]) reach the scenario the
// loader builds; what cannot be set is refused at <--set>, naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/error.h"
#include "config/scenario.h"

namespace rdmasim {
namespace {

constexpr const char* kRoce = R"(name: t
topology: {type: star, hosts: 4}
fabric: {profile: rocev2-dcqcn}
workload:
  - {type: incast, senders: 3, size: 64KiB}
)";

Scenario with(const std::vector<std::string>& sets) { return load_scenario_text(kRoce, "t.yaml", sets); }

std::string error_with(const std::vector<std::string>& sets) {
  try {
    (void)with(sets);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "<--set>");
    EXPECT_EQ(e.line(), 0);
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(SetOverrides, DottedIndexReachesTheWorkload) {
  EXPECT_EQ(with({}).workloads[0].qps, 1);
  EXPECT_EQ(with({"workload.0.qps=8"}).workloads[0].qps, 8);
  EXPECT_EQ(with({"workload[0].qps=4"}).workloads[0].qps, 4);
  const Scenario s = with({"workload.0.senders=2", "workload.0.size=1MiB"});
  EXPECT_EQ(s.workloads[0].senders, 2);
  EXPECT_EQ(s.workloads[0].size.count(), 1 << 20);
}

TEST(SetOverrides, ListValues) {
  EXPECT_EQ(with({}).fabric.sw.mmu.lossless_mask, 0b1000);
  EXPECT_EQ(with({"fabric.pfc.classes=[3,4]"}).fabric.sw.mmu.lossless_mask, 0b11000);
  EXPECT_EQ(with({"fabric.pfc.classes=[ 3, 4 ]"}).fabric.sw.mmu.lossless_mask, 0b11000);
  const auto strict = with({"fabric.scheduler.strict=[7,6]"}).fabric.sw.scheduler.strict;
  for (int tc = 0; tc < 8; ++tc) EXPECT_EQ(strict[tc], tc >= 6) << tc;
  const auto none = with({"fabric.scheduler.strict=[]"}).fabric.sw.scheduler.strict;
  for (int tc = 0; tc < 8; ++tc) EXPECT_FALSE(none[tc]) << tc;
}

TEST(SetOverrides, Refusals) {
  EXPECT_EQ(error_with({"workload.2.qps=8"}),
            "<--set>: 'workload.2.qps': index 2 is out of range ('workload' has 1 items)");
  // One past the end appends an item, which then needs its type.
  EXPECT_EQ(error_with({"workload.1.qps=8"}).substr(0, 54),
            "<--set>: 'workload[1].type': missing required key (exp");
  EXPECT_EQ(error_with({"workload.x.qps=8"}),
            "<--set>: 'workload.x.qps': 'workload' is a list, not a map: index it with a number, e.g. "
            "workload.0 or workload[0]");
  EXPECT_EQ(error_with({"fabric.pfc={enabled: true}"}),
            "<--set>: 'fabric.pfc': expected a single value or a list of single values after '=' (got a "
            "map); set nested keys one at a time");
  EXPECT_EQ(error_with({"fabric.pfc.classes=[3,9]"}),
            "<--set>: 'fabric.pfc.classes[1]': expected a traffic class 0..7");
  // A list where one value is expected is the key's own error.
  EXPECT_EQ(error_with({"workload.0.qps=[1,2]"}),
            "<--set>: 'workload[0].qps': expected an integer in [1, 256] (got a list)");
}

}  // namespace
}  // namespace rdmasim
