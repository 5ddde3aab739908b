#include "core/rules.h"

#include <array>

#include "core/geometry.h"
#include "core/hash.h"
#include "core/rng.h"

namespace othello::core {
namespace {

constexpr std::array<std::string_view, 4> kStartNames = {"standard", "reversi", "random",
                                                         "handicap"};

Bitboard HandicapCorners(int size, int count) {
  const int last = size - 1;
  const std::array<Square, 4> corners = {MakeSquare(size, 0, 0), MakeSquare(size, last, last),
                                         MakeSquare(size, last, 0), MakeSquare(size, 0, last)};
  Bitboard bits = 0;
  for (int i = 0; i < count; ++i) bits |= Bit(corners[i]);
  return bits;
}

Position RandomOpening(const Position& start, int plies, std::uint64_t seed) {
  Rng rng(seed);
  Position pos = start;
  for (int i = 0; i < plies && !pos.IsGameOver(); ++i) pos = pos.Play(RandomLegalMove(pos, rng));
  return pos;
}

}  // namespace

Square RandomLegalMove(const Position& position, Rng& rng) {
  const Bitboard moves = position.LegalMoves();
  if (!moves) return kPass;
  int pick = static_cast<int>(rng.Below(static_cast<std::uint32_t>(PopCount(moves))));
  Bitboard rest = moves;
  while (pick-- > 0) rest &= rest - 1;
  return LowestSquare(rest);
}

std::optional<Error> ValidateRules(const Rules& rules) {
  if (!IsValidSize(rules.size)) {
    return Error{"board size " + std::to_string(rules.size) +
                 " is not supported (use an even size from 4 to 10)"};
  }
  if (rules.start == StartKind::kRandom &&
      (rules.random_moves < 0 || rules.random_moves > rules.size * rules.size)) {
    return Error{"random opening length " + std::to_string(rules.random_moves) +
                 " is out of range (0.." + std::to_string(rules.size * rules.size) + ")"};
  }
  if (rules.start == StartKind::kHandicap && (rules.handicap < 1 || rules.handicap > 4)) {
    return Error{"handicap " + std::to_string(rules.handicap) +
                 " is out of range (1..4 corner discs)"};
  }
  return std::nullopt;
}

Position StartPosition(const Rules& rules, std::uint64_t seed) {
  switch (rules.start) {
    case StartKind::kReversi:
      return Position::Empty(rules.size);
    case StartKind::kRandom:
      return RandomOpening(Position::Standard(rules.size), rules.random_moves, seed);
    case StartKind::kHandicap: {
      const Position standard = Position::Standard(rules.size);
      const Bitboard corners = HandicapCorners(rules.size, rules.handicap);
      Bitboard black = standard.discs(Color::kBlack), white = standard.discs(Color::kWhite);
      (rules.handicap_side == Color::kBlack ? black : white) |= corners;
      return Position(rules.size, black, white, Color::kBlack);
    }
    case StartKind::kStandard:
      break;
  }
  return Position::Standard(rules.size);
}

std::string DescribeRules(const Rules& rules) {
  return std::to_string(rules.size) + "x" + std::to_string(rules.size) +
         (rules.anti ? " anti-Othello" : "");
}

std::optional<std::string> RulesMismatch(const Rules& trained, const Rules& wanted) {
  if (trained.size == wanted.size && trained.anti == wanted.anti) return std::nullopt;
  return "the model was trained for " + DescribeRules(trained) + ", not " + DescribeRules(wanted);
}

std::string_view StartName(StartKind start) { return kStartNames[static_cast<int>(start)]; }

Result<StartKind> ParseStartKind(std::string_view name) {
  for (std::size_t i = 0; i < kStartNames.size(); ++i) {
    if (name == kStartNames[i]) return static_cast<StartKind>(i);
  }
  return Error{"unknown start '" + std::string(name) +
               "' (expected standard, reversi, random or handicap)"};
}

Outcome Score(const Position& position, const Rules& rules) {
  Outcome outcome;
  outcome.black_discs = position.DiscCount(Color::kBlack);
  outcome.white_discs = position.DiscCount(Color::kWhite);
  int margin = outcome.black_discs - outcome.white_discs;
  if (rules.anti) margin = -margin;
  if (rules.empties_to_winner && margin != 0) {
    const int empties = position.EmptyCount();
    margin += margin > 0 ? empties : -empties;
  }
  outcome.black_margin = margin;
  return outcome;
}

}  // namespace othello::core
