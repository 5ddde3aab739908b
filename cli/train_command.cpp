// othello-zero train: the self-play training loop (training/run.h).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/stop_signal.h"
#include "core/file_io.h"
#include "nn/inference.h"
#include "training/config.h"
#include "training/run.h"
#include "training/run_dir.h"

namespace othello::cli {
namespace {

struct TrainOptions {
  std::string config;
  std::string run_dir;
  std::vector<std::string> overrides;
  // Data-parallel: the environment's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, or these.
  int rank = -1, world_size = -1;
  std::string master;
  std::string backend = "auto";
  double timeout = 300;
};

// The environment's torchrun/Slurm variables, then the flags over them.
training::DistributedOptions Distributed(const TrainOptions& opt) {
  training::DistributedOptions distributed = training::DistributedFromEnvironment();
  if (opt.world_size > 0) distributed.world_size = opt.world_size;
  if (opt.rank >= 0) distributed.rank = opt.rank;
  if (!opt.master.empty()) training::ParseMaster(opt.master, distributed);
  distributed.backend = opt.backend;
  distributed.timeout_seconds = opt.timeout;
  if (distributed.rank >= distributed.world_size) {
    throw CliError("--rank " + std::to_string(distributed.rank) + " must be below --world-size " +
                   std::to_string(distributed.world_size));
  }
  return distributed;
}

// Ranks on one machine each take their own GPU: cuda:LOCAL_RANK (torchrun sets it).
void PlaceRank(training::TrainingConfig& config) {
  const char* local = std::getenv("LOCAL_RANK");
  if (local == nullptr || (config.inference.device != "cuda" && config.inference.device != "auto")) {
    return;
  }
  if (config.inference.device == "auto" && nn::ResolveDevice("auto").is_cpu()) return;
  const int index = std::atoi(local);
  if (index < 0) throw CliError(std::string("LOCAL_RANK=") + local + ": not a GPU index");
  config.inference.device = "cuda:" + std::to_string(index);
}

void RunTrain(const TrainOptions& opt) {
  training::TrainingConfig config = training::LoadTrainingConfig(opt.config, opt.overrides);
  const training::DistributedOptions distributed = Distributed(opt);
  if (distributed.enabled()) PlaceRank(config);
  const std::string dir =
      opt.run_dir.empty()
          ? (std::filesystem::path("runs") / std::filesystem::path(opt.config).stem()).string()
          : opt.run_dir;
  // For actors (othello-zero selfplay), which play by the run's configuration.
  if (distributed.rank == 0) {
    training::SaveRunConfig(dir, core::ReadFile(opt.config, "configuration"), opt.config,
                            opt.overrides);
  }
  const std::atomic<bool>& stop = StopOnSignals();
  std::cerr << "training " << opt.config << " in " << dir << " (Ctrl-C checkpoints and stops)\n";
  const training::RunSummary summary =
      training::RunTraining(config, dir, stop, std::cerr, ::isatty(STDERR_FILENO), distributed);
  std::cout << "stopped at step " << summary.step << " after " << summary.games << " games, "
            << summary.positions << " positions; "
            << (distributed.rank == 0 ? "checkpoint " + dir + "/checkpoints/latest.ckpt"
                                      : "rank 0 keeps the checkpoints")
            << "\n";
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
  cmd->add_option("--rank", opt->rank, "Data-parallel: this process's rank (default: $RANK)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--world-size", opt->world_size,
                  "Data-parallel: the number of ranks (default: $WORLD_SIZE, else 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--master", opt->master,
                  "Data-parallel: rank 0's HOST:PORT (default: $MASTER_ADDR:$MASTER_PORT)");
  cmd->add_option("--dist-backend", opt->backend, "Data-parallel: auto, gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}));
  cmd->add_option("--dist-timeout", opt->timeout,
                  "Data-parallel: seconds before a silent rank is an error (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->callback([opt] { RunTrain(*opt); });
}

}  // namespace othello::cli
