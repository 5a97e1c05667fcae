//===- ReuseTest.cpp - sampled reuse distances against an exact LRU stack -===//
//
// runtime/profile/reuse.c, the profile support library's reuse distances:
// with every unit sampled they are exact (checked access by access against
// a naive LRU stack, across compactions and growth; a near hit, under 1,024
// lines, is only known to be near); sampled at the profiled build's
// rate, the misses they give at a cache size are within a few percent of
// the exact count; the memory held stays under its limit (the rate falls);
// owners are asked once and forgotten with their blocks; streams are told
// from scattered accesses.
//
//===----------------------------------------------------------------------===//
#include "reuse.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>
#include <vector>

namespace {

/// Distinct other lines touched since each line's last access: an LRU stack.
class ExactStack {
public:
  /// The distance of an access to \p Line, UINT64_MAX for its first.
  uint64_t access(uint64_t Line) {
    uint64_t D = UINT64_MAX;
    auto It = Where.find(Line);
    if (It != Where.end()) {
      D = 0;
      for (auto L = Stack.begin(); L != It->second; ++L)
        ++D;
      Stack.erase(It->second);
    }
    Stack.push_front(Line);
    Where[Line] = Stack.begin();
    return D;
  }

private:
  std::list<uint64_t> Stack;
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> Where;
};

constexpr uint64_t Base = uint64_t(1) << 32; // an address to start from

/// Nobody owns anything.
uint32_t noOwner(uint64_t, uint64_t *, uint64_t *) { return 0; }

/// Whether \p Got is what an exact LRU stack says, \p Exact: the same
/// from 1,024 lines on (and for first accesses); a near hit only near.
::testing::AssertionResult asExact(uint64_t Got, uint64_t Exact) {
  if (Exact == UINT64_MAX || Exact >= 1024 ? Got == Exact
                                           : Got < 1024 && Got >= Exact)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << Got << ", exactly " << Exact;
}

TEST(Reuse, ExactWhenEveryUnitIsSampled) {
  hm_reuse R;
  // 2^12 slots: 2,867 units held at most, 11,468 stamps: compactions.
  ASSERT_EQ(hm_reuse_init(&R, 12, UINT64_C(1) << 40, 0), 0);
  ExactStack E;
  std::mt19937_64 Rng(1);
  std::uniform_int_distribution<uint64_t> Line(0, 2999);
  unsigned Far = 0;
  for (int I = 0; I < 40000; ++I) {
    uint64_t L = Line(Rng);
    hm_reuse_hit Hit;
    hm_reuse_access(&R, Base + L * 64, noOwner, &Hit);
    uint64_t D = E.access(L);
    ASSERT_TRUE(asExact(Hit.distance, D)) << "access " << I;
    Far += D != UINT64_MAX && D >= 1024;
  }
  EXPECT_GT(Far, 10000u); // most distances were walked for
  EXPECT_GT(R.epoch, 2u); // the stamps were renumbered
  EXPECT_EQ(R.level, 0u); // and the rate never fell
  hm_reuse_fini(&R);
}

TEST(Reuse, TheTableGrowsAsLinesCome) {
  // From 2^12 slots on for 12,000 lines, exact throughout.
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 16, UINT64_C(1) << 40, 0), 0);
  EXPECT_EQ(R.slots_log2, 12u);
  ExactStack E;
  std::mt19937_64 Rng(5);
  std::uniform_int_distribution<uint64_t> Line(0, 11999);
  for (int I = 0; I < 30000; ++I) {
    uint64_t L = Line(Rng);
    hm_reuse_hit Hit;
    hm_reuse_access(&R, Base + L * 64, noOwner, &Hit);
    ASSERT_TRUE(asExact(Hit.distance, E.access(L))) << "access " << I;
  }
  EXPECT_EQ(R.slots_log2, 14u);
  EXPECT_EQ(R.level, 0u);
  hm_reuse_fini(&R);
}

