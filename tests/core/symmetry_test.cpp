#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/symmetry.h"
#include "tests/core/convert.h"

namespace othello::core {
namespace {

Bitboard RandomBits(Rng& rng, int size) {
  Bitboard b = (Bitboard{rng.Next()} << 64) | rng.Next();
  return b & FullBoard(size);
}

TEST(Symmetry, Fast8x8AgreesWithSquareMaps) {
  Rng rng(/*seed=*/1);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t bits = rng.Next();
    for (int s = 0; s < kNumSymmetries; ++s) {
      std::uint64_t expected = 0;
      ForEachSquare(bits, [&](Square sq) { expected |= std::uint64_t{1} << TransformSquare(sq, 8, s); });
      ASSERT_EQ(Transform8(bits, s), expected) << "symmetry " << s;
    }
  }
}

TEST(Symmetry, NamedMapsOnCorners) {
  // a1 is (0,0); rotating by 90 degrees takes it to h1, by 180 to h8, by 270 to a8.
  const Square a1 = *ParseSquare("a1", 8);
  EXPECT_EQ(SquareName(TransformSquare(a1, 8, 1), 8), "h1");
  EXPECT_EQ(SquareName(TransformSquare(a1, 8, 2), 8), "h8");
  EXPECT_EQ(SquareName(TransformSquare(a1, 8, 3), 8), "a8");
  EXPECT_EQ(SquareName(TransformSquare(*ParseSquare("b1", 8), 8, 6), 8), "a2");
  EXPECT_EQ(TransformSquare(kPass, 8, 3), kPass);
}

TEST(Symmetry, InverseUndoesAndGroupIsClosed) {
  Rng rng(/*seed=*/2);
  for (int size : {4, 6, 8, 10}) {
    const Bitboard bits = RandomBits(rng, size);
    for (int s = 0; s < kNumSymmetries; ++s) {
      EXPECT_EQ(TransformBits(TransformBits(bits, size, s), size, InverseSymmetry(s)), bits);
      for (int t = 0; t < kNumSymmetries; ++t) {
        // The composition of two symmetries is one of the eight.
        const Bitboard twice = TransformBits(TransformBits(bits, size, s), size, t);
        int matches = 0;
        for (int u = 0; u < kNumSymmetries; ++u) matches += TransformBits(bits, size, u) == twice;
        EXPECT_GE(matches, 1);
      }
    }
  }
}

TEST(Symmetry, LegalMovesAndFlipsCommuteWithEverySymmetry) {
  Rng rng(/*seed=*/3);
  for (int size : {4, 6, 8, 10}) {
    Rules rules;
    rules.size = size;
    rules.start = StartKind::kRandom;
    for (int game = 0; game < 30; ++game) {
      rules.random_moves = static_cast<int>(rng.Below(size * size - 4));
      const Position pos = StartPosition(rules, rng.Next());
      for (int s = 0; s < kNumSymmetries; ++s) {
        const Position t = TransformPosition(pos, s);
        ASSERT_EQ(t.LegalMoves(), TransformBits(pos.LegalMoves(), size, s));
        ForEachSquare(pos.LegalMoves(), [&](Square sq) {
          EXPECT_EQ(t.Flips(TransformSquare(sq, size, s)), TransformBits(pos.Flips(sq), size, s));
        });
      }
    }
  }
}

}  // namespace
}  // namespace othello::core
