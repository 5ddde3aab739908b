#include "training/evaluation.h"

#include "mcts/search.h"

namespace othello::training {

const char* BaselineName(Baseline baseline) {
  return baseline == Baseline::kRandom ? "random" : "greedy";
}

core::Square BaselineMove(Baseline baseline, const core::Position& position, core::Rng& rng) {
  const core::Bitboard moves = position.LegalMoves();
  std::vector<core::Square> best;
  int most = -1;
  core::ForEachSquare(moves, [&](core::Square sq) {
    const int flips = baseline == Baseline::kGreedy ? core::PopCount(position.Flips(sq)) : 0;
    if (flips > most) {
      most = flips;
      best.clear();
    }
    if (flips == most) best.push_back(sq);
  });
  return best[rng.Below(static_cast<std::uint32_t>(best.size()))];
}

MatchResult PlayBaseline(mcts::Evaluator& evaluator, const TrainingConfig& config,
                         Baseline baseline, int games, int visits, std::uint64_t seed) {
  mcts::SearchParams params = config.search;
  params.dirichlet_noise = false;
  params.forced_playouts = false;
  params.gumbel = false;
  params.temperature_start = params.temperature_end = 0;
  params.threads = 1;
  params.leaves_per_batch = 8;
  if (visits <= 1) params.solver_empties = 0;
  core::Rules opening = config.rules;
  if (opening.start == core::StartKind::kStandard) {
    opening.start = core::StartKind::kRandom;
    opening.random_moves = 2;
  }
  core::Rng rng(seed);
  MatchResult result;
  for (int g = 0; g < games; ++g) {
    const core::Color model_color = g % 2 == 0 ? core::Color::kBlack : core::Color::kWhite;
    mcts::Tree tree(core::StartPosition(opening, seed + g / 2), 4 * visits * 64 + 1024);
    mcts::TreeSearch search(tree, evaluator, params, nullptr, rng.Next());
    while (!tree.root_position().IsGameOver()) {
      const core::Position& pos = tree.root_position();
      core::Square move = core::kPass;
      if (pos.MustPass()) {
        move = core::kPass;
      } else if (pos.side_to_move() == model_color) {
        mcts::SearchLimits limits;
        limits.visits = static_cast<std::uint64_t>(visits);
        move = mcts::RunSearch(search, evaluator, limits).move;
      } else {
        move = BaselineMove(baseline, pos, rng);
      }
      tree.Advance(move);
    }
    const int margin = core::Score(tree.root_position(), config.rules).MarginFor(model_color);
    (margin > 0 ? result.wins : margin < 0 ? result.losses : result.draws)++;
  }
  return result;
}

}  // namespace othello::training
