#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/stable_vector.h"

namespace rdmasim {
namespace {

// Counts constructions and destructions, so that every element is destroyed
// exactly once.
struct Tracked {
  explicit Tracked(int v, int& live) : value(v), live_(&live) { ++*live_; }
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() { --*live_; }
  int value;
  char pad[600]{};  // over libstdc++'s 512-byte deque node, as a connection is

 private:
  int* live_;
};

// Growing past several chunks moves no element: a reference taken at the
// start still names the same element, and every index reads what was put there.
TEST(StableVector, ElementsKeepTheirAddressesAsItGrows) {
  int live = 0;
  {
    StableVector<Tracked, 2> v;  // chunks of 4: ten elements span three
    std::vector<const Tracked*> where;
    where.reserve(10);
    for (int i = 0; i < 10; ++i) where.push_back(&v.emplace_back(i, live));
    EXPECT_EQ(v.size(), 10U);
    EXPECT_EQ(live, 10);
    for (size_t i = 0; i < 10; ++i) {
      EXPECT_EQ(&v[i], where[i]);
      EXPECT_EQ(v[i].value, static_cast<int>(i));
    }
    int expect = 0;
    for (const Tracked& t : v) EXPECT_EQ(t.value, expect++);
    EXPECT_EQ(expect, 10);

    StableVector<Tracked, 2> moved(std::move(v));
    EXPECT_TRUE(v.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    EXPECT_EQ(&moved[7], where[7]);
    EXPECT_EQ(live, 10);
    moved.clear();
    EXPECT_EQ(live, 0);
    moved.emplace_back(42, live);
    EXPECT_EQ(moved[0].value, 42);
  }
  EXPECT_EQ(live, 0);
}

}  // namespace
}  // namespace rdmasim
