// othello-zero bench: speed measurements of the hot paths.
//   bench search   playouts per second of the tree search with the uniform evaluator
//   bench nn       network evaluations per second (bench_nn_command.cpp; LibTorch builds)
//   bench selfplay self-play's workers: rates and time shares (bench_selfplay_command.cpp;
//                  LibTorch builds)
//   bench train    the trainer's steps and samples per second (bench_train_command.cpp;
//                  LibTorch builds)
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "mcts/search.h"

namespace othello::cli {
namespace {

struct BenchSearchOptions {
  std::vector<int> threads = {1, 2};
  double seconds = 3.0;
  int size = 8;
  int batch = 16;
  std::size_t nodes = 40'000'000;
};

void RunBenchSearch(const BenchSearchOptions& opt) {
  std::printf("%-8s %12s %10s %14s %10s %11s\n", "threads", "playouts", "seconds",
              "playouts/s", "scaling", "collisions");
  double single = 0;
  for (int threads : opt.threads) {
    mcts::UniformEvaluator evaluator;
    mcts::SearchParams params;
    params.rules.size = opt.size;
    params.threads = threads;
    params.leaves_per_batch = opt.batch;
    params.solver_empties = 0;  // measure the search itself
    mcts::Tree tree(core::Position::Standard(opt.size), opt.nodes);
    mcts::TreeSearch search(tree, evaluator, params, /*seed=*/1);
    mcts::SearchLimits limits;
    limits.seconds = opt.seconds;
    limits.tree_nodes = opt.nodes * 9 / 10;
    const mcts::SearchResult r = mcts::RunSearch(search, evaluator, limits);
    const double rate = r.playouts / r.seconds;
    if (threads == opt.threads.front()) single = rate / threads;
    std::printf("%-8d %12llu %10.3f %14.0f %10.2f %11llu\n", threads,
                static_cast<unsigned long long>(r.playouts), r.seconds, rate,
                single > 0 ? rate / single : 0.0, static_cast<unsigned long long>(r.collisions));
    std::fflush(stdout);
  }
}

}  // namespace

void RegisterBench(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Speed measurements of the hot paths");
  bench->require_subcommand(1);
  auto opt = std::make_shared<BenchSearchOptions>();
  CLI::App* search = bench->add_subcommand(
      "search", "Playouts per second of the tree search on the 8x8 start with the uniform "
                "evaluator (a playout: one descent, expansion and backup)");
  search->add_option("--threads", opt->threads, "Thread counts to measure, e.g. 1,2")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  search->add_option("--seconds", opt->seconds, "Seconds per measurement")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  search->add_option("--size", opt->size, "Board size")
      ->check(CLI::IsMember({4, 6, 8, 10}))
      ->capture_default_str();
  search->add_option("--batch", opt->batch, "Leaves gathered per evaluator call per thread")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  search->add_option("--nodes", opt->nodes, "Tree capacity in nodes")
      ->check(CLI::Range(1000, 1 << 30))
      ->capture_default_str();
  search->callback([opt] { RunBenchSearch(*opt); });
  RegisterBenchModel(*bench);
#if OZ_HAVE_TORCH
  RegisterBenchNn(*bench);
  RegisterBenchSelfPlay(*bench);
  RegisterBenchTrain(*bench);
#endif
}

}  // namespace othello::cli
