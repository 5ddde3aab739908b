// othello-zero train: the self-play training loop (training/run.h); and othello-zero
// config: the configuration's keys with their defaults and ranges.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/stop_signal.h"
#include "core/file_io.h"
#include "nn/inference.h"
#include "training/config.h"
#include "training/run.h"
#include "training/run_config_file.h"
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
  std::string device;  // "": the config's inference.device
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

// This executable as the user would type it: relative to the current folder when it is
// below it (build-cuda/cli/othello-zero), else its full path.
std::string ThisExecutable() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "othello-zero";
  const std::filesystem::path relative = exe.lexically_relative(std::filesystem::current_path());
  if (!relative.empty() && *relative.begin() != "..") return relative.string();
  return exe.string();
}

// A checkpoint of the run from about half-way (DIR/checkpoints/step-*.ckpt), or a
// placeholder when there is none yet besides the newest.
std::string EarlierCheckpoint(const training::RunDir& run) {
  const auto steps = training::StepCheckpoints(run.checkpoints());
  if (steps.size() < 2) {
    return (std::filesystem::path(run.checkpoints()) / "step-NNNNNNNN.ckpt").string();
  }
  return steps[(steps.size() - 1) / 2].second;
}

// What to do with the run's models, printed when the run stops.
void PrintNextSteps(const training::RunDir& run, std::ostream& out) {
  const std::string exe = ThisExecutable();
  const std::string latest = run.latest_checkpoint();
  out << "\nplay against it:\n"
      << "  " << exe << " play --model " << latest << "                 # in the terminal\n"
      << "  " << exe << " serve --model " << latest << "                # in the browser: http://localhost:8080\n"
      << "compare two checkpoints (here: the newest against one from half-way):\n"
      << "  " << exe << " arena --player model:" << latest << " --player model:"
      << EarlierCheckpoint(run) << " --games 100\n"
      << "plot the run: scripts/plot.py " << run.root() << "\n";
}

void RunTrain(const TrainOptions& opt) {
  std::vector<std::string> overrides = opt.overrides;
  if (!opt.device.empty()) overrides.push_back("inference.device=" + opt.device);
  training::TrainingConfig config = training::LoadTrainingConfig(opt.config, overrides);
  const training::DistributedOptions distributed = Distributed(opt);
  if (distributed.enabled()) PlaceRank(config);
  const training::RunDir run(
      opt.run_dir.empty()
          ? (std::filesystem::path("runs") / std::filesystem::path(opt.config).stem()).string()
          : opt.run_dir);
  // For actors (othello-zero selfplay), which play by the run's configuration.
  if (distributed.rank == 0) {
    training::SaveRunConfig(run, core::ReadFile(opt.config, "configuration"), opt.config,
                            overrides);
  }
  const std::atomic<bool>& stop = StopOnSignals();
  std::cerr << "training " << opt.config << " in " << run.root()
            << " (Ctrl-C checkpoints and stops)\n";
  const training::RunSummary summary =
      training::RunTraining(config, run, stop, std::cerr, ::isatty(STDERR_FILENO), distributed);
  std::cout << "stopped at step " << summary.step << " after " << summary.games << " games, "
            << summary.positions << " positions; "
            << (distributed.rank == 0 ? "checkpoint " + run.latest_checkpoint()
                                      : "rank 0 keeps the checkpoints")
            << "\n";
  if (distributed.rank == 0 && summary.step > 0) PrintNextSteps(run, std::cout);
}

// `othello-zero config`: the reference rows of docs/configuration.md.
void PrintConfigReference() {
  std::cout << "| key | default | range | meaning |\n| --- | --- | --- | --- |\n";
  for (const training::ConfigKey& key : training::ConfigReference()) {
    std::cout << "| `" << key.key << "` | "
              << (key.default_text.empty() ? "`\"\"`" : "`" + key.default_text + "`") << " | "
              << key.range << " | " << key.help << " |\n";
  }
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
  cmd->add_option("--set", opt->overrides,
                  "Override a key: --set train.batch_size=64 (repeatable; `othello-zero config` "
                  "lists the keys)");
  cmd->add_option("--device", opt->device,
                  "Where the networks run, self-play's and the trainer's: auto, cpu, cuda, cuda:N "
                  "(default: the config's inference.device, auto: CUDA when there is a GPU)");
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

void RegisterConfig(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "config", "The training configuration's keys with their defaults, ranges and, where a "
                "table declares it, their help (a Markdown table: docs/configuration.md "
                "explains each)");
  cmd->callback([] { PrintConfigReference(); });
}

}  // namespace othello::cli
