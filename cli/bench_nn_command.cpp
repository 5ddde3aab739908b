// othello-zero bench nn: network evaluations per second, raw forward passes against
// the inference server fed by many client threads, per batch size.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "core/rules.h"
#include "nn/evaluator.h"
#include "nn/inference.h"
#include "nn/mixed_precision.h"

namespace othello::cli {
namespace {

struct BenchNnOptions {
  int blocks = nn::NetConfig{}.blocks;
  int channels = nn::NetConfig{}.channels;
  std::vector<int> batches = {1, 8, 64, 256};
  std::string device = "auto";
  std::string precision = "auto";
  int threads = 0;
  double seconds = 2.0;
  std::string cuda_graphs = "off";  // off, on or both (each batch twice)
};

std::vector<core::Position> Positions(int count) {
  core::Rules rules;
  rules.start = core::StartKind::kRandom;
  std::vector<core::Position> out;
  for (int i = 0; i < count; ++i) {
    rules.random_moves = 4 + i % 50;
    out.push_back(core::StartPosition(rules, static_cast<std::uint64_t>(i)));
  }
  return out;
}

double Elapsed(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Raw forward passes of `batch` positions, evaluations per second.
double RawRate(nn::TorchNet& net, int batch, double seconds) {
  const std::vector<core::Position> positions = Positions(batch);
  std::vector<mcts::EvalOutput> storage(batch);
  std::vector<const core::Position*> p;
  std::vector<mcts::EvalOutput*> o;
  for (int i = 0; i < batch; ++i) {
    p.push_back(&positions[i]);
    o.push_back(&storage[i]);
  }
  const auto warm = std::chrono::steady_clock::now();
  while (Elapsed(warm) < std::min(0.5, seconds / 4)) net.Forward(p, o);  // warm-up
  std::uint64_t evaluated = 0;
  const auto start = std::chrono::steady_clock::now();
  while (Elapsed(start) < seconds) {
    net.Forward(p, o);
    evaluated += batch;
  }
  return evaluated / Elapsed(start);
}

// Many client threads submitting small batches; the server merges them into batches
// of `batch`. Two batches' worth of clients keep the next batch filling while one runs.
double ServerRate(mcts::Evaluator& evaluator, int batch, double seconds) {
  const int per_client = std::max(1, batch / 8);
  const int clients = 2 * std::max(1, batch / per_client);
  std::atomic<std::uint64_t> evaluated{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      mcts::EvalBatch request;
      for (const core::Position& pos : Positions(per_client + c)) {
        if (request.size() < per_client) request.Add(pos);
      }
      while (!stop.load(std::memory_order_relaxed)) {
        evaluator.Evaluate(request);
        evaluated.fetch_add(per_client, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& t : threads) t.join();
  return evaluated.load() / Elapsed(start);
}

// One row: raw and server rates of `batch` positions, CUDA graphs on or off.
void BenchRow(nn::OthelloNet& net, const BenchNnOptions& opt, int batch, bool cuda_graphs) {
  nn::EvaluatorOptions options;
  options.backend = "torch";  // the LibTorch network is what this measures
  options.device = opt.device;
  options.precision = opt.precision;
  options.max_batch = batch;
  options.max_wait_us = 2000;
  options.threads = opt.threads;
  options.cuda_graphs = cuda_graphs;
  nn::TorchNet raw_net(net, options);
  const double raw = RawRate(raw_net, batch, opt.seconds);
  const std::shared_ptr<mcts::Evaluator> server_net =
      nn::MakeEvaluator(net, core::Rules{}, /*step=*/0, options);
  const double server = ServerRate(*server_net, batch, opt.seconds);
  // Graphs run on CUDA only (nn/forward_graphs.h): "off" on the CPU whatever was asked.
  const bool graphs = cuda_graphs && raw_net.device().is_cuda();
  std::printf("%-6d %-8s %-6s %8d %14.0f %14.0f %8.3f %6s\n", batch,
              raw_net.device().str().c_str(), nn::PrecisionName(raw_net.dtype()).c_str(),
              raw_net.device().is_cpu() ? torch::get_num_threads() : 0, raw, server,
              server / raw, graphs ? "on" : "off");
  std::fflush(stdout);
}

void RunBenchNn(const BenchNnOptions& opt) {
  nn::NetConfig config;
  config.blocks = opt.blocks;
  config.channels = opt.channels;
  nn::OthelloNet net(config);
  std::printf("network: %s\n", config.Describe().c_str());
  std::printf("%-6s %-8s %-6s %8s %14s %14s %8s %6s\n", "batch", "device", "dtype", "threads",
              "raw evals/s", "server evals/s", "ratio", "graphs");
  for (int batch : opt.batches) {
    if (opt.cuda_graphs != "on") BenchRow(net, opt, batch, /*cuda_graphs=*/false);
    if (opt.cuda_graphs != "off") BenchRow(net, opt, batch, /*cuda_graphs=*/true);
  }
}

}  // namespace

void RegisterBenchNn(CLI::App& bench) {
  auto opt = std::make_shared<BenchNnOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "nn", "Network evaluations per second per batch size: raw forward passes and the "
            "inference server fed by many client threads");
  cmd->add_option("--blocks", opt->blocks, "Residual blocks")->capture_default_str();
  cmd->add_option("--channels", opt->channels, "Channels")->capture_default_str();
  cmd->add_option("--batch", opt->batches, "Batch sizes, e.g. 1,8,64,256")
      ->delimiter(',')
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  cmd->add_option("--device", opt->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--precision", opt->precision, "auto, fp32, fp16 or bf16 (CUDA)")
      ->capture_default_str();
  cmd->add_option("--threads", opt->threads, "LibTorch CPU threads (0: the default)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  cmd->add_option("--cuda-graphs", opt->cuda_graphs,
                  "CUDA graphs of the forward pass (inference.cuda_graphs): off, on, or both "
                  "(each batch measured without, then with)")
      ->check(CLI::IsMember({"off", "on", "both"}))
      ->capture_default_str();
  cmd->add_option("--seconds", opt->seconds, "Seconds per measurement")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([opt] { RunBenchNn(*opt); });
}

}  // namespace othello::cli
