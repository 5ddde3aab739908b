#pragma once
// Fast internal board layouts for the engine's inner loops (perft and the exact
// solver): an N x N board is embedded in a wider grid of `kStride` columns so that
// every size runs on the quickest move generator that holds it.
//
//   6x6 and 4x4  in the corner of an 8x8 board (stride 8, uint64_t): the tuned 8x8
//                code of board8.h runs unchanged, because squares outside the board are
//                always empty: a ray that leaves the board meets an empty square and
//                flips nothing, and moves found outside are masked off (kRegion).
//   8x8          itself (board8.h).
//   10x10        rows of 11 bits in 128 bits (bits 0..109): the 11th column is a guard
//                that is always empty, so shifts need no wrap masks; moves are a
//                Kogge-Stone fill per direction, flips a ray scan per direction.
//
// Internal square index r * kStride + c <-> board square r * N + c (bitboard.h).
// Convert once on entry (FromBoard) and on exit (ToBoardSquare).
// Thread safety: pure functions over constant tables.
#include <cstdint>
#include <type_traits>

#include "core/bitboard.h"
#include "core/board8.h"

#if defined(__AVX512F__) && defined(__AVX512VBMI2__)
#include <immintrin.h>
#define OZ_LAYOUT_AVX512 1
#endif

namespace othello::core {

#if defined(OZ_LAYOUT_AVX512)
// 128-bit boards as (low, high) pairs of 64-bit lanes, four per 512-bit register:
// the 10x10 layout's four axes at once. Shifts by s < 64 carry between the two
// halves of a pair through the concatenating shifts of AVX-512 VBMI2. (The masked
// forms of unpack, broadcast and extract avoid GCC 12's false uninitialised warnings.)
namespace wide {

inline __m512i Shl(__m512i x, __m512i s) {
  return _mm512_shldv_epi64(x, _mm512_maskz_unpacklo_epi64(0xff, _mm512_setzero_si512(), x), s);
}
inline __m512i Shr(__m512i x, __m512i s) {
  return _mm512_shrdv_epi64(x, _mm512_maskz_unpackhi_epi64(0xff, x, _mm512_setzero_si512()), s);
}
inline __m512i Broadcast(Bitboard b) {
  return _mm512_maskz_broadcast_i32x4(0xffff, _mm_set_epi64x(static_cast<long long>(b >> 64),
                                               static_cast<long long>(b)));
}
// OR of the four 128-bit pairs.
inline Bitboard Reduce(__m512i x) {
  const __m256i y = _mm256_or_si256(_mm512_maskz_extracti64x4_epi64(0xf, x, 0), _mm512_maskz_extracti64x4_epi64(0xf, x, 1));
  const __m128i z = _mm_or_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
  return static_cast<Bitboard>(static_cast<std::uint64_t>(_mm_extract_epi64(z, 1))) << 64 |
         static_cast<std::uint64_t>(_mm_cvtsi128_si64(z));
}

}  // namespace wide
#endif

template <int N>
struct Layout {
  static_assert(N >= kMinSize && N <= kMaxSize && N % 2 == 0, "unsupported board size");
  static constexpr int kSize = N;
  static constexpr int kStride = N <= 8 ? 8 : N + 1;
  using Bits = std::conditional_t<(kStride * N <= 64), std::uint64_t, Bitboard>;
  static constexpr int kSquares = N * N;  // playable squares
  static constexpr int kBits = kStride * N;

  static constexpr int Index(int r, int c) { return r * kStride + c; }
  static constexpr Bits At(int r, int c) { return Bits{1} << Index(r, c); }
  static constexpr bool OnBoard(int r, int c) { return r >= 0 && r < N && c >= 0 && c < N; }

