#pragma once
// An actor: self-play on its own, feeding a learner through the shared run directory
// (actor_protocol.h). It plays with the newest model the learner published (waiting for the
// first), picks up newer ones between moves without restarting, writes every finished
// game at once as an incoming shard, and reports its counters to DIR/actors/. It needs
// nothing from the learner while it plays: with the learner down it keeps playing with
// the model it has. Killed, it loses only its games in flight.
#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

#include "training/config.h"
#include "training/run_dir.h"

namespace othello::training {

struct ActorOptions {
  double model_poll_seconds = 2;  // how often latest.json is read
  double report_seconds = 2;      // how often DIR/actors/ACTOR.json is written
  double log_seconds = 10;        // how often a progress line is logged
};

struct ActorSummary {
  std::string actor;
  std::uint64_t games = 0, positions = 0;
  std::int64_t model_step = -1;  // -1: never got a model
};

// Plays until `stop` is set (from any thread or a signal handler). config: the run's,
// with this actor's selfplay.threads. Progress lines go to `log` (this thread only).
// Errors: a self-play thread's failure (e.g. a shard that cannot be written: a full
// disk) stops the actor and throws std::runtime_error naming it; a model file that
// cannot be read is reported and retried at the next poll, the current model kept; a
// model of other rules or another network than the configuration's throws
// core::InputError naming the file.
ActorSummary RunActor(const TrainingConfig& config, const RunDir& run,
                      const std::atomic<bool>& stop, std::ostream& log,
                      const ActorOptions& options = {});

}  // namespace othello::training
