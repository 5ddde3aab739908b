#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "core/notation.h"
#include "core/symmetry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/eval_cache.h"
#include "mcts/search.h"

namespace othello::mcts {
namespace {

using ::testing::_;
using ::testing::AtLeast;
using ::testing::Invoke;

class MockBackend {
 public:
  MOCK_METHOD(void, Run,
              (const std::vector<const Position*>& positions,
               const std::vector<EvalOutput*>& outputs));
};

void Uniform(const std::vector<const Position*>& positions,
             const std::vector<EvalOutput*>& outputs) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    SetUniformPolicy(*positions[i], *outputs[i]);
    outputs[i]->draw = 1.0f;
  }
}

TEST(BatchingEvaluator, GathersPositionsFromSeveralThreadsAndGames) {
  MockBackend backend;
  std::mutex mutex;
  std::size_t largest = 0;
  std::set<std::uint64_t> roots_in_one_call_max;
  std::size_t most_games_in_one_call = 0;
  EXPECT_CALL(backend, Run(_, _))
      .Times(AtLeast(1))
      .WillRepeatedly(Invoke([&](const std::vector<const Position*>& positions,
                                 const std::vector<EvalOutput*>& outputs) {
        Uniform(positions, outputs);
        std::lock_guard<std::mutex> lock(mutex);
        largest = std::max(largest, positions.size());
        // Games differ by their first move, so count the distinct discs at d3/c4/f5/e6.
        std::set<core::Bitboard> openings;
        for (const Position* p : positions) {
          openings.insert((p->discs(core::Color::kBlack) | p->discs(core::Color::kWhite)) &
                          0x0000102004080000ULL);
        }
        most_games_in_one_call = std::max(most_games_in_one_call, openings.size());
      }));
  BatchingEvaluator evaluator(
      [&](const auto& positions, const auto& outputs) { backend.Run(positions, outputs); },
      /*max_batch=*/64, std::chrono::milliseconds(20));

  // Two threads, each searching two games (one per opening move) with 8 leaves per
  // game and round: a backend call can only exceed 16 positions by merging threads.
  constexpr int kLeaves = 8;
  auto run_thread = [&](int first_opening) {
    SearchParams params;
    params.solver_empties = 0;
    const Position start = Position::Standard(8);
    std::vector<std::unique_ptr<Tree>> trees;
    std::vector<std::unique_ptr<TreeSearch>> searches;
    std::vector<TreeSearch*> raw;
    for (int g = 0; g < 2; ++g) {
      core::Square move = core::LowestSquare(start.LegalMoves());
      for (int k = 0; k < first_opening + g; ++k) {
        move = core::LowestSquare(start.LegalMoves() & ~((core::Bitboard{2} << move) - 1));
      }
      trees.push_back(std::make_unique<Tree>(start.Play(move), 1 << 16));
      searches.push_back(std::make_unique<TreeSearch>(*trees.back(), evaluator, params, nullptr, g));
      SearchLimits limits;
      limits.playouts = 400;
      searches.back()->Begin(limits);
      raw.push_back(searches.back().get());
    }
    RunSearchesBatched(raw, evaluator, kLeaves);
    for (auto* s : raw) EXPECT_EQ(s->Finish(0).playouts, 400u);
  };
  std::thread a(run_thread, 0), b(run_thread, 2);
  a.join();
  b.join();
  EXPECT_GT(largest, 2u * kLeaves);          // more than one thread's round
  EXPECT_GE(most_games_in_one_call, 3u);     // games of both threads in one call
  EXPECT_GT(evaluator.positions_evaluated(), evaluator.backend_calls());
}

TEST(BatchingEvaluator, BackendErrorsReachTheWaiter) {
  BatchingEvaluator evaluator(
      [](const auto&, const auto&) { throw std::runtime_error("backend exploded"); },
      /*max_batch=*/8, std::chrono::microseconds(100));
  EvalBatch batch;
  batch.Add(Position::Standard(8));
  EXPECT_THROW(
      {
        try {
          evaluator.Evaluate(batch);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "backend exploded");
          throw;
        }
      },
      std::runtime_error);
}

TEST(BatchingEvaluator, SplitsBatchesLargerThanTheMaximum) {
  std::atomic<int> calls{0};
  BatchingEvaluator evaluator(
      [&](const auto& positions, const auto& outputs) {
        EXPECT_LE(positions.size(), 5u);
        ++calls;
        Uniform(positions, outputs);
      },
      /*max_batch=*/5, std::chrono::microseconds(100));
  EvalBatch batch;
  for (int i = 0; i < 12; ++i) batch.Add(Position::Standard(8));
  evaluator.Evaluate(batch);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_FLOAT_EQ(batch.output(11).policy[19], 0.25f);  // d3
}

TEST(EvalCache, CanonicalEntriesServeEverySymmetricPosition) {
  EvalCache cache(1024, /*canonical=*/true);
  Position pos = Position::Standard(8);
  pos = pos.Play(*core::ParseSquare("f5", 8)).Play(*core::ParseSquare("d6", 8));
  EvalOutput out;
  SetUniformPolicy(pos, out);
  out.policy[*core::ParseSquare("c3", 8)] = 0.7f;
  out.win = 0.6f;
  cache.Insert(pos, out);
  for (int s = 0; s < core::kNumSymmetries; ++s) {
    const Position t = core::TransformPosition(pos, s);
    EvalOutput got;
    ASSERT_TRUE(cache.Lookup(t, got)) << "symmetry " << s;
    EXPECT_NEAR(got.win, 0.6f, 1e-6);
    const core::Square c3 = core::TransformSquare(*core::ParseSquare("c3", 8), 8, s);
    EXPECT_NEAR(got.policy[c3], 0.7f, 1e-4) << "symmetry " << s;
  }
  EvalCache plain(1024, /*canonical=*/false);
  plain.Insert(pos, out);
  EvalOutput got;
  EXPECT_TRUE(plain.Lookup(pos, got));
  EXPECT_FALSE(plain.Lookup(core::TransformPosition(pos, 2), got));
  EXPECT_EQ(plain.hits(), 1u);
  EXPECT_EQ(plain.misses(), 1u);
}

TEST(RolloutEvaluator, ValueReflectsTheGame) {
  // Black has a won endgame whatever happens: one empty square, black far ahead.
  const Position pos = *core::ParseBoardString(std::string(62, 'X') + "O- X");
  RolloutEvaluator eval(8, false, 1);
  EvalBatch batch;
  batch.Add(pos);
  eval.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.output(0).win, 1.0f);
  RolloutEvaluator anti(8, /*anti=*/true, 1);
  anti.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.output(0).loss, 1.0f);
}

}  // namespace
}  // namespace othello::mcts
