#include "core/symmetry.h"

#include <cassert>

namespace othello::core {
namespace {

std::uint64_t MirrorColumns8(std::uint64_t x) {
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  return ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
}

std::uint64_t MirrorRows8(std::uint64_t x) { return __builtin_bswap64(x); }

std::uint64_t Transpose8(std::uint64_t x) {
  std::uint64_t t = 0x0f0f0f0f00000000ULL & (x ^ (x << 28));
  x ^= t ^ (t >> 28);
  t = 0x3333000033330000ULL & (x ^ (x << 14));
  x ^= t ^ (t >> 14);
  t = 0x5500550055005500ULL & (x ^ (x << 7));
  return x ^ t ^ (t >> 7);
}

}  // namespace

std::uint64_t Transform8(std::uint64_t b, int symmetry) {
  switch (symmetry) {
    case 0: return b;
    case 1: return MirrorColumns8(Transpose8(b));
    case 2: return MirrorRows8(MirrorColumns8(b));
    case 3: return Transpose8(MirrorColumns8(b));
    case 4: return MirrorColumns8(b);
    case 5: return MirrorRows8(b);
    case 6: return Transpose8(b);
    default: return MirrorRows8(MirrorColumns8(Transpose8(b)));
  }
}

Square TransformSquare(Square sq, int size, int symmetry) {
  if (sq == kPass) return kPass;
  const int c = sq % size, r = sq / size, m = size - 1;
  switch (symmetry) {
    case 0: return MakeSquare(size, c, r);
    case 1: return MakeSquare(size, m - r, c);
    case 2: return MakeSquare(size, m - c, m - r);
    case 3: return MakeSquare(size, r, m - c);
    case 4: return MakeSquare(size, m - c, r);
    case 5: return MakeSquare(size, c, m - r);
    case 6: return MakeSquare(size, r, c);
    default: return MakeSquare(size, m - r, m - c);
  }
}

Bitboard TransformBits(Bitboard bits, int size, int symmetry) {
  assert(symmetry >= 0 && symmetry < kNumSymmetries);
  if (size == 8) return Transform8(static_cast<std::uint64_t>(bits), symmetry);
  Bitboard out = 0;
  ForEachSquare(bits, [&](Square sq) { out |= Bit(TransformSquare(sq, size, symmetry)); });
  return out;
}

Position TransformPosition(const Position& position, int symmetry) {
  const int size = position.size();
  return Position(size, TransformBits(position.player(), size, symmetry),
                  TransformBits(position.opponent(), size, symmetry), position.side_to_move());
}

int InverseSymmetry(int symmetry) {
  if (symmetry == 1) return 3;
  if (symmetry == 3) return 1;
  return symmetry;
}

}  // namespace othello::core
