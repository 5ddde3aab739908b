// othello-zero export: a checkpoint to a self-contained model file for play (nn/export.h).
#include <iostream>

#include "cli/commands.h"
#include "nn/checkpoint.h"
#include "nn/export.h"

namespace othello::cli {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string output;
  int size = 0;
  bool anti = false;
};

void RunExport(const ExportOptions& opt) {
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(opt.checkpoint);
  // The run's rules; --size and --anti only for checkpoints that do not store them.
  core::Rules rules = checkpoint.rules.value_or(core::Rules{});
  core::Rules asked = rules;
  if (opt.size) asked.size = opt.size;
  if (opt.anti) asked.anti = true;
  if (checkpoint.rules) {
    if (auto mismatch = core::RulesMismatch(rules, asked)) {
      throw CliError("--size/--anti: " + opt.checkpoint + ": " + *mismatch);
    }
  }
  rules = asked;
  if (auto error = core::ValidateRules(rules)) throw CliError("--size: " + error->message);
  const nn::ModelFile model = nn::ExportModel(checkpoint.net, rules, checkpoint.step);
  nn::WriteModelFile(opt.output, model);
  std::cout << "exported " << opt.checkpoint << " (step " << checkpoint.step << ", "
            << checkpoint.net->config().Describe() << ", " << rules.size << "x" << rules.size
            << (rules.anti ? " anti-Othello" : "") << ") to " << opt.output << "\n";
}

}  // namespace

void RegisterExport(CLI::App& app) {
  auto opt = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a checkpoint as a self-contained model file for play (no LibTorch needed)");
  cmd->add_option("checkpoint", opt->checkpoint, "Checkpoint (.ckpt)")->required();
  cmd->add_option("-o,--output", opt->output, "Model file to write (e.g. model.ozm)")->required();
  cmd->add_option("--size", opt->size,
                  "Board size the model plays (for checkpoints that do not store the run's rules)");
  cmd->add_flag("--anti", opt->anti, "Mark the model as anti-Othello (likewise)");
  cmd->callback([opt] { RunExport(*opt); });
}

}  // namespace othello::cli
