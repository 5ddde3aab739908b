#pragma once
// The 8x8 hot path: legal moves and flips on 64-bit boards relative to the side to
// move (player/opponent), header-only so that perft, the solver and the search inline it.
//
// Moves: a Kogge-Stone style fill per direction (the doubling "get_some_moves" of
// Edax, abulmo/edax-reversi src/board.c), four directions in parallel lanes.
// Flips: for each of the 8 rays from the played square, the first square that is not
// an opponent disc is isolated (lowest bit x & -x on rays towards higher bits, the
// highest bit by leading-zero count on rays towards lower bits); when it holds a
// player disc, the opponent discs before it flip. With AVX-512 (VL + CD, which has a
// 64-bit lzcnt) all eight rays run in two vector registers; otherwise scalar code.
// Thread safety: pure functions over constant tables.
#include <array>
#include <cstdint>

#if defined(__AVX512VL__) && defined(__AVX512CD__)
#include <immintrin.h>
#define OZ_BOARD8_AVX512 1
#elif defined(__AVX2__)
#include <immintrin.h>
#define OZ_BOARD8_AVX2 1
#endif

namespace othello::core::board8 {

using U64 = std::uint64_t;

inline constexpr U64 kNotColumnA = 0xfefefefefefefefeULL;
inline constexpr U64 kNotColumnH = 0x7f7f7f7f7f7f7f7fULL;

namespace detail {

// Rays from each square, excluding the square. Lanes 0..3 run towards higher bits
// (+1 east, +8 down a row, +7 down-left, +9 down-right); lanes 4..7 the opposite ways.
struct Rays {
  alignas(64) U64 up[64][4];
  alignas(64) U64 down[64][4];
};

constexpr Rays MakeRays() {
  Rays rays{};
  constexpr int kDc[4] = {1, 0, -1, 1};
  constexpr int kDr[4] = {0, 1, 1, 1};
  for (int sq = 0; sq < 64; ++sq) {
    for (int d = 0; d < 4; ++d) {
      for (int sign = 1; sign >= -1; sign -= 2) {
        U64 ray = 0;
        int c = sq % 8 + sign * kDc[d], r = sq / 8 + sign * kDr[d];
        for (; c >= 0 && c < 8 && r >= 0 && r < 8; c += sign * kDc[d], r += sign * kDr[d]) {
          ray |= U64{1} << (r * 8 + c);
        }
        (sign > 0 ? rays.up : rays.down)[sq][d] = ray;
      }
    }
  }
  return rays;
}

inline constexpr Rays kRays = MakeRays();

// Squares reached from `player` through runs of `mask` discs, one direction pair.
inline U64 SomeMoves(U64 player, U64 mask, int dir) {
  U64 flip_l = mask & (player << dir);
  U64 flip_r = mask & (player >> dir);
  flip_l |= mask & (flip_l << dir);
  flip_r |= mask & (flip_r >> dir);
  const U64 mask_l = mask & (mask << dir);
  const U64 mask_r = mask_l >> dir;
  flip_l |= mask_l & (flip_l << (dir * 2));
  flip_r |= mask_r & (flip_r >> (dir * 2));
  flip_l |= mask_l & (flip_l << (dir * 2));
  flip_r |= mask_r & (flip_r >> (dir * 2));
  return (flip_l << dir) | (flip_r >> dir);
}

}  // namespace detail

// Legal moves for `player`; player and opponent must not overlap.
__attribute__((always_inline)) inline U64 Moves(U64 player, U64 opponent) {
  const U64 inner = opponent & 0x7e7e7e7e7e7e7e7eULL;
#if defined(OZ_BOARD8_AVX512) || defined(OZ_BOARD8_AVX2)
  const __m256i shift = _mm256_set_epi64x(7, 9, 8, 1);
  const __m256i shift2 = _mm256_add_epi64(shift, shift);
  const __m256i p = _mm256_set1_epi64x(static_cast<long long>(player));
  const __m256i mask =
      _mm256_and_si256(_mm256_set1_epi64x(static_cast<long long>(opponent)),
                       _mm256_set_epi64x(static_cast<long long>(inner),
                                         static_cast<long long>(inner), -1LL,
                                         static_cast<long long>(inner)));
  __m256i fl = _mm256_and_si256(mask, _mm256_sllv_epi64(p, shift));
  __m256i fr = _mm256_and_si256(mask, _mm256_srlv_epi64(p, shift));
  fl = _mm256_or_si256(fl, _mm256_and_si256(mask, _mm256_sllv_epi64(fl, shift)));
  fr = _mm256_or_si256(fr, _mm256_and_si256(mask, _mm256_srlv_epi64(fr, shift)));
  const __m256i ml = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
  const __m256i mr = _mm256_srlv_epi64(ml, shift);
  fl = _mm256_or_si256(fl, _mm256_and_si256(ml, _mm256_sllv_epi64(fl, shift2)));
  fr = _mm256_or_si256(fr, _mm256_and_si256(mr, _mm256_srlv_epi64(fr, shift2)));
  fl = _mm256_or_si256(fl, _mm256_and_si256(ml, _mm256_sllv_epi64(fl, shift2)));
  fr = _mm256_or_si256(fr, _mm256_and_si256(mr, _mm256_srlv_epi64(fr, shift2)));
  __m256i m = _mm256_or_si256(_mm256_sllv_epi64(fl, shift), _mm256_srlv_epi64(fr, shift));
  __m128i m2 = _mm_or_si128(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  m2 = _mm_or_si128(m2, _mm_unpackhi_epi64(m2, m2));
  return static_cast<U64>(_mm_cvtsi128_si64(m2)) & ~(player | opponent);
#else
  const U64 moves = detail::SomeMoves(player, inner, 1) |
                    detail::SomeMoves(player, opponent & 0x00ffffffffffff00ULL, 8) |
                    detail::SomeMoves(player, inner, 7) | detail::SomeMoves(player, inner, 9);
  return moves & ~(player | opponent);
#endif
}

// Discs flipped when `player` plays on empty square `sq` (0 if the move is illegal).
__attribute__((always_inline)) inline U64 Flips(int sq, U64 player, U64 opponent) {
  const auto& up = detail::kRays.up[sq];
  const auto& down = detail::kRays.down[sq];
#if defined(OZ_BOARD8_AVX512)
  const __m256i p = _mm256_set1_epi64x(static_cast<long long>(player));
  const __m256i not_o = _mm256_set1_epi64x(static_cast<long long>(~opponent));
  const __m256i ones = _mm256_set1_epi64x(1);
  // Towards higher bits: the lowest non-opponent square on each ray.
  const __m256i ray_up = _mm256_load_si256(reinterpret_cast<const __m256i*>(up));
  const __m256i x_up = _mm256_and_si256(not_o, ray_up);
  const __m256i first_up = _mm256_and_si256(x_up, _mm256_sub_epi64(_mm256_setzero_si256(), x_up));
  const __mmask8 ok_up = _mm256_test_epi64_mask(first_up, p);
  const __m256i f_up =
      _mm256_maskz_and_epi64(ok_up, _mm256_sub_epi64(first_up, ones), ray_up);
  // Towards lower bits: the highest non-opponent square on each ray.
  const __m256i ray_dn = _mm256_load_si256(reinterpret_cast<const __m256i*>(down));
  const __m256i x_dn = _mm256_and_si256(not_o, ray_dn);
  const __m256i first_dn = _mm256_srlv_epi64(_mm256_set1_epi64x(INT64_MIN), _mm256_lzcnt_epi64(x_dn));
  const __mmask8 ok_dn = _mm256_test_epi64_mask(first_dn, p);
  const __m256i above = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_add_epi64(first_dn, first_dn));
  const __m256i f_dn = _mm256_maskz_and_epi64(ok_dn, above, ray_dn);
  const __m256i f = _mm256_or_si256(f_up, f_dn);
  __m128i f2 = _mm_or_si128(_mm256_castsi256_si128(f), _mm256_extracti128_si256(f, 1));
  f2 = _mm_or_si128(f2, _mm_unpackhi_epi64(f2, f2));
  return static_cast<U64>(_mm_cvtsi128_si64(f2));
#else
  U64 flipped = 0;
  for (int d = 0; d < 4; ++d) {
    const U64 x_up = ~opponent & up[d];
    const U64 first_up = x_up & (0 - x_up);
    if (first_up & player) flipped |= (first_up - 1) & up[d];
    const U64 x_dn = ~opponent & down[d];
    const U64 first_dn = x_dn ? (U64{1} << 63) >> __builtin_clzll(x_dn) : 0;
    if (first_dn & player) flipped |= (0 - (first_dn << 1)) & down[d];
  }
  return flipped;
#endif
}

}  // namespace othello::core::board8
