#pragma once
// Perft: the number of leaves of the game tree to a fixed depth, the standard check
// of a move generator. Conventions: a pass counts as a ply, and a finished game
// counts as one leaf at every remaining depth. The last ply is bulk-counted (the
// number of legal moves), so depth-D perft visits the nodes of depth D-1.
// From the 8x8 standard start: 4, 12, 56, 244, 1396, 8200, 55092, 390216, ...
// Thread safety: pure functions.
#include <cstdint>

#include "core/position.h"

namespace othello::core {

std::uint64_t Perft(const Position& position, int depth);

}  // namespace othello::core
