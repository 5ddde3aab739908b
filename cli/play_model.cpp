#include "cli/play_model.h"

#include "nn/model_loader.h"

namespace othello::cli {

nn::ModelLoader BuildModelLoader() {
#if OZ_HAVE_TORCH
  return nn::LoadModel;
#else
  return nn::LoadExportedModel;
#endif
}

PlayModel LoadPlayModel(const std::string& path) {
  nn::ModelOptions options;
  options.cache_entries = std::size_t{1} << 16;
  return BuildModelLoader()(path, options);
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
