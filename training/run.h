#pragma once
// The training run: self-play threads and the trainer together in one run directory
// (its layout: run_dir.h's RunDir).
//
// The trainer holds the ratio of training samples to generated positions at
// samples_per_position, publishes a new model to self-play every publish_every steps
// and checkpoints every checkpoint_every steps and when stopped. Started again on the
// same directory it resumes (model, optimizer, step, replay buffer); after kill -9
// only the games in flight and the steps since the last checkpoint are lost.
#include <atomic>
#include <cstdint>
#include <ostream>

#include "training/config.h"
#include "training/distributed.h"
#include "training/run_dir.h"

namespace othello::training {

struct RunSummary {
  std::int64_t step = 0;
  std::uint64_t games = 0;
  std::uint64_t positions = 0;
  double seconds = 0;
};

// Runs until config.minutes have passed or config.steps are reached (0: no limit), or
// `stop` is set. Progress goes to `log`: a refreshed status line when `interactive`,
// plain lines otherwise.
// Threads: blocks the calling thread, which trains, checkpoints and evaluates; starts
// config.selfplay_threads self-play threads and joins them all before it returns or
// throws. `stop` may be set from any thread or a signal handler (it is only loaded);
// `log` is written by the calling thread only. One run at a time per directory (not
// checked: two would overwrite each other's files).
// Errors: a failure (a file that cannot be written, a failing training step, a
// self-play thread's error) throws std::runtime_error "<what> failed: <why>" after
// self-play has stopped, the last checkpoint kept; a checkpoint of other rules or a
// damaged one throws core::InputError naming the file.
// Data-parallel (`distributed` with world_size > 1): one call per rank, each a process
// on the same run directory (a shared file system across machines); see run.cpp's Run
// for what rank 0 alone does. A rank that dies ends the others with an error.
RunSummary RunTraining(const TrainingConfig& config, const RunDir& dir,
                       const std::atomic<bool>& stop, std::ostream& log, bool interactive,
                       const DistributedOptions& distributed = {});

}  // namespace othello::training
