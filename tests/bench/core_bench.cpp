// Game-core speed: perft (leaves per second), move generation and flips.
//   build/tests/bench/bench_core --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/board8.h"
#include "core/hash.h"
#include "core/layout.h"
#include "core/notation.h"
#include "core/perft.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/solver.h"
#include "core/symmetry.h"

namespace {

using namespace othello::core;

void BM_Perft(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  const int size = static_cast<int>(state.range(1));
  const Position start = Position::Standard(size);
  std::uint64_t leaves = 0;
  for (auto _ : state) {
    leaves = Perft(start, depth);
    benchmark::DoNotOptimize(leaves);
  }
  state.counters["leaves/s"] =
      benchmark::Counter(static_cast<double>(leaves), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Perft)->Args({12, 8})->Args({10, 8})->Args({9, 6})->Args({6, 10})
    ->Args({12, 6})->Args({10, 10})->Unit(benchmark::kMillisecond)->UseRealTime();

// Positions from random games, for the per-call benchmarks.
std::vector<Position> SamplePositions() {
  Rules rules;
  rules.start = StartKind::kRandom;
  std::vector<Position> out;
  for (int i = 0; i < 1024; ++i) {
    rules.random_moves = 4 + i % 50;
    out.push_back(StartPosition(rules, static_cast<std::uint64_t>(i)));
  }
  return out;
}

void BM_Moves8(benchmark::State& state) {
  const auto positions = SamplePositions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = positions[i++ & 1023];
    benchmark::DoNotOptimize(board8::Moves(static_cast<std::uint64_t>(p.player()),
                                           static_cast<std::uint64_t>(p.opponent())));
  }
}
BENCHMARK(BM_Moves8);

void BM_Flips8(benchmark::State& state) {
  const auto positions = SamplePositions();
  std::vector<std::pair<int, Position>> moves;
  for (const Position& p : positions) {
    ForEachSquare(static_cast<std::uint64_t>(p.LegalMoves()), [&](int sq) { moves.emplace_back(sq, p); });
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& [sq, p] = moves[i++ % moves.size()];
    benchmark::DoNotOptimize(board8::Flips(sq, static_cast<std::uint64_t>(p.player()),
                                           static_cast<std::uint64_t>(p.opponent())));
  }
}
BENCHMARK(BM_Flips8);

// The layouts of the other sizes (core/layout.h): moves and flips per call, on 1024
// positions of random games of size N.
template <int N>
std::vector<Position> RandomPositions(int count) {
  Rules rules;
  rules.size = N;
  rules.start = StartKind::kRandom;
  std::vector<Position> out;
  for (int i = 0; i < count; ++i) {
    rules.random_moves = 4 + i % (N * N - 14);
    out.push_back(StartPosition(rules, static_cast<std::uint64_t>(i)));
  }
  return out;
}

template <int N>
void BM_LayoutMoves(benchmark::State& state) {
  using L = Layout<N>;
  std::vector<std::pair<typename L::Bits, typename L::Bits>> boards;
  for (const Position& p : RandomPositions<N>(1024)) {
    boards.emplace_back(L::FromBoard(p.player()), L::FromBoard(p.opponent()));
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& [player, opponent] = boards[i++ & 1023];
    benchmark::DoNotOptimize(L::Moves(player, opponent));
  }
}
BENCHMARK(BM_LayoutMoves<6>);
BENCHMARK(BM_LayoutMoves<10>);

template <int N>
void BM_LayoutFlips(benchmark::State& state) {
  using L = Layout<N>;
  struct Case {
    Square sq;
    typename L::Bits player, opponent;
  };
  std::vector<Case> cases;
  for (const Position& p : RandomPositions<N>(1024)) {
    ForEachSquare(p.LegalMoves(), [&](Square sq) {
      cases.push_back({L::Index(sq / N, sq % N), L::FromBoard(p.player()), L::FromBoard(p.opponent())});
    });
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const Case& c = cases[i++ % cases.size()];
    benchmark::DoNotOptimize(L::Flips(c.sq, c.player, c.opponent));
  }
}
BENCHMARK(BM_LayoutFlips<6>);
BENCHMARK(BM_LayoutFlips<10>);

void BM_Transform8(benchmark::State& state) {
  Rng rng(1);
  std::uint64_t b = rng.Next();
  int s = 0;
  for (auto _ : state) {
    b = Transform8(b, s++ & 7) + 1;
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_Transform8);

// Exact solve of FFO position #(40 + index), with a fresh table each time.
void BM_SolveFfo(benchmark::State& state) {
  std::ifstream in(std::string(OZ_TEST_DATA_DIR) + "/ffo40-59.obf");
  std::string line;
  std::vector<Position> positions;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '%') positions.push_back(*ParseBoardString(line));
  }
  const Position& pos = positions.at(static_cast<std::size_t>(state.range(0)));
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    Solver solver(/*table_megabytes=*/64);
    nodes = solver.Solve(pos, Rules{}).nodes;
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SolveFfo)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->UseRealTime();

// Exact solves of random 8x8 positions with 14 empties (the size used inside search).
void BM_Solve14Empties(benchmark::State& state) {
  Rules rules;
  rules.start = StartKind::kRandom;
  rules.random_moves = 60 - 14;
  std::vector<Position> positions;
  for (std::uint64_t seed = 0; positions.size() < 64; ++seed) {
    const Position pos = StartPosition(rules, seed);
    if (pos.EmptyCount() == 14) positions.push_back(pos);
  }
  Solver solver(/*table_megabytes=*/4);
  std::size_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    solver.Clear();  // no help from earlier solves
    state.ResumeTiming();
    benchmark::DoNotOptimize(solver.Solve(positions[i++ % positions.size()], Rules{}).score);
  }
}
BENCHMARK(BM_Solve14Empties)->Unit(benchmark::kMicrosecond);

// `count` random 8x8 positions with `empties` empty squares from random games.
std::vector<Position> RandomEndgames(int empties, std::size_t count) {
  Rules rules;
  rules.start = StartKind::kRandom;
  rules.random_moves = 60 - empties;
  std::vector<Position> positions;
  for (std::uint64_t seed = 0; positions.size() < count; ++seed) {
    const Position pos = StartPosition(rules, seed);
    if (pos.EmptyCount() == empties && pos.LegalMoves()) positions.push_back(pos);
  }
  return positions;
}

// Exact (arg 0) or win/draw/loss (arg 1) solves of 16 random 20-empty positions per
// iteration, each with a fresh table.
void BM_Solve20Empties(benchmark::State& state) {
  const std::vector<Position> positions = RandomEndgames(20, 16);
  const bool wld = state.range(0) == 1;
  Solver solver(/*table_megabytes=*/64);
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    nodes = 0;
    for (const Position& pos : positions) {
      state.PauseTiming();
      solver.Clear();
      state.ResumeTiming();
      const SolveResult r = wld ? solver.SolveWld(pos, Rules{}) : solver.Solve(pos, Rules{});
      nodes += r.nodes;
    }
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(BM_Solve20Empties)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// One 24-empty position solved by `threads` threads (solve --threads): wall time.
void BM_SolveThreads(benchmark::State& state) {
  const std::vector<Position> positions = RandomEndgames(24, 4);
  Solver solver(/*table_megabytes=*/64);
  solver.SetThreads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    for (const Position& pos : positions) {
      state.PauseTiming();
      solver.Clear();
      state.ResumeTiming();
      benchmark::DoNotOptimize(solver.Solve(pos, Rules{}).score);
    }
  }
}
BENCHMARK(BM_SolveThreads)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
