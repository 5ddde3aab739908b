#include "core/perft.h"

#include "core/geometry.h"

namespace othello::core {
namespace {

template <int N>
std::uint64_t PerftBits(typename Geometry<N>::Bits player, typename Geometry<N>::Bits opponent,
                        int depth) {
  using G = Geometry<N>;
  using Bits = typename G::Bits;
  const Bits moves = G::Moves(player, opponent);
  if (depth == 1) return moves ? PopCount(moves) : 1;
  if (!moves) {
    if (!G::Moves(opponent, player)) return 1;  // game over: one leaf
    return PerftBits<N>(opponent, player, depth - 1);
  }
  std::uint64_t leaves = 0;
  for (Bits rest = moves; rest; rest &= rest - 1) {
    const Square sq = LowestSquare(rest);
    const Bits flipped = G::Flips(sq, player, opponent);
    leaves += PerftBits<N>(opponent ^ flipped, player ^ flipped ^ (Bits{1} << sq), depth - 1);
  }
  return leaves;
}

}  // namespace

std::uint64_t Perft(const Position& position, int depth) {
  if (depth <= 0) return 1;
  if (position.InPlacementPhase()) {  // reversi start: place on the centre first
    const Bitboard moves = position.LegalMoves();
    std::uint64_t leaves = 0;
    ForEachSquare(moves, [&](Square sq) { leaves += Perft(position.Play(sq), depth - 1); });
    return leaves;
  }
  return DispatchSize(position.size(), [&](auto n) -> std::uint64_t {
    using Bits = typename Geometry<decltype(n)::value>::Bits;
    return PerftBits<decltype(n)::value>(static_cast<Bits>(position.player()),
                                         static_cast<Bits>(position.opponent()), depth);
  });
}

}  // namespace othello::core
