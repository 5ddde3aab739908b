#include "play/search_player.h"

#include <algorithm>

#include "play/root_solve.h"

namespace othello::play {

mcts::Tree& GameTree::Sync(const core::Game& game, std::size_t capacity) {
  if (!tree_ || synced_ > game.moves().size() || tree_->pool().capacity() < capacity ||
      tree_->root_position() != game.position_at(synced_)) {
    tree_ = std::make_unique<mcts::Tree>(game.position(), capacity);
  } else {
    for (; synced_ < game.moves().size(); ++synced_) tree_->Advance(game.moves()[synced_]);
  }
  synced_ = game.moves().size();
  return *tree_;
}

std::size_t TreeNodesFor(std::uint64_t visits, double seconds) {
  constexpr std::size_t kUnbounded = std::size_t{4} << 20;
  // Beyond kMaxVisits (a caller that skipped the range check) the product could wrap.
  if (visits == 0 || seconds > 0 || visits > kMaxVisits) return kUnbounded;
  return static_cast<std::size_t>(visits) * 24 + 4096;
}

bool PlaysRawPolicy(std::uint64_t visits, double seconds) { return visits == 1 && seconds == 0; }

SearchPlayerOptions PlaySearch(std::uint64_t visits, double seconds) {
  SearchPlayerOptions options;
  options.visits = visits;
  options.seconds_per_move = seconds;
  options.params.threads = 1;
  options.params.leaves_per_batch = 8;
  const bool raw_policy = PlaysRawPolicy(visits, seconds);
  options.params.solver_empties = raw_policy ? 0 : kPlaySolverEmpties;
  options.root_solve_empties = raw_policy ? 0 : kRootSolve.value;
  options.params.lcb_stdevs = kPlayLcbStdevs;
  return options;
}

SearchPlayer::SearchPlayer(mcts::Evaluator& evaluator, SearchPlayerOptions options)
    : evaluator_(evaluator), options_(std::move(options)) {
  if (options_.tree_nodes == 0) {
    options_.tree_nodes = TreeNodesFor(options_.visits, options_.seconds_per_move);
  }
}

SearchPlayer::~SearchPlayer() = default;

void SearchPlayer::NewGame(const core::Game& game, const std::optional<TimeControl>&) {
  options_.params.rules = game.rules();
  tree_.Reset();
  tree_.Sync(game, options_.tree_nodes);  // allocated now, off the clock (4M nodes take a while)
  MakeRootSolver();  // likewise
}

void SearchPlayer::MakeRootSolver() {
  if (options_.root_solve_empties > 0 && !root_solver_) {
    root_solver_ = std::make_unique<core::Solver>(kRootSolveTableMegabytes);
    root_solver_->SetThreads(options_.params.threads);  // the search's threads solve too
  }
}

PlayedMove SearchPlayer::GenMove(const core::Game& game, const MoveClock& clock) {
  mcts::Tree& tree = tree_.Sync(game, options_.tree_nodes);
  mcts::SearchLimits limits;
  limits.playouts = options_.visits;
  limits.seconds = options_.seconds_per_move;
  if (clock.timed) {
    const double budget = std::max(0.001, clock.Budget(game.position()));
    limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, budget) : budget;
  }
  const int ply = static_cast<int>(game.moves().size());
  mcts::TreeSearch search(tree, evaluator_, options_.params, options_.seed + ply);
  MakeRootSolver();  // (when NewGame was not called)
  last_ = root_solver_ ? SolveOrSearch(search, evaluator_, limits, ply,
                                       options_.root_solve_empties, SolverFor(*root_solver_))
                       : mcts::RunSearch(search, evaluator_, limits, ply);
  PlayedMove move{last_.move, std::nullopt};
  if (last_.exact) move.eval = last_.exact_score;
  return move;
}

}  // namespace othello::play
