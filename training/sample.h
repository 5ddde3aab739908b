#pragma once
// One training position and its targets, in a compact fixed-size record (the same on
// disk and in memory): the discs from the side to move's point of view, the policy
// target in 1/65535 steps, the value target (win/draw/loss), the final ownership and
// disc difference, the search value and, where the solver knew it, the exact score.
#include <array>
#include <cstdint>

#include "core/bitboard.h"
#include "core/position.h"

namespace othello::training {

#pragma pack(push, 1)
struct Sample {
  std::uint64_t player[2];    // low and high 64 bits
  std::uint64_t opponent[2];
  std::uint8_t size = 8;
  std::uint8_t has_policy = 0;  // 0 after a fast search: no policy target
  std::uint8_t has_exact = 0;   // exact_score is the solver's
  std::int8_t exact_score = 0;  // final margin for the side to move under perfect play
  std::int8_t final_margin = 0; // final margin of the game actually played
  std::uint16_t wdl[3] = {0, 0, 0};  // value target, sums to 65535
  std::int16_t search_value = 0;     // root Q * 32767
  std::array<std::uint16_t, core::kMaxSquares + 1> policy{};
  std::array<std::int8_t, core::kMaxSquares> ownership{};  // +1 side to move, -1 opponent

  core::Position ToPosition() const;
  void SetPosition(const core::Position& position);
};
#pragma pack(pop)

// Maps the record through symmetry s (discs, policy, ownership) in place.
void TransformSample(Sample& sample, int symmetry);

}  // namespace othello::training
