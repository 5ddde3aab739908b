#pragma once
// The tree search as a player: a number of playouts and/or seconds per move (with a
// time control, a share of the bank), params.threads threads on one tree, the tree kept
// between moves. The evaluator (a network, or a cheap stand-in) is borrowed and may be
// shared by many players in many threads.
// Threads: GenMove() searches on the calling thread or, with params.threads > 1, on
// that many threads it starts and joins before it returns; no thread outlives a call.
// Thread safety: none; one thread drives a player (and a GameTree).
// Lifetime: the evaluator must outlive the player.
#include <memory>
#include <string>

#include "core/solver.h"
#include "mcts/search.h"
#include "play/play_settings.h"
#include "play/player.h"

namespace othello::play {

// A search tree that follows a game: Sync() advances it through the plies played since
// the last call, keeping the searched subtree, and starts a new tree of `capacity` nodes
// when there is none, the game went elsewhere (undo, another game) or the tree is
// smaller than `capacity`.
class GameTree {
 public:
  mcts::Tree& Sync(const core::Game& game, std::size_t capacity);
  void Reset() { tree_.reset(); }

 private:
  std::unique_ptr<mcts::Tree> tree_;
  std::size_t synced_ = 0;  // plies of the game the tree's root has seen
};

// Nodes a tree needs for searches of `visits` playouts (0: unlimited) and `seconds`
// (0: unlimited): room for every playout's expansion, or 4M nodes for timed or
// unlimited searches (and for more than kMaxVisits playouts, which no front end allows).
std::size_t TreeNodesFor(std::uint64_t visits, double seconds);

// Play solves leaves exactly from this many empties (mcts::SearchParams::solver_empties).
inline constexpr int kPlaySolverEmpties = 12;
// Play picks its move by the value's lower confidence bound, this many standard errors
// below the mean (mcts::LcbChoice; its measurement:
// docs/benchmarks.md#levers-measured-with-the-strength-benchmark).
inline constexpr float kPlayLcbStdevs = 2.0f;

struct SearchPlayerOptions {
  std::string name = "mcts";
  mcts::SearchParams params;        // the game's rules replace params.rules
  std::uint64_t visits = kMoveVisits.value;  // playouts per move (0: no playout limit)
  double seconds_per_move = 0;      // 0: no per-move time limit
  std::size_t tree_nodes = 0;       // 0: sized from visits (4M nodes when unbounded)
  int root_solve_empties = kRootSolve.value;  // solve the root from this many empties
  std::uint64_t seed = 1;
};

// Play's search, the one home of its settings: how a trained model plays wherever it
// plays (GameSession, analysis, the arena's model: players, training's evaluations).
// mcts::SearchParams' defaults (its c_puct and first-play urgency, no noise), the move
// by the lower confidence bound (kPlayLcbStdevs), one thread, 8 leaves per batch, the
// exact solver for leaves of at most kPlaySolverEmpties empties (and for the root from
// kRootSolve's default), and `visits` playouts and/or `seconds` per move; 1 playout
// is the raw policy (no solver). Callers set params.rules and may change threads.
SearchPlayerOptions PlaySearch(std::uint64_t visits, double seconds = 0);
// Whether a move of `visits` playouts and `seconds` plays the raw policy (one playout,
// no time: no solver).
bool PlaysRawPolicy(std::uint64_t visits, double seconds);

class SearchPlayer : public Player {
 public:
  SearchPlayer(mcts::Evaluator& evaluator, SearchPlayerOptions options);
  ~SearchPlayer() override;
  std::string name() const override { return options_.name; }
  void NewGame(const core::Game& game, const std::optional<TimeControl>& time) override;
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;

  // The full result of the last GenMove (for hints and analysis); the next replaces it.
  const mcts::SearchResult& last_result() const { return last_; }

 private:
  void MakeRootSolver();  // with root_solve_empties, once

  mcts::Evaluator& evaluator_;
  SearchPlayerOptions options_;
  GameTree tree_;
  std::unique_ptr<core::Solver> root_solver_;  // with root_solve_empties (from NewGame)
  mcts::SearchResult last_;
};

}  // namespace othello::play