TEST(Reuse, DeeperThanTheDepthCountsAsFirst) {
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 12, 2048, 0), 0);
  ExactStack E;
  std::mt19937_64 Rng(2);
  std::uniform_int_distribution<uint64_t> Line(0, 4999);
  unsigned Cut = 0;
  for (int I = 0; I < 40000; ++I) {
    uint64_t L = Line(Rng);
    hm_reuse_hit Hit;
    hm_reuse_access(&R, Base + L * 64, noOwner, &Hit);
    uint64_t D = E.access(L);
    if (Hit.distance == UINT64_MAX && D != UINT64_MAX) {
      ASSERT_GE(D, 2048u) << "access " << I;
      ++Cut;
    } else {
      ASSERT_TRUE(asExact(Hit.distance, D)) << "access " << I;
    }
  }
  EXPECT_GT(Cut, 0u);
  hm_reuse_fini(&R);
}

/// Misses at a cache of \p Cache lines: accesses at or beyond it.
struct Count {
  uint64_t Misses = 0, Accesses = 0;
};

/// Sweep \p Lines lines \p Sweeps times, every line once per sweep, through
/// a tracker sampling at \p Rate; the misses it estimates for \p Cache.
Count sweeps(hm_reuse &R, uint64_t Lines, int Sweeps, uint64_t Cache) {
  Count C;
  for (int S = 0; S < Sweeps; ++S)
    for (uint64_t L = 0; L < Lines; ++L) {
      uint64_t A = Base + L * 64;
      if (!hm_reuse_sampled(&R, A))
        continue;
      hm_reuse_hit Hit;
      hm_reuse_access(&R, A, noOwner, &Hit);
      C.Accesses += hm_reuse_weight(&R);
      C.Misses += Hit.distance >= Cache ? hm_reuse_weight(&R) : 0;
    }
  return C;
}

TEST(Reuse, SampledMissesMatchTheExactCount) {
  // 20,000 lines swept 10 times: every access misses a cache of 16,384
  // lines (distance 19,999) and hits one of 32,768 (after the first).
  for (uint64_t Cache : {uint64_t(16384), uint64_t(32768)}) {
    hm_reuse R;
    ASSERT_EQ(hm_reuse_init(&R, 16, UINT64_C(1) << 40, HM_RATE_SHIFT), 0);
    Count C = sweeps(R, 20000, 10, Cache);
    double Exact = Cache == 16384 ? 200000 : 20000;
    EXPECT_NEAR(double(C.Misses), Exact, 0.05 * Exact) << Cache;
    EXPECT_NEAR(double(C.Accesses), 200000, 0.05 * 200000);
    hm_reuse_fini(&R);
  }
}

TEST(Reuse, RandomAccessMissRatio) {
  // Uniform accesses over 40,000 lines: an LRU cache of 10,000 lines hits
  // a quarter of them once warm.
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 16, UINT64_C(1) << 40, HM_RATE_SHIFT), 0);
  std::mt19937_64 Rng(3);
  std::uniform_int_distribution<uint64_t> Line(0, 39999);
  uint64_t Misses = 0, All = 0;
  for (int I = 0; I < 4000000; ++I) {
    uint64_t A = Base + Line(Rng) * 64;
    if (!hm_reuse_sampled(&R, A))
      continue;
    hm_reuse_hit Hit;
    hm_reuse_access(&R, A, noOwner, &Hit);
    if (I < 400000)
      continue; // warming up
    All += hm_reuse_weight(&R);
    Misses += Hit.distance >= 10000 ? hm_reuse_weight(&R) : 0;
  }
  EXPECT_NEAR(double(Misses) / double(All), 0.75, 0.04);
  hm_reuse_fini(&R);
}

TEST(Reuse, TheRateFallsToStayWithinTheLimit) {
  // 2^12 slots hold 2,867 units; a million units sampled 1 in 128 are
  // 7,812: the rate must fall twice, and the estimate still holds.
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 12, UINT64_C(1) << 40, HM_RATE_SHIFT), 0);
  Count C = sweeps(R, 2000000, 3, 1000000);
  EXPECT_LE(R.used, R.limit);
  EXPECT_GE(R.level, 2u);
  EXPECT_NEAR(double(C.Accesses), 6e6, 0.1 * 6e6);
  EXPECT_NEAR(double(C.Misses), 6e6, 0.1 * 6e6);
  hm_reuse_fini(&R);
}

