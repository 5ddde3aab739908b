#pragma once
// What several nn tests share: a tiny network and positions from random openings.
#include <cstdint>
#include <vector>

#include "core/rules.h"
#include "nn/net_config.h"

namespace othello::nn::test {

// A 2x16 network: seconds to build and run on the CPU.
inline NetConfig TinyNet() {
  NetConfig c;
  c.blocks = 2;
  c.channels = 16;
  c.head_channels = 8;
  c.value_hidden = 16;
  return c;
}

// `count` positions of a size x size board, each after 2 or more random opening moves.
inline std::vector<core::Position> RandomPositions(int count, int size, std::uint64_t seed) {
  core::Rules rules;
  rules.size = size;
  rules.start = core::StartKind::kRandom;
  std::vector<core::Position> out;
  for (int i = 0; i < count; ++i) {
    rules.random_moves = 2 + i % (size * size - 8);
    out.push_back(core::StartPosition(rules, seed + i));
  }
  return out;
}

}  // namespace othello::nn::test
