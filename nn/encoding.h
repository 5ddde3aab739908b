#pragma once
// Network input: kInputPlanes planes of size x size floats per position, from the side
// to move's point of view:
//   0 its discs            3 the opponent's legal moves
//   1 the opponent's discs 4 ones on the board (the board mask)
//   2 its legal moves      5 constant ones (the bias plane)
// Plane p, square s (= row * size + col) is at index p * size * size + s.
// Thread safety: pure functions.
#include <vector>

#include "core/position.h"

namespace othello::nn {

inline constexpr int kInputPlanes = 6;

// Writes kInputPlanes * size * size floats at `out`.
void EncodePosition(const core::Position& position, float* out);
std::vector<float> EncodePosition(const core::Position& position);

}  // namespace othello::nn
