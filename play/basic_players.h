#pragma once
// Built-in opponents without a network: the random player, the greedy player (the move
// that flips most discs) and an alpha-beta player with a classic evaluation. Ties are
// broken at random (seeded), so repeated games differ.
//
// The classic evaluation, from the side to move's view: positional square weights
// (corners high, the squares next to an empty corner low, edges above the inside), mobility,
// corners held, and stable discs (edge runs anchored on an owned corner); a finished
// game scores its final margin, far above any heuristic value.
// Thread safety: one thread per player object.
#include <string>

#include "core/hash.h"
#include "core/rng.h"
#include "play/player.h"

namespace othello::play {

class RandomPlayer : public Player {
 public:
  explicit RandomPlayer(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;

 private:
  core::Rng rng_;
};

class GreedyPlayer : public Player {
 public:
  explicit GreedyPlayer(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "greedy"; }
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;

 private:
  core::Rng rng_;
};

// The greedy move (most flips, ties at random) in a position with a legal move.
core::Square GreedyMove(const core::Position& position, core::Rng& rng);

// The classic evaluation of a position for its side to move (not a finished game).
int ClassicEvaluation(const core::Position& position);

class AlphaBetaPlayer : public Player {
 public:
  // depth >= 1 plies; anti-Othello games are searched with the sign of the margin
  // turned round at the end but the heuristic unchanged (a weak player there).
  // solve_empties > 0: from that many empties on, the exact solver plays (perfectly)
  // instead of the depth-limited search.
  AlphaBetaPlayer(int depth, std::uint64_t seed, int solve_empties = 0)
      : depth_(depth), solve_empties_(solve_empties), rng_(seed) {}
  // "alphabeta8", or "alphabeta8-solve16" with the solver.
  std::string name() const override { return AlphaBetaName(depth_, solve_empties_); }
  static std::string AlphaBetaName(int depth, int solve_empties) {
    return "alphabeta" + std::to_string(depth) +
           (solve_empties > 0 ? "-solve" + std::to_string(solve_empties) : "");
  }
  void NewGame(const core::Game& game, const std::optional<TimeControl>& time) override;
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;

 private:
  int Search(const core::Position& position, int depth, int alpha, int beta);

  int depth_;
  int solve_empties_;
  core::Rules rules_;
  core::Rng rng_;
};

}  // namespace othello::play
