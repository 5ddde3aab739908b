#pragma once
// Bitboard basics shared by every board size.
//
// Square <-> bit mapping (all sizes): column c (0 = 'a', left to right) and row r
// (0 = '1', top to bottom) map to bit r * N + c of an N x N board. On 8x8 that is
// a1 = bit 0, h1 = bit 7, a2 = bit 8 ... h8 = bit 63. Boards up to 8x8 fit a
// uint64_t; 10x10 needs 100 bits, so the size-independent container is 128 bits.
#include <cstdint>

namespace othello::core {

// Size-independent bitboard (bits >= N*N are always zero).
using Bitboard = unsigned __int128;

// A square index r * N + c, or kPass.
using Square = int;
inline constexpr Square kPass = -1;
inline constexpr int kMinSize = 4;
inline constexpr int kMaxSize = 10;
inline constexpr int kMaxSquares = kMaxSize * kMaxSize;

inline constexpr Bitboard Bit(Square sq) { return Bitboard{1} << sq; }

inline int PopCount(std::uint64_t b) { return __builtin_popcountll(b); }
inline int PopCount(Bitboard b) {
  return __builtin_popcountll(static_cast<std::uint64_t>(b)) +
         __builtin_popcountll(static_cast<std::uint64_t>(b >> 64));
}

// Index of the lowest set bit; b must be non-zero.
inline Square LowestSquare(std::uint64_t b) { return __builtin_ctzll(b); }
inline Square LowestSquare(Bitboard b) {
  const auto lo = static_cast<std::uint64_t>(b);
  return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<std::uint64_t>(b >> 64));
}

// Calls fn(square) for each set bit, lowest first.
template <typename Bits, typename Fn>
inline void ForEachSquare(Bits b, Fn&& fn) {
  while (b) {
    fn(LowestSquare(b));
    b &= b - 1;
  }
}

// All squares of an N x N board.
inline constexpr Bitboard FullBoard(int size) {
  return size * size == 128 ? ~Bitboard{0} : (Bitboard{1} << (size * size)) - 1;
}

}  // namespace othello::core
