#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/perft.h"
#include "core/rules.h"
#include "core/symmetry.h"
#include "tests/core/convert.h"

namespace othello::core {
namespace {

// Leaf counts from the 8x8 standard start (passes are plies; finished games count
// as one leaf at every remaining depth).
const std::vector<std::uint64_t> kStandardPerft = {
    1,        4,         12,         56,          244,          1396,        8200,
    55092,    390216,    3005288,    24571284,    212258800,    1939886636,  18429641748ULL};

TEST(Perft, StandardStartFastDepths) {
  const Position start = Position::Standard(8);
  for (int depth = 0; depth <= 10; ++depth) {
    EXPECT_EQ(Perft(start, depth), kStandardPerft[depth]) << "depth " << depth;
  }
}

TEST(Perft, StandardStartDepth11) {
  EXPECT_EQ(Perft(Position::Standard(8), 11), kStandardPerft[11]);
}

// Labelled "slow" in CMake (its name): seconds in Release, minutes under sanitizers.
// Depth 13 (18,429,641,748 leaves, ten times depth 12's 1.9 billion; the two took 137 s on
// a first-generation Zen core) is left to `othello-zero perft --depth 13`, whose count
// docs/internals.md gives.
TEST(PerftSlow, StandardStartDepth12) {
  EXPECT_EQ(Perft(Position::Standard(8), 12), kStandardPerft[12]);
}

TEST(Perft, AgreesWithReferenceOnEverySizeAndStart) {
  struct Case {
    int size;
    StartKind start;
    int depth;
  };
  const std::vector<Case> cases = {
      {4, StartKind::kStandard, 12}, {4, StartKind::kReversi, 12},
      {6, StartKind::kStandard, 7},  {6, StartKind::kReversi, 8},
      {8, StartKind::kStandard, 6},  {8, StartKind::kReversi, 7},
      {10, StartKind::kStandard, 5}, {10, StartKind::kReversi, 7},
  };
  for (const Case& c : cases) {
    Rules rules;
    rules.size = c.size;
    rules.start = c.start;
    const Position start = StartPosition(rules);
    for (int depth = 1; depth <= c.depth; ++depth) {
      EXPECT_EQ(Perft(start, depth), reference::Perft(testing::ToReference(start), depth))
          << c.size << "x" << c.size << " " << StartName(c.start) << " depth " << depth;
    }
  }
}

TEST(Perft, FourByFourWholeGameTreeEndsInFinishedGames) {
  // The 4x4 game is short enough that depth 20 reaches the end of every line; past
  // that the count stays constant because finished games count once per depth.
  const Position start = Position::Standard(4);
  EXPECT_EQ(Perft(start, 30), Perft(start, 31));
}

TEST(Perft, InvariantUnderSymmetry) {
  Rules rules;
  rules.start = StartKind::kRandom;
  rules.random_moves = 10;
  for (int size : {6, 8, 10}) {
    rules.size = size;
    const Position pos = StartPosition(rules, /*seed=*/size);
    const std::uint64_t expected = Perft(pos, 4);
    for (int s = 0; s < kNumSymmetries; ++s) {
      EXPECT_EQ(Perft(TransformPosition(pos, s), 4), expected) << size << " sym " << s;
    }
  }
}

}  // namespace
}  // namespace othello::core
