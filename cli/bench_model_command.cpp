// othello-zero bench model: evaluations per second of the LibTorch-free (Eigen) forward
// pass of an exported model, on the calling thread only, per batch size.
#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "core/hash.h"
#include "core/rules.h"
#include "nn/eigen_net.h"

namespace othello::cli {
namespace {

struct BenchModelOptions {
  std::string model;
  int blocks = nn::NetConfig{}.blocks;
  int channels = nn::NetConfig{}.channels;
  std::vector<int> batches = {1, 8, 64};
  double seconds = 2.0;
};

// A model of the given shape with small random weights (speed does not depend on them).
nn::ModelFile RandomModel(const BenchModelOptions& opt) {
  nn::NetConfig net;
  net.blocks = opt.blocks;
  net.channels = opt.channels;
  return nn::RandomModelFile(net);
}

double Elapsed(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void RunBenchModel(const BenchModelOptions& opt) {
  const nn::ModelFile model = opt.model.empty() ? RandomModel(opt) : nn::ReadModelFile(opt.model);
  const nn::EigenNet net(model);
  std::printf("Eigen forward pass, one thread, %s, %dx%d\n", model.net.Describe().c_str(),
              model.rules.size, model.rules.size);
  std::printf("%-8s %14s %12s\n", "batch", "evals/s", "ms/batch");
  core::Rules rules = model.rules;
  rules.start = core::StartKind::kRandom;
  for (const int batch : opt.batches) {
    std::vector<core::Position> positions;
    for (int i = 0; i < batch; ++i) {
      rules.random_moves = 4 + i % 40;
      positions.push_back(core::StartPosition(rules, static_cast<std::uint64_t>(i)));
    }
    std::vector<mcts::EvalOutput> storage(batch);
    std::vector<const core::Position*> p;
    std::vector<mcts::EvalOutput*> o;
    for (int i = 0; i < batch; ++i) p.push_back(&positions[i]), o.push_back(&storage[i]);
    net.Forward(p, o);  // warm-up
    std::uint64_t evaluated = 0, calls = 0;
    const auto start = std::chrono::steady_clock::now();
    while (Elapsed(start) < opt.seconds) {
      net.Forward(p, o);
      evaluated += batch;
      ++calls;
    }
    const double seconds = Elapsed(start);
    std::printf("%-8d %14.0f %12.3f\n", batch, evaluated / seconds, 1000 * seconds / calls);
    std::fflush(stdout);
  }
}

}  // namespace

void RegisterBenchModel(CLI::App& bench) {
  auto opt = std::make_shared<BenchModelOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "model", "Evaluations per second of an exported model's Eigen forward pass on one thread");
  cmd->add_option("--model", opt->model, "Exported model (default: random weights of --blocks/--channels)");
  cmd->add_option("--blocks", opt->blocks, "Residual blocks of the random model")->capture_default_str();
  cmd->add_option("--channels", opt->channels, "Channels of the random model")->capture_default_str();
  cmd->add_option("--batch", opt->batches, "Batch sizes, e.g. 1,8,64")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--seconds", opt->seconds, "Seconds per measurement")->check(CLI::PositiveNumber);
  cmd->callback([opt] { RunBenchModel(*opt); });
}

}  // namespace othello::cli
