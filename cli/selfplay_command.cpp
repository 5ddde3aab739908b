// othello-zero selfplay: an actor on a shared run directory (training/actor.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/stop_signal.h"
#include "training/actor.h"
#include "training/run_config_file.h"
#include "training/run_dir.h"

namespace othello::cli {
namespace {

struct SelfPlayOptions {
  std::string run_dir;
  std::string config;  // "": the run's (run-config.json)
  int threads = 0;     // 0: the configuration's selfplay.threads
  std::vector<std::string> overrides;
};

void RunSelfPlay(const SelfPlayOptions& opt) {
  std::vector<std::string> overrides = opt.overrides;
  if (opt.threads > 0) overrides.push_back("selfplay.threads=" + std::to_string(opt.threads));
  const training::RunDir run(opt.run_dir);
  training::TrainingConfig config =
      opt.config.empty() ? training::LoadRunConfig(run, overrides)
                         : training::LoadTrainingConfig(opt.config, overrides);
  if (config.selfplay_threads == 0) {
    std::cerr << "the run's configuration has selfplay.threads 0 (a learner's): this actor "
                 "sizes its threads to this machine (--threads N sets them)\n";
  }
  const std::atomic<bool>& stop = StopOnSignals();
  std::cerr << "self-play actor on " << opt.run_dir << " (Ctrl-C stops; finished games are "
            << "already written)\n";
  const training::ActorSummary summary = training::RunActor(config, run, stop, std::cerr);
  std::cout << "actor " << summary.actor << " stopped after " << summary.games << " games, "
            << summary.positions << " positions (model step " << summary.model_step << ")\n";
}

}  // namespace

void RegisterSelfPlay(CLI::App& app) {
  auto opt = std::make_shared<SelfPlayOptions>();
  CLI::App* cmd = app.add_subcommand(
      "selfplay",
      "A self-play actor: plays with the newest model of a run directory and writes its games "
      "there for the learner (othello-zero train), on this or any machine sharing the directory");
  cmd->add_option("--run-dir", opt->run_dir, "The run directory (shared with the learner)")
      ->required();
  cmd->add_option("--threads", opt->threads, "Self-play threads (default: the run's selfplay.threads; auto, or 0 as a "
                  "learner's config has: the CPUs this process may use)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--config", opt->config,
                  "Configuration file (default: the run's, DIR/run-config.json)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", opt->overrides,
                  "Override a key: --set inference.device=cuda (repeatable)");
  cmd->callback([opt] { RunSelfPlay(*opt); });
}

}  // namespace othello::cli
