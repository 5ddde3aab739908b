// Self-play's workers end to end (training/self_play.h): the games they play with a
// deterministic evaluator, and how they call it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "core/rng.h"
#include "tests/mcts/hashed_evaluator.h"
#include "training/self_play.h"

namespace othello::training {
namespace {

using mcts::HashedEvaluator;

// A digest of a finished game's samples: every byte of every record (the positions,
// policy targets from the root's visits or Gumbel's improved policy, value targets mixed
// with the search's root values, exact scores, short-term values), in order.
std::uint64_t Digest(const std::vector<Sample>& game) {
  std::uint64_t h = core::Mix64(game.size());
  for (const Sample& s : game) {
    std::uint64_t words[sizeof(Sample) / 8];
    std::memcpy(words, &s, sizeof(Sample));
    for (std::uint64_t w : words) h = core::Mix64(h + w + 0x9e3779b97f4a7c15ULL);
  }
  return h;
}

// The hashed evaluator, publishing a fresh instance of itself to `models` after every
// `every` calls (over all instances): a new model mid-game, at a point that depends only on
// the worker's own sequence of evaluator calls.
class PublishingEvaluator : public HashedEvaluator {
 public:
  struct Shared {
    ModelSource* models = nullptr;
    int every = 0;
    std::atomic<int> calls{0}, published{0};
    std::atomic<std::uint64_t> last_model_calls{0};  // calls of the latest instance
  };
  explicit PublishingEvaluator(Shared& shared) : shared_(shared) {}
  void Submit(mcts::EvalBatch& batch) override {
    HashedEvaluator::Submit(batch);
    if (shared_.published.load() == generation_) shared_.last_model_calls.fetch_add(1);
    if (shared_.every > 0 && ++shared_.calls % shared_.every == 0) {
      shared_.published.fetch_add(1);
      auto next = std::make_shared<PublishingEvaluator>(shared_);
      next->generation_ = shared_.published.load();
      shared_.last_model_calls.store(0);
      shared_.models->Publish(next, shared_.published.load());
    }
  }