  static constexpr Bits MakeRegion() {
    Bits m = 0;
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < N; ++c) m |= At(r, c);
    }
    return m;
  }
  static constexpr Bits kRegion = MakeRegion();

  // Directions 0..7: E, W, S, N, SE, NW, SW, NE ("S" is towards higher rows).
  static constexpr int kDr[8] = {0, 0, 1, -1, 1, -1, 1, -1};
  static constexpr int kDc[8] = {1, -1, 0, 0, 1, -1, -1, 1};
  static constexpr int Delta(int d) { return kDr[d] * kStride + kDc[d]; }

  // Squares that are an on-board step in direction d from an on-board square.
  static constexpr Bits MakeShiftMask(int d) {
    Bits m = 0;
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < N; ++c) {
        if (OnBoard(r + kDr[d], c + kDc[d])) m |= At(r + kDr[d], c + kDc[d]);
      }
    }
    return m;
  }
  struct ShiftMasks {
    Bits m[8];
  };
  static constexpr ShiftMasks MakeShiftMasks() {
    ShiftMasks s{};
    for (int d = 0; d < 8; ++d) s.m[d] = MakeShiftMask(d);
    return s;
  }
  static constexpr ShiftMasks kShiftMasks = MakeShiftMasks();

  // One step in direction d, dropping squares that leave the board.
  static constexpr Bits Shift(Bits b, int d) {
    const int delta = Delta(d);
    return (delta > 0 ? b << delta : b >> -delta) & kShiftMasks.m[d];
  }

  // The squares next to any of `b` (not `b` itself unless adjacent to another).
  static Bits Neighbours(Bits b) {
#if defined(OZ_LAYOUT_AVX512)
    if constexpr (kStride != 8) {  // a guard column: shifts out of the board leave kRegion
      const __m512i x = wide::Broadcast(b), s = WideShifts();
      return wide::Reduce(_mm512_or_si512(wide::Shl(x, s), wide::Shr(x, s))) & kRegion;
    }
#endif
    Bits n = 0;
    for (int d = 0; d < 8; ++d) n |= Shift(b, d);
    return n;
  }

  __attribute__((always_inline)) static Bits Moves(Bits player, Bits opponent) {
    if constexpr (kStride == 8) {
      return board8::Moves(player, opponent) & kRegion;
    } else {
#if defined(OZ_LAYOUT_AVX512)
      return WideMoves(player, opponent) & kRegion & ~(player | opponent);
#else
      return (MovesAlong<1>(player, opponent) | MovesAlong<kStride>(player, opponent) |
              MovesAlong<kStride - 1>(player, opponent) | MovesAlong<kStride + 1>(player, opponent)) &
             kRegion & ~(player | opponent);
#endif
    }
  }

#if defined(OZ_LAYOUT_AVX512)
  // The shifts of the four axes, one per 128-bit pair: E-W, S-N, SW-NE, SE-NW.
  static __m512i WideShifts() {
    return _mm512_set_epi64(kStride + 1, kStride + 1, kStride - 1, kStride - 1, kStride, kStride,
                            1, 1);
  }

  // The runs of opponent discs next to `seed` along the four axes, both ways
  // (Kogge-Stone: one step, then doubling; runs of up to 8).
  __attribute__((always_inline)) static void WideRuns(__m512i seed, __m512i o, __m512i s,
                                                      __m512i* fl, __m512i* fr) {
    const __m512i s2 = _mm512_add_epi64(s, s);
    *fl = _mm512_and_si512(o, wide::Shl(seed, s));
    *fr = _mm512_and_si512(o, wide::Shr(seed, s));
    *fl = _mm512_or_si512(*fl, _mm512_and_si512(o, wide::Shl(*fl, s)));
    *fr = _mm512_or_si512(*fr, _mm512_and_si512(o, wide::Shr(*fr, s)));
    const __m512i ml = _mm512_and_si512(o, wide::Shl(o, s));
    const __m512i mr = wide::Shr(ml, s);
    for (int step = 0; step < 3; ++step) {
      *fl = _mm512_or_si512(*fl, _mm512_and_si512(ml, wide::Shl(*fl, s2)));
      *fr = _mm512_or_si512(*fr, _mm512_and_si512(mr, wide::Shr(*fr, s2)));
    }
  }

  // MovesAlong() for the four axes at once: the squares just past the runs next to
  // the player's discs.
  __attribute__((always_inline)) static Bits WideMoves(Bits player, Bits opponent) {
    const __m512i s = WideShifts();
    __m512i fl, fr;
    WideRuns(wide::Broadcast(player), wide::Broadcast(opponent), s, &fl, &fr);
    return wide::Reduce(_mm512_or_si512(wide::Shl(fl, s), wide::Shr(fr, s)));
  }

  // Flips() for the eight directions at once: from the played square, the run of
  // opponent discs, kept when the square past it holds a player disc.
  __attribute__((always_inline)) static Bits WideFlips(Square sq, Bits player, Bits opponent) {
    const __m512i s = WideShifts();
    const __m512i p = wide::Broadcast(player);
    const __m512i from = wide::Broadcast(Bits{1} << sq);
    __m512i fl, fr;
    WideRuns(from, wide::Broadcast(opponent), s, &fl, &fr);
    // A pair is kept when either half of the square past its run is a player disc.
    const auto pairs = [](__mmask8 k) {
      const unsigned low = (k | k >> 1) & 0x55;
      return static_cast<__mmask8>(low | low << 1);
    };
    const __mmask8 kl = pairs(_mm512_test_epi64_mask(wide::Shl(_mm512_or_si512(fl, from), s), p));
    const __mmask8 kr = pairs(_mm512_test_epi64_mask(wide::Shr(_mm512_or_si512(fr, from), s), p));
    return wide::Reduce(_mm512_or_si512(_mm512_maskz_mov_epi64(kl, fl), _mm512_maskz_mov_epi64(kr, fr)));
  }
