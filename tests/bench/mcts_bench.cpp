// Tree-search speed: playouts per second of one thread with the uniform evaluator from
// the 8x8 start (no solver), the setting of `othello-zero bench search`, but timed in
// CPU time over a fixed number of playouts (steadier on a shared machine); and the
// result cache's cost per position in front of the uniform evaluator.
//   build/tests/bench/bench_mcts --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/hash.h"
#include "core/rng.h"
#include "core/rules.h"
#include "mcts/eval_cache.h"

#include "mcts/search.h"

namespace {

using namespace othello;

void BM_SearchPlayouts(benchmark::State& state) {
  const auto playouts = static_cast<std::uint64_t>(state.range(0));
  mcts::UniformEvaluator evaluator;
  mcts::SearchParams params;
  params.solver_empties = 0;
  params.leaves_per_batch = 16;
  const core::Position start = core::Position::Standard(8);
  mcts::Tree tree(start, playouts * 16);  // about 10 children per playout on 8x8
  mcts::SearchLimits limits;
  limits.playouts = playouts;
  for (auto _ : state) {
    tree.Reset(start);
    mcts::TreeSearch search(tree, evaluator, params, /*seed=*/1);
    const mcts::SearchResult r = mcts::RunSearch(search, evaluator, limits);
    benchmark::DoNotOptimize(r.move);
  }
  state.counters["playouts/s"] = benchmark::Counter(static_cast<double>(playouts),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SearchPlayouts)->Arg(20'000)->Arg(300'000)->Unit(benchmark::kMillisecond);

// CachingEvaluator (self-play's 65,536 entries, canonical when the argument is 1) in
// front of the uniform evaluator: batches of 16 positions from random 8x8 games, about
// one in eight seen before (self-play's hit rate), on one thread.
void BM_CachingEvaluator(benchmark::State& state) {
  mcts::UniformEvaluator uniform;
  mcts::CachingEvaluator cached(uniform, 1 << 16, /*canonical=*/state.range(0) == 1);
  core::Rng rng(7);
  std::vector<core::Position> seen;
  core::Position pos = core::Position::Standard(8);
  mcts::EvalBatch batch;
  std::uint64_t positions = 0;
  for (auto _ : state) {
    batch.Clear();
    for (int i = 0; i < 16; ++i) {
      if (!seen.empty() && rng.Below(8) == 0) {
        batch.Add(seen[rng.Below(static_cast<std::uint32_t>(seen.size()))]);
        continue;
      }
      if (pos.IsGameOver()) pos = core::Position::Standard(8);
      pos = pos.Play(core::RandomLegalMove(pos, rng));
      batch.Add(pos);
      if (seen.size() < 4096) seen.push_back(pos);
      else seen[rng.Below(4096)] = pos;
    }
    cached.Evaluate(batch);
    benchmark::DoNotOptimize(batch.output(0).win);
    positions += 16;
  }
  state.counters["positions/s"] =
      benchmark::Counter(static_cast<double>(positions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CachingEvaluator)->Arg(0)->Arg(1);

}  // namespace