 private:
  Shared& shared_;
  int generation_ = 0;
};

// A small 6x6 self-play on one thread: short searches, every root method that draws from
// the search's generator, the solver near the end, resignation with check games.
TrainingConfig SmallSelfPlay(int games_per_thread) {
  TrainingConfig config;
  config.rules.size = 6;
  config.rules.start = core::StartKind::kRandom;  // openings from the worker's generator
  config.rules.random_moves = 2;
  config.search.rules = config.rules;
  config.search.full_visits = 24;
  config.search.fast_visits = 6;
  config.search.full_search_probability = 0.5f;
  config.search.solver_empties = 6;
  config.search.score_utility = 0.1f;
  config.selfplay_threads = 1;
  config.games_per_thread = games_per_thread;
  config.leaves_per_game = 4;
  config.tree_nodes = 1 << 15;
  config.resign = true;
  config.resign_value = -0.25;
  config.resign_check_fraction = 0.3;
  config.value_target_mix = 0.25;  // the search's root values reach the samples
  config.value_lambda = 0.8;
  config.exact_target_empties = 4;
  config.inference.device = "cpu";
  return config;
}

struct Played {
  std::vector<std::uint64_t> games;  // digests, in the order the games finished
  std::uint64_t moves = 0, playouts = 0, resigned = 0;
  std::uint64_t evaluator_calls = 0, round_calls = 0;
  std::uint64_t evaluator_positions = 0, round_positions = 0;
  std::uint64_t exact_roots = 0;  // samples whose exact score is the search's proof
  int published = 0, last_model_calls = 0;
};

// Runs one worker on this thread (seed 7) until `games` games have finished, publishing a
// new model after every `publish_every` evaluator calls (0: never).
Played PlayGames(const TrainingConfig& config, int games, int publish_every) {
  ModelSource models(config.inference, config.rules);
  PublishingEvaluator::Shared shared;
  shared.models = &models;
  shared.every = publish_every;
  models.Publish(std::make_shared<PublishingEvaluator>(shared), /*step=*/0);
  Played played;
  std::atomic<bool> stop{false};
  SelfPlayStats stats;
  SelfPlayWorker worker(
      config, models,
      [&](const std::vector<Sample>& game) {
        played.games.push_back(Digest(game));
        for (const Sample& s : game) {
          played.exact_roots += s.has_exact && s.ToPosition().EmptyCount() >
                                                   config.exact_target_empties;
        }
        if (static_cast<int>(played.games.size()) >= games) stop = true;
      },
      stats, /*seed=*/7);
  worker.Run(stop);
  played.moves = stats.moves.load();
  played.playouts = stats.playouts.load();
  played.resigned = stats.resigned.load();
  played.evaluator_calls = stats.evaluator_calls.load();
  played.round_calls = stats.round_calls.load();
  played.evaluator_positions = stats.evaluator_positions.load();
  played.round_positions = stats.round_positions.load();
  played.published = shared.published.load();
  played.last_model_calls = static_cast<int>(shared.last_model_calls.load());
  return played;
}

std::string HexList(const std::vector<std::uint64_t>& digests) {
  std::ostringstream out;
  for (std::uint64_t d : digests) out << "0x" << std::hex << d << "ULL, ";
  return out.str();
}

// The golden values below were produced by this file's PlayGames() on the code of commit
// 1f0a5a7, before root evaluations joined the search rounds (each search's root was then
// evaluated by a one-position call of its own in TreeSearch::Begin): the file was added,
// and the values recorded, ahead of that change. Built in Release with GCC 12.2
// (-march=native) on x86-64 Debian 12. They hold the search's floating-point results
// (Dirichlet noise, Gumbel draws, temperature), so a platform whose libm rounds
// differently may need them anew, taken there from this file built on 1f0a5a7's code.

// One game at a time: the worker's generator is drawn in the same order whatever the
// rounds, so every game, and the whole stream, is today's; with Gumbel root selection and
// Dirichlet noise (drawn after the root's evaluation), policy surprise weighting (drawn
// from the worker's generator as a game ends), resignations and new models mid-game
// (each a new TreeSearch seeded from the worker's generator).
TEST(SelfPlay, OneGameAtATimePlaysTheSameGames) {
  TrainingConfig config = SmallSelfPlay(/*games_per_thread=*/1);
  config.search.gumbel = true;
  config.search.gumbel_actions = 4;
  config.policy_surprise_weight = 0.5;
  const Played played = PlayGames(config, /*games=*/24, /*publish_every=*/150);
  const std::vector<std::uint64_t> golden = {
      0xde91560a946a5b16ULL, 0xb14dbd63d6e49422ULL, 0x34af5f8774a98bf6ULL, 0x4e50e4cc3034284fULL,
      0x6ef76c33ec7a27cdULL, 0xc0c6f7e733d64ebdULL, 0x3510d9c472aaacc6ULL, 0x3e92732d042588ebULL,
      0x7fe67f01a491fcc8ULL, 0xf1a5e9a951b921d8ULL, 0x56d07393ed0c9a2ULL, 0x34a6e3891c5b6875ULL,
      0xef9c684de4554468ULL, 0x5fee54f9909389b1ULL, 0x55c8d4497810f26aULL, 0xb2ae8790efcd1143ULL,
      0x7f6fa356b597273fULL, 0xb705edb4d9565327ULL, 0xce11912592df8e55ULL, 0xe6d6d9b76bb19c56ULL,
      0x1868210a3d806984ULL, 0x13bdc1123698feffULL, 0x7f8945254ec0b409ULL, 0xe093e5d301d253fULL,
  };
  EXPECT_EQ(played.games, golden) << HexList(played.games);
  EXPECT_EQ(played.moves, 606u);
  EXPECT_EQ(played.playouts, 7676u);
  EXPECT_GT(played.resigned, 0u);
  EXPECT_GT(played.exact_roots, 0u);
  EXPECT_GT(played.published, 1);
}

// Several games at a time: a root evaluated in the round after its search began delays
// that game's moves by a round, so games finish in another order and the worker's
// generator (drawn at each game's start, in finishing order) gives the k-th game started
// the same opening and seed as before. Games are compared as a set: each of the first 30
// games of either stream is among the first 40 of the other.
TEST(SelfPlay, SeveralGamesAtATimePlayTheSameGames) {
  TrainingConfig config = SmallSelfPlay(/*games_per_thread=*/3);
  config.search.forced_playouts = true;
  const Played played = PlayGames(config, /*games=*/40, /*publish_every=*/0);
  const std::vector<std::uint64_t> golden = {
      0xac01b5093dd4d5c5ULL, 0xfaf2abb48e74d638ULL, 0x87e1c3e2d621fd27ULL, 0x7e1dcde7e6d6ccf4ULL,
      0x212d38f4d8bf0d22ULL, 0xe460e97290177597ULL, 0x2a6d4341bfcafc8ULL, 0xc0fe06f4b2ae8a77ULL,
      0xdcdab0a6db3d2fcfULL, 0xc23a800ac1069f46ULL, 0xaaa40e289a0bea60ULL, 0xe8f699a841ef2670ULL,
      0xbb69c3eb66bf2946ULL, 0x5b8083ef00efb142ULL, 0xe1ce769cc65095a7ULL, 0x3aeabf9f5a23bab1ULL,
      0xcb7949f62bec2a82ULL, 0x84330d61684eb8b5ULL, 0x2491f28a8661807aULL, 0x377768ab88c9fa71ULL,
      0x7540362ba468c83dULL, 0xcdebb2a60b8688efULL, 0xc8bdf8e3834a92d9ULL, 0xaafcbbfb1cc424f7ULL,
      0xcbdb2d28406e5b0aULL, 0xd823f6e15398f0a8ULL, 0x2f79158e7d6ea906ULL, 0x525179869299a473ULL,
      0x59130f63483c549aULL, 0x4732c112b1738bd3ULL, 0x894f72217bdf20d3ULL, 0xf58b0fcebd1a5682ULL,
      0xa290a0a8cc06f31cULL, 0xac82ca887e05bee8ULL, 0x76649db142b82126ULL, 0xd01631b48f435192ULL,
      0x92092f7ebe251d8aULL, 0xbdb5dea2b6ba368fULL, 0x3230ec4df91a412aULL, 0x878f5fea69de10fdULL,
  };
  ASSERT_GE(played.games.size(), 40u);
  ASSERT_EQ(golden.size(), 40u) << HexList(played.games);  // a run's first 40
  const std::set<std::uint64_t> all(played.games.begin(), played.games.begin() + 40);
  const std::set<std::uint64_t> all_golden(golden.begin(), golden.end());
  for (int i = 0; i < 30; ++i) {
    EXPECT_TRUE(all.count(golden[i])) << "golden game " << i << " not played";
    EXPECT_TRUE(all_golden.count(played.games[i])) << "game " << i << " not golden";
  }
  EXPECT_GT(played.resigned, 0u);
}

// Every evaluator call of self-play is a search round's: each search's root, after tree
// reuse too, is evaluated in the next round's batch, through new games, resignations,
// new models mid-game (each a new TreeSearch at the game's next move) and roots that the
// solver proves (which need no evaluation).
TEST(SelfPlay, EveryEvaluatorCallIsASearchRounds) {
  TrainingConfig config = SmallSelfPlay(/*games_per_thread=*/4);
  config.search.solver_empties = 8;
  config.exact_target_empties = 0;  // exact scores from the search's proofs alone
  const Played played = PlayGames(config, /*games=*/16, /*publish_every=*/40);
  EXPECT_GT(played.moves, 300u);
  EXPECT_GT(played.round_calls, 0u);
  EXPECT_EQ(played.evaluator_calls, played.round_calls);
  EXPECT_EQ(played.evaluator_positions, played.round_positions);
  EXPECT_GT(played.resigned, 0u);
  EXPECT_GT(played.exact_roots, 0u);
  EXPECT_GT(played.published, 3);
  EXPECT_GT(played.last_model_calls, 0);
}

// Explored side positions join each finished game's samples: every one a sound record
// with a policy target, none of them one of the game's own positions, and the stats
// count them among the positions.
TEST(SelfPlay, ExploredSidePositionsJoinTheGamesSamples) {
  TrainingConfig config = SmallSelfPlay(/*games_per_thread=*/2);
  config.search.full_visits = 64;
  config.search.full_search_probability = 1.0f;
  config.search.gumbel = false;
  config.policy_surprise_weight = 0;
  config.explored_min_visits = 6;
  ModelSource models(config.inference, config.rules);
  models.Publish(std::make_shared<HashedEvaluator>(), /*step=*/0);
  std::atomic<bool> stop{false};
  SelfPlayStats stats;
  std::uint64_t samples = 0, side = 0, games = 0;
  SelfPlayWorker worker(
      config, models,
      [&](const std::vector<Sample>& game) {
        // The game's own records come first, one per position in order (each a legal
        // successor of an earlier one or a new game's start); then the side positions.
        std::set<std::pair<std::uint64_t, std::uint64_t>> own;
        std::size_t i = 0;
        for (; i < game.size() && game[i].has_short_term; ++i) {
          own.insert({game[i].player[0], game[i].opponent[0]});
        }
        for (; i < game.size(); ++i) {
          const Sample& s = game[i];
          EXPECT_FALSE(CheckSample(s, 6).has_value()) << *CheckSample(s, 6);
          EXPECT_EQ(s.has_policy, 1);
          EXPECT_EQ(s.has_short_term, 0);
          EXPECT_EQ(own.count({s.player[0], s.opponent[0]}), 0u);
          ++side;
        }
        samples += game.size();
        if (++games >= 6) stop = true;
      },
      stats, /*seed=*/7);
  worker.Run(stop);
  EXPECT_GT(side, 20u);
  EXPECT_EQ(stats.explored.load(), side);
  EXPECT_EQ(stats.positions.load(), samples);
}

}  // namespace
}  // namespace othello::training
