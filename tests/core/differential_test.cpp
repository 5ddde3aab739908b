// The fast bitboard core against the square-by-square reference (tests/reference) on
// many random games and random positions of every size, start and scoring rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/geometry.h"
#include "core/hash.h"
#include "core/layout.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/rules.h"
#include "tests/core/convert.h"

namespace othello::core {
namespace {

using testing::Squares;
using testing::ToReference;

std::vector<int> Sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Checks moves, flips, passes and game end of one position against the reference.
void ExpectSameRules(const Position& pos) {
  const reference::Board ref = ToReference(pos);
  const std::string where = FormatBoardString(pos);
  ASSERT_EQ(Squares(pos.LegalMoves()), reference::LegalMoves(ref)) << where;
  ASSERT_EQ(pos.IsGameOver(), reference::GameOver(ref)) << where;
  for (Square sq : Squares(pos.LegalMoves())) {
    if (!pos.InPlacementPhase()) {
      ASSERT_EQ(Squares(pos.Flips(sq)), Sorted(reference::Flips(ref, sq)))
          << where << " move " << SquareName(sq, pos.size());
    }
    ASSERT_EQ(ToReference(pos.Play(sq)).cells, reference::Play(ref, sq).cells)
        << where << " move " << SquareName(sq, pos.size());
  }
}

struct Variant {
  int size;
  StartKind start;
};

std::vector<Variant> AllVariants() {
  std::vector<Variant> out;
  for (int size : {4, 6, 8, 10}) {
    for (StartKind s : {StartKind::kStandard, StartKind::kReversi, StartKind::kRandom,
                        StartKind::kHandicap}) {
      out.push_back({size, s});
    }
  }
  return out;
}

TEST(Differential, RandomGamesOfEverySizeStartAndScoring) {
  Rng rng(/*seed=*/12345);
  for (const Variant& v : AllVariants()) {
    for (int game = 0; game < 40; ++game) {
      Rules rules;
      rules.size = v.size;
      rules.start = v.start;
      rules.random_moves = static_cast<int>(rng.Below(12));
      rules.handicap = 1 + static_cast<int>(rng.Below(4));
      rules.handicap_side = rng.Below(2) ? Color::kBlack : Color::kWhite;
      rules.anti = rng.Below(2);
      rules.empties_to_winner = rng.Below(2);
      ASSERT_FALSE(ValidateRules(rules).has_value());
      Position pos = StartPosition(rules, rng.Next());
      while (true) {
        ExpectSameRules(pos);
        if (::testing::Test::HasFatalFailure()) return;
        if (pos.IsGameOver()) break;
        const std::vector<int> moves = Squares(pos.LegalMoves());
        pos = pos.Play(moves.empty() ? kPass : moves[rng.Below(moves.size())]);
      }
      EXPECT_EQ(Score(pos, rules).black_margin,
                reference::BlackMargin(ToReference(pos), rules.anti, rules.empties_to_winner))
          << FormatBoardString(pos);
    }
  }
}

template <int N>
void CheckRandomBoards(Rng& rng, int count) {
  using G = Geometry<N>;
  using Bits = typename G::Bits;
  using L = Layout<N>;  // the solver's and perft's embedded layout
  for (int i = 0; i < count; ++i) {
    // Random discs at a random density, so that sparse, dense and lopsided boards occur.
    const std::uint32_t density = 1 + rng.Below(15);
    Bits player = 0, opponent = 0;
    for (int sq = 0; sq < N * N; ++sq) {
      const std::uint32_t r = rng.Below(16);
      if (r < density) ((rng.Below(2)) ? player : opponent) |= Bits{1} << sq;
    }
    const Position pos(N, player, opponent, Color::kBlack);
    const reference::Board ref = ToReference(pos);
    std::vector<int> expected_moves;
    for (int sq = 0; sq < N * N; ++sq) {
      if (ref.cells[sq] != reference::kEmpty) continue;
      const std::vector<int> flips = Sorted(reference::Flips(ref, sq));
      if (!flips.empty()) expected_moves.push_back(sq);
      ASSERT_EQ(Squares(G::Flips(sq, player, opponent)), flips)
          << FormatBoardString(pos) << " at " << SquareName(sq, N);
      const Square internal = L::Index(sq / N, sq % N);
      ASSERT_EQ(L::ToBoardSquare(internal), sq);
      ASSERT_EQ(Squares(L::ToBoard(L::Flips(internal, L::FromBoard(player), L::FromBoard(opponent)))),
                flips)
          << FormatBoardString(pos) << " at " << SquareName(sq, N) << " (layout)";
    }
    ASSERT_EQ(Squares(G::Moves(player, opponent)), expected_moves) << FormatBoardString(pos);
    ASSERT_EQ(Squares(L::ToBoard(L::Moves(L::FromBoard(player), L::FromBoard(opponent)))),
              expected_moves)
        << FormatBoardString(pos) << " (layout)";
    ASSERT_EQ(L::ToBoard(L::FromBoard(player)), Bitboard{player});
  }
}

TEST(Differential, RandomBoardsMovesAndFlips) {
  Rng rng(/*seed=*/777);
  CheckRandomBoards<4>(rng, 3000);
  CheckRandomBoards<6>(rng, 3000);
  CheckRandomBoards<8>(rng, 10000);
  CheckRandomBoards<10>(rng, 3000);
}

TEST(Differential, HashDiffersAcrossManyPositionsAndIgnoresMoveOrder) {
  // Transposition: two move orders reaching one position give one hash.
  const Position start = Position::Standard(8);
  auto a = ParseTranscript("d3c3b3d6e6", start);
  auto b = ParseTranscript("d3c3e6d6b3", start);
  ASSERT_TRUE(a.ok() && b.ok());
  Position pa = start, pb = start;
  for (Square sq : *a) pa = pa.Play(sq);
  for (Square sq : *b) pb = pb.Play(sq);
  ASSERT_EQ(pa, pb);
  EXPECT_EQ(pa.Hash(), pb.Hash());

  // No two distinct positions among thousands share a hash.
  Rng rng(/*seed=*/99);
  std::unordered_map<std::uint64_t, Position> seen;
  for (int size : {6, 8, 10}) {
    for (int game = 0; game < 50; ++game) {
      Position pos = Position::Standard(size);
      while (!pos.IsGameOver()) {
        const auto [it, inserted] = seen.emplace(pos.Hash(), pos);
        ASSERT_TRUE(inserted || (it->second.size() == pos.size() && it->second.player() == pos.player() &&
                                     it->second.opponent() == pos.opponent()))
            << FormatBoardString(pos) << " collides with " << FormatBoardString(it->second);
        const std::vector<int> moves = Squares(pos.LegalMoves());
        pos = pos.Play(moves.empty() ? kPass : moves[rng.Below(moves.size())]);
      }
    }
  }
  EXPECT_GT(seen.size(), 5000u);
  EXPECT_NE(Position::Standard(6).Hash(), Position::Standard(8).Hash());
}

}  // namespace
}  // namespace othello::core
