#include "cli/play_model.h"

#include <fstream>

#include "core/error.h"
#include "nn/eigen_net.h"
#include "nn/model_file.h"
#if OZ_HAVE_TORCH
#include "nn/checkpoint.h"
#include "nn/inference.h"
#endif

namespace othello::cli {

PlayModel LoadPlayModel(const std::string& path) {
  PlayModel model;
  if (!std::ifstream(path)) throw core::InputError("model " + path + ": cannot be opened");
  if (nn::IsModelFile(path)) {
    const nn::ModelFile file = nn::ReadModelFile(path);
    model.rules = file.rules;
    model.evaluator = std::make_shared<nn::EigenEvaluator>(std::make_shared<nn::EigenNet>(file),
                                                           std::size_t{1} << 16);
    return model;
  }
#if OZ_HAVE_TORCH
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(path);
  model.rules = checkpoint.rules.value_or(core::Rules{});
  nn::InferenceOptions options;
  options.cache_entries = std::size_t{1} << 16;
  model.evaluator = std::make_shared<nn::NetEvaluator>(checkpoint.net, options);
  return model;
#else
  throw core::InputError("model " + path +
                         ": not an exported model file (this build has no LibTorch to read "
                         "checkpoints: export one with `othello-zero export`)");
#endif
}

play::Strength StrengthOptions::Resolve() const {
  if (level) return play::StrengthForLevel(level);
  play::Strength s;
  s.visits = visits;
  s.seconds = seconds;
  return s;
}

void AddStrengthOptions(CLI::App& cmd, StrengthOptions& options) {
  cmd.add_option("--level", options.level, "Strength level 1 (weakest) to 10 (overrides --visits)")
      ->check(CLI::Range(1, 10));
  cmd.add_option("--visits", options.visits, "Playouts per move");
  cmd.add_option("--seconds", options.seconds, "Seconds per move (0: no limit)")
      ->check(CLI::Range(0.0, 1e6));
}

}  // namespace othello::cli
