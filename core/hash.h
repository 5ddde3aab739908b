#pragma once
// Position hashing.
//
// HashBoard mixes the two bitboards with the SplitMix64 finalizer (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): no tables,
// a few multiplies, and every input bit affects every output bit.
// Thread safety: HashBoard is pure.
#include <cstdint>

#include "core/bitboard.h"
#include "core/rng.h"  // Mix64

namespace othello::core {

inline std::uint64_t HashBoard(int size, Bitboard player, Bitboard opponent) {
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  std::uint64_t h = Mix64(static_cast<std::uint64_t>(player) + kGolden * (size + 1));
  h = Mix64(h ^ static_cast<std::uint64_t>(opponent) ^ (h << 7));
  if (size > 8) {
    h = Mix64(h ^ static_cast<std::uint64_t>(player >> 64));
    h = Mix64(h ^ static_cast<std::uint64_t>(opponent >> 64) ^ kGolden);
  }
  return h;
}

}  // namespace othello::core
