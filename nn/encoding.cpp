#include "nn/encoding.h"

#include <algorithm>

namespace othello::nn {

void EncodePosition(const core::Position& position, float* out) {
  const int size = position.size(), area = size * size;
  std::fill(out, out + kInputPlanes * area, 0.0f);
  const core::Bitboard planes[4] = {
      position.player(), position.opponent(), position.LegalMoves(),
      core::Position(size, position.opponent(), position.player(),
                     core::Other(position.side_to_move()))
          .LegalMoves()};
  for (int p = 0; p < 4; ++p) {
    core::ForEachSquare(planes[p], [&](core::Square sq) { out[p * area + sq] = 1.0f; });
  }
  std::fill(out + 4 * area, out + 6 * area, 1.0f);
}

std::vector<float> EncodePosition(const core::Position& position) {
  std::vector<float> out(kInputPlanes * position.squares());
  EncodePosition(position, out.data());
  return out;
}

}  // namespace othello::nn
