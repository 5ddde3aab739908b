#pragma once
// Players from command-line specs, for the arena and training's evaluations:
//
//   [NAME@]random | greedy | alphabeta:DEPTH (or ab:DEPTH)
//   [NAME@]model:CHECKPOINT[,visits=N][,time=SECONDS][,threads=T][,solver=EMPTIES]
//                          [,cpuct=C][,device=auto|cpu|cuda]
//   [NAME@]gtp:COMMAND LINE        e.g. gtp:/usr/games/gtp-rhino -l 1
//   [NAME@]nboard:COMMAND LINE     e.g. nboard:edax -nboard (searched to defaults.nboard_depth)
//
// NAME@ sets the name shown in results and game records; the defaults are random,
// greedy, alphabetaD, the checkpoint's file stem with "/vN" (playouts), and the
// engine's command line without its directory.
// A model's network is loaded once and its evaluator shared by every game.
// Thread safety: the returned factories may be called from many threads.
#include <memory>
#include <string>

#include "core/error.h"
#include "mcts/evaluator.h"
#include "play/search_player.h"
#include "training/arena.h"

namespace othello::training {

struct PlayerDefaults {
  std::uint64_t visits = 200;       // model playouts per move
  std::string device = "auto";
  double engine_timeout_seconds = 60;  // untimed games: longest wait for an engine's move
  int nboard_depth = 20;
};

// Throws core::InputError naming the spec and the problem (a checkpoint that cannot be
// loaded included).
ArenaPlayer MakeArenaPlayer(const std::string& spec, const PlayerDefaults& defaults = {});

// An arena player searching with a shared evaluator (each game gets its own seed).
ArenaPlayer SearchArenaPlayer(const std::string& name, std::shared_ptr<mcts::Evaluator> evaluator,
                              const play::SearchPlayerOptions& options);

}  // namespace othello::training
