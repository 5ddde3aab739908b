// othello-zero bench train: the options of training/train_bench.h's harness, and its
// report printed as one block of `name value` lines (or one JSON object).
#include <memory>
#include <string>
#include <vector>

#include "cli/bench_report.h"
#include "cli/commands.h"
#include "training/config.h"
#include "training/train_bench.h"

namespace othello::cli {
namespace {

struct BenchTrainOptions {
  std::string config;
  std::vector<std::string> overrides;
  int threads = 0;     // 0: the config's train.threads
  double seconds = 10.0;
  double warmup = 2.0;
  std::string device;  // "": the config's inference.device
  bool json = false;
};

void RunBenchTrain(const BenchTrainOptions& opt) {
  std::vector<std::string> overrides = opt.overrides;
  if (opt.threads > 0) overrides.push_back("train.threads=" + std::to_string(opt.threads));
  if (!opt.device.empty()) overrides.push_back("inference.device=" + opt.device);
  training::TrainingConfig config = training::LoadTrainingConfig(opt.config, overrides);
  config = training::SizedForMachine(config, training::ThisMachine(config.inference.device));
  training::TrainBenchOptions bench;
  bench.config_name = opt.config;
  bench.warmup = opt.warmup;
  bench.seconds = opt.seconds;
  PrintBenchReport("bench train", training::BenchTrain(config, bench), opt.json);
}

}  // namespace

void RegisterBenchTrain(CLI::App& bench) {
  auto opt = std::make_shared<BenchTrainOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "train", "The trainer's optimiser steps on a fresh network of the config's shape for a few "
               "seconds (random positions): steps and samples per second at train.batch_size, "
               "train.threads and train.precision");
  cmd->add_option("--config", opt->config, "Configuration file (configs/NAME.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", opt->overrides,
                  "Override a key: --set train.precision=bf16 --set train.batch_size=256");
  cmd->add_option("--threads", opt->threads, "LibTorch threads of the trainer (default: train.threads)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--seconds", opt->seconds, "Seconds measured")
      ->check(SecondsCheck(/*zero=*/false))
      ->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "Seconds of steps before the measurement")
      ->check(SecondsCheck(/*zero=*/true))
      ->capture_default_str();
  cmd->add_option("--device", opt->device,
                  "Training device: auto, cpu, cuda or cuda:N (default: inference.device)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of name-value lines");
  cmd->callback([opt] { RunBenchTrain(*opt); });
}

}  // namespace othello::cli
