// othello-zero export: a checkpoint to a self-contained model file for play (nn/export.h).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "nn/checkpoint.h"
#include "nn/export.h"
#include "training/run_dir.h"

namespace othello::cli {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string output;
  int size = 0;
  bool anti = false;
  int average = 1;
};

// The checkpoint's step-*.ckpt neighbours in its folder written before `step`, the
// newest `count` of them, newest first.
std::vector<std::string> CheckpointsBefore(const std::string& checkpoint, std::int64_t step,
                                           int count) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(checkpoint).parent_path().empty()
                           ? fs::path(".")
                           : fs::path(checkpoint).parent_path();
  std::vector<std::pair<std::int64_t, std::string>> found;
  for (const auto& [n, path] : training::StepCheckpoints(dir.string())) {
    if (n < step) found.emplace_back(n, path);
  }
  if (static_cast<int>(found.size()) < count) {
    throw CliError("--average " + std::to_string(count + 1) + ": " + dir.string() + " holds " +
                   std::to_string(found.size()) + " checkpoint(s) (step-*.ckpt) before step " +
                   std::to_string(step) + " of " + checkpoint + ", " + std::to_string(count) +
                   " needed");
  }
  std::sort(found.rbegin(), found.rend());
  std::vector<std::string> paths;
  for (int i = 0; i < count; ++i) paths.push_back(found[i].second);
  return paths;
}

void RunExport(const ExportOptions& opt) {
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(opt.checkpoint);
  std::string averaged;
  if (opt.average > 1) {
    std::vector<std::string> paths = CheckpointsBefore(opt.checkpoint, checkpoint.step,
                                                       opt.average - 1);
    const std::string oldest = paths.back();
    paths.insert(paths.begin(), opt.checkpoint);
    checkpoint = nn::AverageCheckpoints(paths);
    averaged = ", the average of " + std::to_string(paths.size()) + " checkpoints back to " +
               std::filesystem::path(oldest).filename().string();
  }
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
  std::cout << "exported " << opt.checkpoint << " (step " << checkpoint.step << averaged << ", "
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
  cmd->add_option("--average", opt->average,
                  "Export the mean weights of the checkpoint and the N-1 checkpoints (step-*.ckpt) "
                  "written before it in its folder (1: the checkpoint alone)")
      ->check(CLI::Range(1, 100000));
  cmd->callback([opt] { RunExport(*opt); });
}

}  // namespace othello::cli
