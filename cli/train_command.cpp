// othello-zero train: the self-play training loop (training/run.h).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "training/config.h"
#include "training/run.h"

namespace othello::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnSignal(int) { g_stop.store(true); }

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
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::cerr << "training " << opt.config << " in " << dir << " (Ctrl-C checkpoints and stops)\n";
  const training::RunSummary summary =
      training::RunTraining(config, dir, g_stop, std::cerr, ::isatty(STDERR_FILENO));
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
