#pragma once
// Quick strength checks during training: the current model (a search with a few
// playouts, no noise, the most visited move) against the random player and the greedy
// player (most flips, ties at random). Colours alternate game by game and each game
// starts from a few random plies, so the games differ.
// Thread safety: one call per thread; the evaluator may be shared.
#include <cstdint>
#include <string>

#include "mcts/evaluator.h"
#include "training/config.h"

namespace othello::training {

enum class Baseline { kRandom, kGreedy };
const char* BaselineName(Baseline baseline);

struct MatchResult {
  int wins = 0, draws = 0, losses = 0;
  double Score() const {
    const int n = wins + draws + losses;
    return n ? (wins + 0.5 * draws) / n : 0.0;
  }
};

// The baseline's move in `position` (which must have a legal move).
core::Square BaselineMove(Baseline baseline, const core::Position& position, core::Rng& rng);

// With visits == 1 the model plays its raw policy (the move of highest prior) and
// never calls the endgame solver: the network alone.
MatchResult PlayBaseline(mcts::Evaluator& evaluator, const TrainingConfig& config,
                         Baseline baseline, int games, int visits, std::uint64_t seed);

}  // namespace othello::training
