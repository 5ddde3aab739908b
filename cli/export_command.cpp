// othello-zero export: a checkpoint to a self-contained model file for play (nn/export.h).
#include <iostream>

#include <nlohmann/json.hpp>

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

// The rules a training run stored with the checkpoint (8x8 standard when absent).
core::Rules CheckpointRules(const nn::Checkpoint& checkpoint, const std::string& path) {
  core::Rules rules;
  if (checkpoint.extra.empty()) return rules;
  try {
    const auto extra = nlohmann::json::parse(checkpoint.extra);
    if (!extra.contains("rules")) return rules;
    const auto& r = extra.at("rules");
    rules.size = r.at("size").get<int>();
    auto start = core::ParseStartKind(r.at("start").get<std::string>());
    if (start) rules.start = *start;
    rules.anti = r.at("anti").get<bool>();
    rules.empties_to_winner = r.at("empties_to_winner").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    throw CliError("checkpoint " + path + ": bad rules metadata: " + e.what());
  }
  return rules;
}

void RunExport(const ExportOptions& opt) {
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(opt.checkpoint);
  core::Rules rules = CheckpointRules(checkpoint, opt.checkpoint);
  if (opt.size) rules.size = opt.size;
  if (opt.anti) rules.anti = true;
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
  cmd->add_option("--size", opt->size, "Board size the model plays (default: the run's)");
  cmd->add_flag("--anti", opt->anti, "Mark the model as anti-Othello");
  cmd->callback([opt] { RunExport(*opt); });
}

}  // namespace othello::cli
