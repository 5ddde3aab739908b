#pragma once
// Move generation and flips for an N x N board (N even, 4..10) on the smallest
// bitboard that holds it: uint64_t up to 8x8, 128 bits for 10x10. Generic sizes use
// shift-and-mask fills (one masked shift per step, N - 2 steps per direction);
// Geometry<8> forwards to the tuned 8x8 code in board8.h.
// Thread safety: pure functions.
#include <cstdint>
#include <type_traits>

#include "core/bitboard.h"
#include "core/board8.h"

namespace othello::core {

template <int N>
struct Geometry {
  static_assert(N >= kMinSize && N <= kMaxSize && N % 2 == 0, "unsupported board size");
  using Bits = std::conditional_t<(N * N <= 64), std::uint64_t, Bitboard>;

  static constexpr int kSquares = N * N;
  static constexpr Bits kFull = N * N == 64 ? ~Bits{0} : (Bits{1} << (N * N)) - 1;

  static constexpr Bits ColumnMask(int col) {
    Bits m = 0;
    for (int r = 0; r < N; ++r) m |= Bits{1} << (r * N + col);
    return m;
  }
  static constexpr Bits kNotFirstColumn = kFull & ~ColumnMask(0);
  static constexpr Bits kNotLastColumn = kFull & ~ColumnMask(N - 1);

  // Shift one step in direction d (0..7: E, W, S, N, SE, NW, SW, NE; "S" is +N,
  // towards higher rows) dropping squares that wrap or leave the board.
  static constexpr Bits Shift(Bits b, int d) {
    switch (d) {
      case 0: return (b << 1) & kNotFirstColumn;
      case 1: return (b >> 1) & kNotLastColumn;
      case 2: return (b << N) & kFull;
      case 3: return b >> N;
      case 4: return (b << (N + 1)) & kNotFirstColumn;
      case 5: return (b >> (N + 1)) & kNotLastColumn;
      case 6: return (b << (N - 1)) & kNotLastColumn;
      default: return (b >> (N - 1)) & kNotFirstColumn;
    }
  }

  static Bits Moves(Bits player, Bits opponent) {
    if constexpr (N == 8) {
      return board8::Moves(player, opponent);
    } else {
      const Bits empties = kFull & ~(player | opponent);
      Bits moves = 0;
      for (int d = 0; d < 8; ++d) {
        Bits run = Shift(player, d) & opponent;
        for (int i = 0; i < N - 3; ++i) run |= Shift(run, d) & opponent;
        moves |= Shift(run, d);
      }
      return moves & empties;
    }
  }

  static Bits Flips(Square sq, Bits player, Bits opponent) {
    if constexpr (N == 8) {
      return board8::Flips(sq, player, opponent);
    } else {
      Bits flipped = 0;
      const Bits from = Bits{1} << sq;
      for (int d = 0; d < 8; ++d) {
        Bits run = 0;
        Bits x = Shift(from, d);
        while (x & opponent) {
          run |= x;
          x = Shift(x, d);
        }
        if (x & player) flipped |= run;
      }
      return flipped;
    }
  }

  // The four central squares.
  static constexpr Bits kCenter = (Bits{1} << ((N / 2 - 1) * N + N / 2 - 1)) |
                                  (Bits{1} << ((N / 2 - 1) * N + N / 2)) |
                                  (Bits{1} << ((N / 2) * N + N / 2 - 1)) |
                                  (Bits{1} << ((N / 2) * N + N / 2));
};

// Calls fn(std::integral_constant<int, N>{}) for the runtime size; size must be valid.
template <typename Fn>
inline decltype(auto) DispatchSize(int size, Fn&& fn) {
  switch (size) {
    case 4: return fn(std::integral_constant<int, 4>{});
    case 6: return fn(std::integral_constant<int, 6>{});
    case 10: return fn(std::integral_constant<int, 10>{});
    default: return fn(std::integral_constant<int, 8>{});
  }
}

inline bool IsValidSize(int size) {
  return size >= kMinSize && size <= kMaxSize && size % 2 == 0;
}

}  // namespace othello::core
