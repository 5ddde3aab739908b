#pragma once
// A position of any supported size, stored relative to the side to move.
//
// Rules it enforces: a move must flank at least one opposing disc in one of the 8
// directions and flips every flanked disc (no chain reaction); a side without a
// legal move passes; the game ends when neither side can move. While any of the
// four central squares is empty (the reversi start), the legal moves are exactly the
// empty central squares, which are filled without flips.
// Thread safety: a value type; const methods are safe from any thread.
#include <cstdint>

#include "core/bitboard.h"

namespace othello::core {

enum class Color : std::int8_t { kBlack = 0, kWhite = 1 };
inline constexpr Color Other(Color c) { return c == Color::kBlack ? Color::kWhite : Color::kBlack; }

class Position {
 public:
  // The empty 8x8 board, black to move.
  Position() = default;
  // player/opponent are the discs of the side to move and of the other side; they
  // must not overlap and must lie on the N x N board (checked by Valid()).
  Position(int size, Bitboard player, Bitboard opponent, Color side_to_move);

  // The standard start: d4/e5 white, d5/e4 black (centre of any size), black to move.
  static Position Standard(int size);
  // The empty board (reversi start), black to move.
  static Position Empty(int size);

  int size() const { return size_; }
  int squares() const { return size_ * size_; }
  Bitboard player() const { return player_; }
  Bitboard opponent() const { return opponent_; }
  Bitboard empties() const { return FullBoard(size_) & ~(player_ | opponent_); }
  Bitboard discs(Color c) const { return c == side_to_move_ ? player_ : opponent_; }
  Color side_to_move() const { return side_to_move_; }
  int DiscCount(Color c) const { return PopCount(discs(c)); }
  int EmptyCount() const { return squares() - PopCount(player_ | opponent_); }

  // True when the size is supported and the discs are on the board and disjoint.
  bool Valid() const;
  // True while a central square is empty (reversi placement phase).
  bool InPlacementPhase() const;

  Bitboard LegalMoves() const;
  bool HasLegalMove() const { return LegalMoves() != 0; }
  // True for a legal square, and for kPass exactly when passing is forced.
  bool IsLegal(Square move) const;
  bool MustPass() const { return !HasLegalMove() && !IsGameOver(); }
  bool IsGameOver() const;
  // Discs the move would flip (0 for an illegal move or a placement).
  Bitboard Flips(Square sq) const;

  // The position after a legal move or kPass (precondition: IsLegal(move)).
  Position Play(Square move) const;

  // 64-bit hash of (size, player, opponent): the same for transposed move orders.
  std::uint64_t Hash() const;

  friend bool operator==(const Position& a, const Position& b) {
    return a.size_ == b.size_ && a.player_ == b.player_ && a.opponent_ == b.opponent_ &&
           a.side_to_move_ == b.side_to_move_;
  }
  friend bool operator!=(const Position& a, const Position& b) { return !(a == b); }

 private:
  Bitboard player_ = 0;
  Bitboard opponent_ = 0;
  std::int8_t size_ = 8;
  Color side_to_move_ = Color::kBlack;
};

// Square index of (column, row), both 0-based.
inline constexpr Square MakeSquare(int size, int col, int row) { return row * size + col; }
// The four central squares of a board.
Bitboard CenterSquares(int size);

}  // namespace othello::core
