// Tree-search speed: playouts per second of one thread with the uniform evaluator from
// the 8x8 start (no solver), the setting of `othello-zero bench search`, but timed in
// CPU time over a fixed number of playouts (steadier on a shared machine).
//   build/tests/bench/bench_mcts --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <cstdint>

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

}  // namespace
