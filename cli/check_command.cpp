// othello-zero check: a read-only check of a training run's directory
// (training/run_check.h), e.g. after a crash or before copying a run.
#include <iostream>

#include "cli/commands.h"
#include "training/run_check.h"
#include "training/run_dir.h"

namespace othello::cli {
namespace {

struct CheckOptions {
  std::string run_dir;
  bool json = false;
};

void RunCheckCommand(const CheckOptions& opt) {
  const training::RunCheck check = training::CheckRunDir(training::RunDir(opt.run_dir));
  if (opt.json) {
    std::cout << check.Json().dump() << "\n";
    return;
  }
  std::cout << opt.run_dir << ": sound\n"
            << "  latest checkpoint: " << (check.step < 0 ? std::string("none") : "step " + std::to_string(check.step))
            << " (" << check.checkpoints << " checkpoint files load)\n"
            << "  replay: " << check.games << " games, " << check.positions << " positions ("
            << check.shards << " shards, " << check.journal_games << " games in the journal)\n";
  if (check.published_step >= 0 || check.incoming > 0) {
    std::cout << "  actors: model of step " << check.published_step << " published, "
              << check.incoming << " incoming games waiting for the learner\n";
  }
  if (check.torn_journal_bytes) {
    std::cout << "  the journal ends in " << check.torn_journal_bytes
              << " bytes of an interrupted append (the next resume cuts them)\n";
  }
  for (const std::string& leftover : check.leftovers) {
    std::cout << "  interrupted write left " << leftover << " (harmless; replaced by the next write)\n";
  }
}

}  // namespace

void RegisterCheck(CLI::App& app) {
  auto opt = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check a training run's directory: every checkpoint and replay file reads back");
  cmd->add_option("run_dir", opt->run_dir, "Run directory (runs/NAME)")->required();
  cmd->add_flag("--json", opt->json, "Print the totals as one JSON object");
  cmd->callback([opt] { RunCheckCommand(*opt); });
}

}  // namespace othello::cli
