#pragma once
// Players from command-line specs, for the arena and training's evaluations:
//
//   [NAME@]random | greedy | alphabeta:DEPTH (or ab:DEPTH)[,solver=EMPTIES]
//   [NAME@]model:PATH[,KEY=VALUE...]: the keys are ModelPlayerKeys(): play's budgets
//                          (play/play_settings.h: visits=N, time=SECONDS, rootsolve=E),
//                          the search's settings that have a player key
//                          (mcts/search_options.h: threads, solver, cpuct, cpuctstdev,
//                          fpu, rootfpu, lcb, score, valuebias) and device=auto|cpu|cuda
//   [NAME@]gtp:COMMAND LINE        e.g. gtp:/usr/games/gtp-rhino -l 1
//   [NAME@]nboard:COMMAND LINE     e.g. nboard:edax -nboard (searched to defaults.nboard_depth)
//
// model:PATH is an exported model file (`othello-zero export`, read with Eigen: no
// LibTorch) or, with a loader that reads them (nn::LoadModel, LibTorch builds), a
// checkpoint. NAME@ sets the name shown in results and game records; the defaults are
// random, greedy, alphabetaD, the model file's stem with "/vN" (playouts) and "/Ss"
// (time), and the engine's command line without its directory. Among several players
// (MakeArenaPlayers) model files with one stem are told apart by their folders, a run's
// checkpoints/ folder left out: runs/a/checkpoints/latest.ckpt and
// runs/b/checkpoints/latest.ckpt play as a/latest/v200 and b/latest/v200.
// A model's network is loaded once and its evaluator shared by every game.
// Thread safety: the returned factories may be called from many threads.
#include <memory>
#include <string>
#include <vector>

#include "arena/arena.h"
#include "core/error.h"
#include "mcts/evaluator.h"
#include "nn/model_loader.h"
#include "play/play_settings.h"
#include "play/search_player.h"

namespace othello::arena {

struct PlayerDefaults {
  // Reads model:PATH (an exported model; nn::LoadModel also reads checkpoints).
  nn::ModelLoader load_model = nn::LoadExportedModel;
  std::uint64_t visits = play::kArenaVisits.value;  // model playouts per move
  std::string device = "auto";
  double engine_timeout_seconds = 60;  // untimed games: longest wait for an engine's move
  int nboard_depth = 20;
};

// Throws core::InputError naming the spec and the problem (a model that cannot be
// loaded, or an engine whose program is neither an executable file nor on PATH,
// included).
ArenaPlayer MakeArenaPlayer(const std::string& spec, const PlayerDefaults& defaults = {});

// The players of `specs`, in order, with distinct names (model files told apart by
// their folders). Throws core::InputError as MakeArenaPlayer does, and naming both specs
// when two players still share a name (the message shows how to name them: NAME@SPEC).
std::vector<ArenaPlayer> MakeArenaPlayers(const std::vector<std::string>& specs,
                                          const PlayerDefaults& defaults = {});

// The label of each model file in a player's default name: its stem, with as many of its
// folders in front (checkpoints/ skipped) as tell it apart from every other file of
// `paths` ("a/latest", "b/latest"). One file given twice gets one label.
std::vector<std::string> ModelLabels(const std::vector<std::string>& paths);

// The option keys of a model player's spec, in the order the help lists them.
std::vector<std::string> ModelPlayerKeys();
// Each of them as docs/evaluation.md's table of model keys writes it (tests/arena checks
// the page against these rows): key, default (play's), range and help, read from
// play/play_settings.h and mcts/search_options.h.
std::vector<play::SettingText> ModelPlayerKeyTexts();

// An arena player searching with a shared evaluator (each game gets its own seed).
ArenaPlayer SearchArenaPlayer(const std::string& name, std::shared_ptr<mcts::Evaluator> evaluator,
                              const play::SearchPlayerOptions& options);

}  // namespace othello::arena
