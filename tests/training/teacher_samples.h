#pragma once
// Training data for the trainer's tests (trainer_test.cpp, distributed_test.cpp).
#include <cstdint>
#include <vector>

#include "core/hash.h"
#include "core/position.h"
#include "core/rng.h"
#include "training/sample.h"

namespace othello::training {

// Positions of random 8x8 games with a learnable teacher: the policy target is the
// lowest legal square (with `random_policy`, the random move played instead: batches
// that differ more), the value target who leads in discs, ownership the discs now.
inline std::vector<Sample> TeacherSamples(int count, std::uint64_t seed,
                                          bool random_policy = false) {
  core::Rng rng(seed);
  std::vector<Sample> samples;
  core::Position position = core::Position::Standard(8);
  while (static_cast<int>(samples.size()) < count) {
    if (position.IsGameOver() || rng.Below(40) == 0) position = core::Position::Standard(8);
    std::vector<core::Square> legal;
    for (core::Square sq = 0; sq < 64; ++sq) {
      if (position.IsLegal(sq)) legal.push_back(sq);
    }
    if (legal.empty()) {
      position = position.Play(core::kPass);
      continue;
    }
    Sample s;
    s.SetPosition(position);
    s.has_policy = 1;
    const core::Square move = legal[rng.Below(static_cast<std::uint32_t>(legal.size()))];
    s.policy[random_policy ? move : legal.front()] = 65535;
    const int lead = position.DiscCount(position.side_to_move()) -
                     position.DiscCount(core::Other(position.side_to_move()));
    s.wdl[lead > 0 ? 0 : lead == 0 ? 1 : 2] = 65535;
    for (core::Square sq = 0; sq < 64; ++sq) {
      const core::Bitboard bit = core::Bit(sq);
      s.ownership[sq] = (position.player() & bit) ? 1 : (position.opponent() & bit) ? -1 : 0;
    }
    s.final_margin = static_cast<std::int8_t>(lead);
    samples.push_back(s);
    position = position.Play(move);
  }
  return samples;
}

}  // namespace othello::training
