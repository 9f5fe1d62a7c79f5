// VALIDATION.md §B.6 on the scaled-down topology: HPCC's, DCTCP's and
// DCQCN's 95th-percentile FCT slowdown of short WebSearch flows at 30% and 50%
// load, each within +-30% of the HPCC project page's value, HPCC well below
// both.
#include <gtest/gtest.h>

#include <future>
#include <vector>

#include "validate/hpcc_b6.h"

namespace rdmasim {
namespace {

TEST(ValidationB6, HpccShortFlowTailWellBelowDcqcnAndDctcpAndNearPublished) {
  struct Job {
    const char* cc;
    int load;
    std::future<B6Run> run;
  };
  std::vector<Job> jobs;
  for (const int load : {30, 50})
    for (const char* cc : {"hpcc", "dctcp", "dcqcn"})
      jobs.push_back({cc, load, std::async(std::launch::async, [=] {
                        return run_b6(cc, load, false, b6_default_seeds(false));
                      })});
  std::vector<B6Run> r;
  r.reserve(jobs.size());
  for (auto& j : jobs) r.push_back(j.run.get());
  for (size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(std::string(jobs[i].cc) + " at " + std::to_string(jobs[i].load) + "%");
    const double pub = b6_published(jobs[i].cc, jobs[i].load);
    EXPECT_NEAR(r[i].p95_short, pub, 0.3 * pub);
    EXPECT_GE(r[i].short_flows, 250u);
    EXPECT_EQ(r[i].invariants, "");
    EXPECT_EQ(r[i].lossless_drops, 0u);  // PFC is on and correctly sized in every profile
    EXPECT_GT(r[i].completed, r[i].flows * 9 / 10);
  }
  for (size_t i = 0; i < jobs.size(); i += 3) {
    EXPECT_LT(r[i].p95_short * 1.5, r[i + 1].p95_short);  // HPCC against DCTCP
    EXPECT_LT(r[i].p95_short * 1.5, r[i + 2].p95_short);  // and DCQCN
  }
}

}  // namespace
}  // namespace rdmasim