/// Two blocks: 7 at [A, A + 72), 9 at [A + 96, A + 200); the resolver
/// counts its calls.
constexpr uint64_t A = Base + 1000 * 64;
unsigned Asked = 0;
uint32_t twoBlocks(uint64_t Addr, uint64_t *Lo, uint64_t *Hi) {
  ++Asked;
  if (Addr >= A && Addr < A + 72) {
    *Lo = A, *Hi = A + 72;
    return 7;
  }
  if (Addr >= A + 96 && Addr < A + 200) {
    *Lo = A + 96, *Hi = A + 200;
    return 9;
  }
  return 0;
}

TEST(Reuse, OwnersAreAskedOnceAndForgottenWithTheirBlock) {
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 12, UINT64_C(1) << 40, 0), 0);
  hm_reuse_hit Hit;
  hm_reuse_access(&R, A + 8, twoBlocks, &Hit);
  EXPECT_EQ(Hit.owner, 7u);
  hm_reuse_access(&R, A + 40, twoBlocks, &Hit); // the same block: not asked
  EXPECT_EQ(Hit.owner, 7u);
  EXPECT_EQ(Asked, 1u);
  // The unit's other line: 8 bytes of block 7 (known from the first
  // answer), a gap, then block 9.
  hm_reuse_access(&R, A + 64 + 4, twoBlocks, &Hit);
  EXPECT_EQ(Hit.owner, 7u);
  EXPECT_EQ(Asked, 1u);
  hm_reuse_access(&R, A + 64 + 40, twoBlocks, &Hit);
  EXPECT_EQ(Hit.owner, 9u);
  hm_reuse_access(&R, A + 64 + 20, twoBlocks, &Hit); // the gap: no block
  EXPECT_EQ(Hit.owner, 0u);
  EXPECT_EQ(Asked, 3u);
  // Block 7 freed and its place made block 9's: asked again.
  hm_reuse_forget(&R, A, A + 72);
  hm_reuse_access(&R, A + 64 + 40, twoBlocks, &Hit); // not forgotten
  EXPECT_EQ(Asked, 3u);
  auto Moved = [](uint64_t, uint64_t *Lo, uint64_t *Hi) -> uint32_t {
    *Lo = A, *Hi = A + 72;
    return 9;
  };
  hm_reuse_access(&R, A + 8, Moved, &Hit);
  EXPECT_EQ(Hit.owner, 9u);
  // Freeing a block never touched holds nothing.
  uint64_t Held = R.used;
  hm_reuse_forget(&R, A + 4096, A + 8192);
  EXPECT_EQ(R.used, Held);
  hm_reuse_fini(&R);
}

TEST(Reuse, StreamsAreToldFromScatteredAccesses) {
  hm_reuse R;
  ASSERT_EQ(hm_reuse_init(&R, 16, UINT64_C(1) << 40, 0), 0);
  // A sweep: the second line of each unit follows its first.
  unsigned Streamed = 0, Lines = 20000;
  for (int S = 0; S < 2; ++S)
    for (uint64_t L = 0; L < Lines; ++L) {
      hm_reuse_hit Hit;
      hm_reuse_access(&R, Base + L * 64, noOwner, &Hit);
      Streamed += S == 1 && Hit.stream;
    }
  EXPECT_EQ(Streamed, Lines / 2);
  // Random lines of another region: hardly ever.
  std::mt19937_64 Rng(4);
  std::uniform_int_distribution<uint64_t> Line(0, 99999);
  unsigned Scattered = 0;
  for (int I = 0; I < 20000; ++I) {
    hm_reuse_hit Hit;
    hm_reuse_access(&R, 2 * Base + Line(Rng) * 64, noOwner, &Hit);
    Scattered += Hit.stream;
  }
  EXPECT_LT(Scattered, 200u);
  hm_reuse_fini(&R);
}

} // namespace
