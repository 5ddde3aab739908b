#include "core/perft.h"

#include "core/layout.h"

namespace othello::core {
namespace {

template <class L>
std::uint64_t PerftBits(typename L::Bits player, typename L::Bits opponent, int depth) {
  using G = L;
  using Bits = typename L::Bits;
  const Bits moves = G::Moves(player, opponent);
  if (depth == 1) return moves ? PopCount(moves) : 1;
  if (!moves) {
    if (!G::Moves(opponent, player)) return 1;  // game over: one leaf
    return PerftBits<L>(opponent, player, depth - 1);
  }
  std::uint64_t leaves = 0;
  for (Bits rest = moves; rest; rest &= rest - 1) {
    const Square sq = LowestSquare(rest);
    const Bits flipped = G::Flips(sq, player, opponent);
    leaves += PerftBits<L>(opponent ^ flipped, player ^ flipped ^ (Bits{1} << sq), depth - 1);
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
  return DispatchLayout(position.size(), [&](auto layout) -> std::uint64_t {
    using L = decltype(layout);
    return PerftBits<L>(L::FromBoard(position.player()), L::FromBoard(position.opponent()), depth);
  });
}

}  // namespace othello::core
