#pragma once
// Players from command-line specs, for the arena and training's evaluations:
//
//   [NAME@]random | greedy | alphabeta:DEPTH (or ab:DEPTH)
//   [NAME@]model:PATH[,visits=N][,time=SECONDS][,threads=T][,solver=EMPTIES]
//                          [,cpuct=C][,device=auto|cpu|cuda]
//   [NAME@]gtp:COMMAND LINE        e.g. gtp:/usr/games/gtp-rhino -l 1
//   [NAME@]nboard:COMMAND LINE     e.g. nboard:edax -nboard (searched to defaults.nboard_depth)
//
// model:PATH is an exported model file (`othello-zero export`, read with Eigen: no
// LibTorch) or, with a loader that reads them (nn::LoadModel, LibTorch builds), a
// checkpoint. NAME@ sets the name shown in results and game records; the defaults are
// random, greedy, alphabetaD, the model file's stem with "/vN" (playouts), and the
// engine's command line without its directory.
// A model's network is loaded once and its evaluator shared by every game.
// Thread safety: the returned factories may be called from many threads.
#include <memory>
#include <string>

#include "arena/arena.h"
#include "core/error.h"
#include "mcts/evaluator.h"
#include "nn/model_loader.h"
#include "play/search_player.h"

namespace othello::arena {

struct PlayerDefaults {
  // Reads model:PATH (an exported model; nn::LoadModel also reads checkpoints).
  nn::ModelLoader load_model = nn::LoadExportedModel;
  std::uint64_t visits = 200;       // model playouts per move
  std::string device = "auto";
  double engine_timeout_seconds = 60;  // untimed games: longest wait for an engine's move
  int nboard_depth = 20;
};

// Throws core::InputError naming the spec and the problem (a model that cannot be
// loaded included).
ArenaPlayer MakeArenaPlayer(const std::string& spec, const PlayerDefaults& defaults = {});

// An arena player searching with a shared evaluator (each game gets its own seed).
ArenaPlayer SearchArenaPlayer(const std::string& name, std::shared_ptr<mcts::Evaluator> evaluator,
                              const play::SearchPlayerOptions& options);

}  // namespace othello::arena
