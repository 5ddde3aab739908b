#pragma once
// What the play subcommands (gtp, nboard, play, serve) share: the model behind them
// (an exported model file, run with Eigen; or, in a build with LibTorch, a checkpoint)
// and the strength options.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/rules.h"
#include "mcts/evaluator.h"
#include "nn/model_loader.h"
#include "play/game_session.h"

namespace othello::cli {

// The loader of this build: exported models, and checkpoints where LibTorch is linked.
nn::ModelLoader BuildModelLoader();

using PlayModel = nn::LoadedModel;
// With a result cache for play. Throws core::InputError naming the file (a missing,
// corrupt or unknown file).
PlayModel LoadPlayModel(const std::string& path);

struct StrengthOptions {
  int level = 0;           // 1..10; 0: use visits/seconds
  std::uint64_t visits = 400;
  double seconds = 0;
  play::Strength Resolve() const;
};
void AddStrengthOptions(CLI::App& cmd, StrengthOptions& options);

}  // namespace othello::cli
