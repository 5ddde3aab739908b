#pragma once
// The 8 symmetries of a square board (the dihedral group D4), as square maps and as
// bitboard maps. Symmetry s maps square (c, r) of an N x N board to:
//   0 identity (c, r)        4 mirror columns  (N-1-c, r)
//   1 rotate 90 (N-1-r, c)   5 mirror rows     (c, N-1-r)
//   2 rotate 180             6 transpose       (r, c)
//   3 rotate 270 (r, N-1-c)  7 anti-transpose  (N-1-r, N-1-c)
// Every symmetry preserves the rules, so a position's moves map with its discs.
// 8x8 bitboards use delta swaps; other sizes map square by square.
// Thread safety: pure functions.
#include <cstdint>

#include "core/bitboard.h"
#include "core/position.h"

namespace othello::core {

inline constexpr int kNumSymmetries = 8;

Square TransformSquare(Square sq, int size, int symmetry);  // kPass maps to kPass
Bitboard TransformBits(Bitboard bits, int size, int symmetry);
Position TransformPosition(const Position& position, int symmetry);
// The symmetry that undoes `symmetry`.
int InverseSymmetry(int symmetry);

// Fast 8x8 building blocks.
std::uint64_t Transform8(std::uint64_t bits, int symmetry);

}  // namespace othello::core
