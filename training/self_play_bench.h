#pragma once
// The harness of `othello-zero bench selfplay`: self-play's own workers (SelfPlayThreads,
// the code `train` runs: many games per thread, the exact solver, the replay samples)
// for a few seconds, with a free evaluator or the config's network (random weights),
// the samples discarded; a report of rates, the mean batch and the workers' time shares.
//
// evaluator "uniform": mcts::UniformEvaluator in the network's place, behind the same
// result cache, each position the cache misses encoded as the network path encodes it
// (nn::EncodePosition, under a random symmetry when inference.random_symmetry): the
// CPU side alone, the ceiling that a faster network cannot raise.
// evaluator "net": the config's network as self-play builds it (nn::MakeEvaluator: the
// Eigen path on the CPU, else LibTorch batched).
// Thread safety: one call at a time per process (it sets LibTorch's thread count).
#include <string>

#include <nlohmann/json.hpp>

#include "training/config.h"

namespace othello::training {

struct SelfPlayBenchOptions {
  std::string config_name;          // reported as "config"
  std::string evaluator = "uniform";  // uniform or net
  bool encode = true;               // uniform: encode the cache's misses as the network would
  double warmup = 1.0;              // seconds played before the measurement
  double seconds = 5.0;             // seconds measured
};

// Runs `config`'s self-play threads (selfplay.threads of them) and reports the measured
// window, one key per figure (docs/benchmarks.md explains them). Throws
// std::runtime_error "self-play thread N failed: ..." when a worker fails.
nlohmann::ordered_json BenchSelfPlay(const TrainingConfig& config,
                                     const SelfPlayBenchOptions& options);

}  // namespace othello::training
