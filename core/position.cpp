#include "core/position.h"

#include <cassert>

#include "core/geometry.h"
#include "core/hash.h"

namespace othello::core {

Position::Position(int size, Bitboard player, Bitboard opponent, Color side_to_move)
    : player_(player),
      opponent_(opponent),
      size_(static_cast<std::int8_t>(size)),
      side_to_move_(side_to_move) {}

Bitboard CenterSquares(int size) {
  const int lo = size / 2 - 1, hi = size / 2;
  return Bit(MakeSquare(size, lo, lo)) | Bit(MakeSquare(size, hi, lo)) |
         Bit(MakeSquare(size, lo, hi)) | Bit(MakeSquare(size, hi, hi));
}

Position Position::Standard(int size) {
  const int lo = size / 2 - 1, hi = size / 2;
  // d4 and e5 white, d5 and e4 black (rows counted from the top).
  const Bitboard white = Bit(MakeSquare(size, lo, lo)) | Bit(MakeSquare(size, hi, hi));
  const Bitboard black = Bit(MakeSquare(size, hi, lo)) | Bit(MakeSquare(size, lo, hi));
  return Position(size, black, white, Color::kBlack);
}

Position Position::Empty(int size) { return Position(size, 0, 0, Color::kBlack); }

bool Position::Valid() const {
  return IsValidSize(size_) && (player_ & opponent_) == 0 &&
         ((player_ | opponent_) & ~FullBoard(size_)) == 0;
}

bool Position::InPlacementPhase() const { return (CenterSquares(size_) & empties()) != 0; }

Bitboard Position::LegalMoves() const {
  if (InPlacementPhase()) return CenterSquares(size_) & empties();
  return DispatchSize(size_, [&](auto n) -> Bitboard {
    using G = Geometry<decltype(n)::value>;
    using Bits = typename G::Bits;
    return G::Moves(static_cast<Bits>(player_), static_cast<Bits>(opponent_));
  });
}

bool Position::IsLegal(Square move) const {
  if (move == kPass) return MustPass();
  if (move < 0 || move >= squares()) return false;
  return (LegalMoves() & Bit(move)) != 0;
}

bool Position::IsGameOver() const {
  if (HasLegalMove()) return false;
  const Position passed(size_, opponent_, player_, Other(side_to_move_));
  return !passed.HasLegalMove();
}

Bitboard Position::Flips(Square sq) const {
  if (InPlacementPhase()) return 0;
  return DispatchSize(size_, [&](auto n) -> Bitboard {
    using G = Geometry<decltype(n)::value>;
    using Bits = typename G::Bits;
    return G::Flips(sq, static_cast<Bits>(player_), static_cast<Bits>(opponent_));
  });
}

Position Position::Play(Square move) const {
  assert(IsLegal(move));
  if (move == kPass) return Position(size_, opponent_, player_, Other(side_to_move_));
  const Bitboard flipped = Flips(move);
  return Position(size_, opponent_ ^ flipped, player_ ^ flipped ^ Bit(move),
                  Other(side_to_move_));
}

std::uint64_t Position::Hash() const {
  return HashBoard(size_, player_, opponent_);
}

}  // namespace othello::core
