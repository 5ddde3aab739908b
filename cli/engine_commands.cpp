// othello-zero gtp and othello-zero nboard: the model as an engine for GUIs and arenas
// (play/gtp_engine.h, play/nboard_engine.h) on standard input and output.
#include <iostream>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "play/gtp_engine.h"
#include "play/nboard_engine.h"

namespace othello::cli {
namespace {

struct EngineCommandOptions {
  std::string model;
  StrengthOptions strength;
  std::uint64_t seed = 1;
  std::string device = "auto";
};

void RunEngine(const EngineCommandOptions& opt, bool gtp) {
  const play::Strength strength = opt.strength.Resolve();  // refused before the model loads
  const nn::LoadedModel model = LoadPlayModel(opt.model, opt.device);
  play::GameSession session(*model.evaluator, model.rules, strength, opt.seed, model.rules);
  if (gtp) {
    play::GtpEngine(session).Run(std::cin, std::cout);
  } else {
    play::NBoardEngine(session).Run(std::cin, std::cout);
  }
}

void Register(CLI::App& app, const char* name, const char* help, bool gtp) {
  auto opt = std::make_shared<EngineCommandOptions>();
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("--model", opt->model, kModelHelp);
  AddStrengthOptions(*cmd, opt->strength);
  cmd->add_option("--seed", opt->seed, "Random seed")->capture_default_str();
  AddDeviceOption(*cmd, opt->device);
  cmd->callback([opt, gtp] { RunEngine(*opt, gtp); });
}

}  // namespace

void RegisterEngines(CLI::App& app) {
  Register(app, "gtp", "Play as a GTP engine on stdin/stdout (boardsize, play, genmove, ...)", true);
  Register(app, "nboard", "Play as an NBoard engine on stdin/stdout (for the NBoard GUI)", false);
}

}  // namespace othello::cli
