#pragma once
// The harness of `othello-zero bench train`: the trainer's own optimiser steps (Trainer,
// the code `train` runs: collation, the forward pass in train.precision, the loss, the
// backward pass, clipping and the optimiser) on a fresh network of the config's shape,
// for a few seconds. The minibatches are drawn from a fixed pool of positions of random
// games with uniform policy targets over the legal moves and random value targets: the
// step's cost does not depend on what the targets say. Reports steps and samples per
// second, so that a trainer setting (train.batch_size, train.threads, train.precision,
// network.*) can be timed without a run, and set against self-play's positions per
// second (`bench selfplay`): samples per second / positions per second is the most
// train.samples_per_position the trainer keeps up with.
// Thread safety: one call at a time per process (the trainer sets LibTorch's thread count).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "training/config.h"

namespace othello::training {

struct TrainBenchOptions {
  std::string config_name;  // reported as "config"
  double warmup = 2.0;      // seconds of steps before the measurement
  double seconds = 10.0;    // seconds measured
  std::uint64_t seed = 1;   // the positions and the minibatches drawn from them
};

// Runs `config`'s trainer on the synthetic positions and reports the measured window,
// one key per figure (docs/benchmarks.md explains them).
nlohmann::ordered_json BenchTrain(const TrainingConfig& config, const TrainBenchOptions& options);

}  // namespace othello::training
