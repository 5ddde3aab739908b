#pragma once
// Conversions between the core's Position and the reference Board for differential tests.
#include <vector>

#include "core/position.h"
#include "tests/reference/reference.h"

namespace othello::testing {

inline reference::Board ToReference(const core::Position& pos) {
  reference::Board b;
  b.size = pos.size();
  b.cells.assign(pos.squares(), reference::kEmpty);
  const auto black = pos.discs(core::Color::kBlack), white = pos.discs(core::Color::kWhite);
  for (int sq = 0; sq < pos.squares(); ++sq) {
    if (black & core::Bit(sq)) b.cells[sq] = reference::kBlack;
    if (white & core::Bit(sq)) b.cells[sq] = reference::kWhite;
  }
  b.to_move = pos.side_to_move() == core::Color::kBlack ? reference::kBlack : reference::kWhite;
  return b;
}

inline std::vector<int> Squares(core::Bitboard bits) {
  std::vector<int> out;
  core::ForEachSquare(bits, [&](core::Square sq) { out.push_back(sq); });
  return out;
}

}  // namespace othello::testing
