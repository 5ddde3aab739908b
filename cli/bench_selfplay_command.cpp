// othello-zero bench selfplay: the options of training/self_play_bench.h's harness, and
// its report printed as one block of `name value` lines (or one JSON object).
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/bench_report.h"
#include "cli/commands.h"
#include "training/config.h"
#include "training/self_play_bench.h"

namespace othello::cli {
namespace {

struct BenchSelfPlayOptions {
  std::string config;
  std::vector<std::string> overrides;
  std::string evaluator = "uniform";
  int threads = 0;     // 0: the config's selfplay.threads
  double seconds = 5.0;
  double warmup = 1.0;
  std::string device;  // "": the config's inference.device
  bool no_encode = false;
  bool json = false;
};

void RunBenchSelfPlay(const BenchSelfPlayOptions& opt) {
  std::vector<std::string> overrides = opt.overrides;
  if (opt.threads > 0) overrides.push_back("selfplay.threads=" + std::to_string(opt.threads));
  if (!opt.device.empty()) overrides.push_back("inference.device=" + opt.device);
  training::TrainingConfig config = training::LoadTrainingConfig(opt.config, overrides);
  config = training::SizedForMachine(config, training::ThisMachine(config.inference.device));
  training::SelfPlayBenchOptions bench;
  bench.config_name = opt.config;
  bench.evaluator = opt.evaluator;
  bench.encode = !opt.no_encode;
  bench.warmup = opt.warmup;
  bench.seconds = opt.seconds;
  PrintBenchReport("bench selfplay", training::BenchSelfPlay(config, bench), opt.json);
}

}  // namespace

void RegisterBenchSelfPlay(CLI::App& bench) {
  auto opt = std::make_shared<BenchSelfPlayOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "selfplay", "Self-play's own workers for a few seconds (samples discarded): positions, "
                  "playouts and evaluations per second, the mean batch, and the time shares of "
                  "tree work, encoding, the evaluator, the exact solver and the rest");
  cmd->add_option("--config", opt->config, "Configuration file (configs/NAME.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", opt->overrides, "Override a key: --set selfplay.games_per_thread=64");
  cmd->add_option("--evaluator", opt->evaluator,
                  "uniform (free evaluations: the CPU side alone) or net (the config's "
                  "network, random weights)")
      ->check(CLI::IsMember({"uniform", "net"}))
      ->capture_default_str();
  cmd->add_option("--threads", opt->threads, "Self-play threads (default: selfplay.threads)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--seconds", opt->seconds, "Seconds measured")
      ->check(SecondsCheck(/*zero=*/false))
      ->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "Seconds played before the measurement")
      ->check(SecondsCheck(/*zero=*/true))
      ->capture_default_str();
  cmd->add_option("--device", opt->device,
                  "Network device: auto, cpu, cuda or cuda:N (default: inference.device)");
  cmd->add_flag("--no-encode", opt->no_encode,
                "With --evaluator uniform: skip the input encoding (free evaluations exactly)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of name-value lines");
  cmd->callback([opt] { RunBenchSelfPlay(*opt); });
}

}  // namespace othello::cli
