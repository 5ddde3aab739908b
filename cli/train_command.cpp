// othello-zero train: the self-play training loop (training/run.h).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/stop_signal.h"
#include "core/file_io.h"
#include "training/config.h"
#include "training/run.h"
#include "training/run_dir.h"

namespace othello::cli {
namespace {

struct TrainOptions {
  std::string config;
  std::string run_dir;
  std::vector<std::string> overrides;
};

void RunTrain(const TrainOptions& opt) {
  const training::TrainingConfig config = training::LoadTrainingConfig(opt.config, opt.overrides);
  const std::string dir =
      opt.run_dir.empty()
          ? (std::filesystem::path("runs") / std::filesystem::path(opt.config).stem()).string()
          : opt.run_dir;
  // For actors (othello-zero selfplay), which play by the run's configuration.
  training::SaveRunConfig(dir, core::ReadFile(opt.config, "configuration"), opt.config,
                          opt.overrides);
  const std::atomic<bool>& stop = StopOnSignals();
  std::cerr << "training " << opt.config << " in " << dir << " (Ctrl-C checkpoints and stops)\n";
  const training::RunSummary summary =
      training::RunTraining(config, dir, stop, std::cerr, ::isatty(STDERR_FILENO));
  std::cout << "stopped at step " << summary.step << " after " << summary.games << " games, "
            << summary.positions << " positions; checkpoint " << dir
            << "/checkpoints/latest.ckpt\n";
}

}  // namespace

void RegisterTrain(CLI::App& app) {
  auto opt = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Self-play and training together; resumes when started again on a run directory");
  cmd->add_option("--config", opt->config, "Configuration file (configs/NAME.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--run-dir", opt->run_dir, "Run directory (default: runs/<config name>)");
  cmd->add_option("--set", opt->overrides, "Override a key: --set train.batch_size=64 (repeatable)");
  cmd->callback([opt] { RunTrain(*opt); });
}

}  // namespace othello::cli