#endif

  // Kogge-Stone fill along one axis (both ways): runs of opponent discs of length up to
  // N - 2, grown by doubling; returns the squares just past each run.
  template <int kShift>
  static Bits MovesAlong(Bits player, Bits opponent) {
    Bits fl = opponent & (player << kShift);
    Bits fr = opponent & (player >> kShift);
    fl |= opponent & (fl << kShift);
    fr |= opponent & (fr >> kShift);
    const Bits ml = opponent & (opponent << kShift);
    const Bits mr = ml >> kShift;
    fl |= ml & (fl << (2 * kShift));
    fr |= mr & (fr >> (2 * kShift));
    fl |= ml & (fl << (2 * kShift));
    fr |= mr & (fr >> (2 * kShift));
    if constexpr (N > 8) {  // runs of 7 and 8
      fl |= ml & (fl << (2 * kShift));
      fr |= mr & (fr >> (2 * kShift));
    }
    return (fl << kShift) | (fr >> kShift);
  }

  // Rays from each square in the four directions towards higher bits (up) and lower
  // bits (down), excluding the square.
  struct Rays {
    Bits up[kBits][4];
    Bits down[kBits][4];
  };
  static constexpr Rays MakeRays() {
    Rays rays{};
    constexpr int kUpDirs[4] = {0, 2, 4, 6};  // E, S, SE, SW: towards higher bits
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < N; ++c) {
        for (int i = 0; i < 4; ++i) {
          for (int sign = 1; sign >= -1; sign -= 2) {
            Bits ray = 0;
            const int dr = sign * kDr[kUpDirs[i]], dc = sign * kDc[kUpDirs[i]];
            for (int rr = r + dr, cc = c + dc; OnBoard(rr, cc); rr += dr, cc += dc) {
              ray |= At(rr, cc);
            }
            (sign > 0 ? rays.up : rays.down)[Index(r, c)][i] = ray;
          }
        }
      }
    }
    return rays;
  }

  static Square HighestBit(Bits x) {
    if constexpr (std::is_same_v<Bits, std::uint64_t>) {
      return 63 - __builtin_clzll(x);
    } else {
      const auto hi = static_cast<std::uint64_t>(x >> 64);
      return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(static_cast<std::uint64_t>(x));
    }
  }

  // Discs flipped when `player` plays on the empty square `sq` (0: illegal).
  __attribute__((always_inline)) static Bits Flips(Square sq, Bits player, Bits opponent) {
    if constexpr (kStride == 8) {
      return board8::Flips(sq, player, opponent);
    } else {
#if defined(OZ_LAYOUT_AVX512)
      return WideFlips(sq, player, opponent);
#else
      return RayFlips(sq, player, opponent);
#endif
    }
  }

  // Flips() without AVX-512: for each of the 8 rays from `sq`, the first square that is
  // not an opponent disc (lowest bit upwards, highest bit downwards); when it holds a
  // player disc, the opponent discs before it flip.
  static Bits RayFlips(Square sq, Bits player, Bits opponent) {
    static constexpr Rays kRays = MakeRays();
    Bits flipped = 0;
    for (int i = 0; i < 4; ++i) {
      const Bits up = kRays.up[sq][i];
      const Bits x_up = ~opponent & up;
      const Bits first_up = x_up & (0 - x_up);
      if (first_up & player) flipped |= (first_up - 1) & up;
      const Bits down = kRays.down[sq][i];
      const Bits x_dn = ~opponent & down;
      if (x_dn) {
        const Bits first_dn = Bits{1} << HighestBit(x_dn);
        if (first_dn & player) flipped |= (0 - (first_dn << 1)) & down;
      }
    }
    return flipped;
  }

  // Board bitboard (bit r * N + c) -> internal bits, and an internal square back.
  static Bits FromBoard(Bitboard board) {
    if constexpr (kStride == N) {
      return static_cast<Bits>(board);
    } else {
      Bits out = 0;
      const Bitboard row = (Bitboard{1} << N) - 1;
      for (int r = 0; r < N; ++r) out |= static_cast<Bits>((board >> (r * N)) & row) << (r * kStride);
      return out;
    }
  }
  static Bitboard ToBoard(Bits bits) {
    Bitboard out = 0;
    for (Bits rest = bits; rest; rest &= rest - 1) out |= Bit(ToBoardSquare(LowestSquare(rest)));
    return out;
  }
  static constexpr Square ToBoardSquare(Square internal) {
    return internal < 0 ? internal : (internal / kStride) * N + internal % kStride;
  }
};

// Calls fn(Layout<N>{}) for the runtime size; size must be valid.
template <typename Fn>
inline decltype(auto) DispatchLayout(int size, Fn&& fn) {
  switch (size) {
    case 4: return fn(Layout<4>{});
    case 6: return fn(Layout<6>{});
    case 10: return fn(Layout<10>{});
    default: return fn(Layout<8>{});
  }
}

}  // namespace othello::core
