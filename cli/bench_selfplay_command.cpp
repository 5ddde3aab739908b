// othello-zero bench selfplay: self-play's own workers (training/self_play.h, the code
// `train` runs: many games per thread, the exact solver, the replay samples) for a few
// seconds, with a free evaluator or the config's network (random weights), the samples
// discarded. Prints one block of `name value` lines (or one JSON object): rates, the
// mean batch, and the workers' time shares.
//
// --evaluator uniform: mcts::UniformEvaluator in the network's place, behind the same
// result cache, each position the cache misses encoded as the network path encodes it
// (nn::EncodePosition, under a random symmetry when inference.random_symmetry): the
// CPU side alone, the ceiling that a faster network cannot raise.
// --evaluator net: the config's network as self-play builds it (SelfPlayEvaluator of
// MakeNetEvaluator: the Eigen path on the CPU, else LibTorch's batched NetEvaluator).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/symmetry.h"
#include "mcts/eval_cache.h"
#include "nn/encoding.h"
#include "nn/inference.h"
#include "training/config.h"
#include "training/self_play.h"

namespace othello::cli {
namespace {

using Clock = std::chrono::steady_clock;

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

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A CLI check: a number of seconds above 0 (at least 0 when `zero`).
CLI::Validator Seconds(bool zero) {
  return CLI::Validator(
      [zero](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool ok = end != text.c_str() && *end == '\0' && std::isfinite(v) &&
                        (zero ? v >= 0 : v > 0);
        return ok ? "" : "expected a number of seconds " + std::string(zero ? "of at least 0" : "above 0") +
                             ", not '" + text + "'";
      },
      zero ? "SECONDS>=0" : "SECONDS>0");
}

// UniformEvaluator's outputs after the network path's input encoding, timed (the
// encoding's share); the planes are kept per thread so the work cannot be dropped.
class EncodingUniformEvaluator : public mcts::Evaluator {
 public:
  EncodingUniformEvaluator(bool encode, bool random_symmetry)
      : encode_(encode), random_symmetry_(random_symmetry) {}
  void Submit(mcts::EvalBatch& batch) override {
    if (encode_) Encode(batch);
    uniform_.Submit(batch);
  }
  void Wait(mcts::EvalBatch& batch) override { uniform_.Wait(batch); }
  double encode_seconds() const { return encode_ns_.load(std::memory_order_relaxed) * 1e-9; }

 private:
  void Encode(const mcts::EvalBatch& batch) {
    const Clock::time_point start = Clock::now();
    thread_local std::vector<float> planes;
    thread_local core::Rng rng(core::Mix64(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    for (int i = 0; i < batch.size(); ++i) {
      const core::Position& pos = batch.positions()[i];
      const std::size_t stride = static_cast<std::size_t>(nn::kInputPlanes) * pos.squares();
      if (planes.size() < stride * batch.size()) planes.resize(stride * batch.size());
      float* out = planes.data() + stride * i;
      if (random_symmetry_) {
        const int symmetry = static_cast<int>(rng.Below(core::kNumSymmetries));
        nn::EncodePosition(core::TransformPosition(pos, symmetry), out);
      } else {
        nn::EncodePosition(pos, out);
      }
    }
    encode_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start)
                             .count(),
                         std::memory_order_relaxed);
  }

  const bool encode_, random_symmetry_;
  mcts::UniformEvaluator uniform_;
  std::atomic<std::uint64_t> encode_ns_{0};
};

// What self-play evaluates with, and handles on its parts for their statistics.
struct BenchEvaluator {
  std::shared_ptr<mcts::Evaluator> evaluator;        // what the workers get
  std::shared_ptr<mcts::Evaluator> network;          // behind the cache (if any)
  const EncodingUniformEvaluator* uniform = nullptr;  // --evaluator uniform
  const nn::NetEvaluator* batched = nullptr;          // LibTorch's batched server
  const mcts::CachingEvaluator* cache = nullptr;
  std::string backend = "-", device = "-", dtype = "-";
  std::unique_ptr<nn::OthelloNet> net;                // --evaluator net: random weights
};

const char* DtypeName(torch::ScalarType t) {
  return t == torch::kFloat32 ? "fp32" : t == torch::kFloat16 ? "fp16" : "bf16";
}

BenchEvaluator MakeBenchEvaluator(const training::TrainingConfig& config,
                                  const BenchSelfPlayOptions& opt) {
  BenchEvaluator b;
  if (opt.evaluator == "uniform") {
    auto uniform = std::make_shared<EncodingUniformEvaluator>(!opt.no_encode,
                                                              config.inference.random_symmetry);
    b.uniform = uniform.get();
    b.network = uniform;
  } else {
    b.net = std::make_unique<nn::OthelloNet>(config.net);
    b.network = training::MakeNetEvaluator(*b.net, /*step=*/0, config.inference, config.rules);
    b.batched = dynamic_cast<const nn::NetEvaluator*>(b.network.get());
    b.backend = b.batched ? "torch" : "eigen";
    b.device = b.batched ? b.batched->device().str() : "cpu";
    b.dtype = b.batched ? DtypeName(b.batched->dtype()) : "fp32";
  }
  b.evaluator = training::SelfPlayEvaluator(b.network, config.inference);
  b.cache = dynamic_cast<const mcts::CachingEvaluator*>(b.evaluator.get());
  return b;
}

// The counters the report is computed from, at one moment.
struct Snapshot {
  double time = 0;
  std::uint64_t games = 0, moves = 0, playouts = 0, calls = 0, positions = 0;
  std::uint64_t round_calls = 0, round_positions = 0;
  std::uint64_t tree_ns = 0, evaluator_ns = 0, solver_ns = 0, other_ns = 0;
  double encode_seconds = 0;
  std::uint64_t hits = 0, misses = 0, net_calls = 0, net_positions = 0;
};

Snapshot Take(const training::SelfPlayStats& s, const BenchEvaluator& b, Clock::time_point start) {
  auto get = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  Snapshot x;
  x.time = Since(start);
  x.games = get(s.games);
  x.moves = get(s.moves);
  x.playouts = get(s.playouts);
  x.calls = get(s.evaluator_calls);
  x.positions = get(s.evaluator_positions);
  x.round_calls = get(s.round_calls);
  x.round_positions = get(s.round_positions);
  x.tree_ns = get(s.tree_ns);
  x.evaluator_ns = get(s.evaluator_ns);
  x.solver_ns = get(s.solver_ns);
  x.other_ns = get(s.other_ns);
  if (b.uniform) x.encode_seconds = b.uniform->encode_seconds();
  if (b.cache) x.hits = b.cache->cache().hits(), x.misses = b.cache->cache().misses();
  if (b.batched) {
    x.net_calls = b.batched->batcher().backend_calls();
    x.net_positions = b.batched->batcher().positions_evaluated();
  }
  return x;
}

// The self-play workers on their own threads; a failing worker stops the others and
// its error is rethrown by Join().
class Workers {
 public:
  Workers(const training::TrainingConfig& config, training::ModelSource& models,
          training::SelfPlayStats& stats)
      : errors_(config.selfplay_threads) {
    for (int t = 0; t < config.selfplay_threads; ++t) {
      threads_.emplace_back([&, t] {
        try {
          training::SelfPlayWorker worker(config, models, [](const auto&) {}, stats,
                                          core::Mix64(config.seed * 1000003 + t));
          worker.Run(stop_);
        } catch (...) {
          errors_[t] = std::current_exception();
          stop_.store(true);
        }
      });
    }
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  ~Workers() { Stop(); }

  // Sleeps `seconds`, or less when a worker fails.
  void Sleep(double seconds) {
    const Clock::time_point start = Clock::now();
    while (!stop_.load() && Since(start) < seconds) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  void Join() {
    Stop();
    for (std::size_t t = 0; t < errors_.size(); ++t) {
      if (errors_[t]) {
        try {
          std::rethrow_exception(errors_[t]);
        } catch (const std::exception& e) {
          throw CliError("self-play thread " + std::to_string(t) + " failed: " + e.what());
        }
      }
    }
  }

 private:
  void Stop() {
    stop_.store(true);
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // one per thread, read after the join
  std::vector<std::thread> threads_;
};

// The report of the window between `a` and `b`.
nlohmann::ordered_json Report(const training::TrainingConfig& config,
                              const BenchSelfPlayOptions& opt, const BenchEvaluator& be,
                              const Snapshot& a, const Snapshot& b) {
  const double seconds = b.time - a.time;
  const double threads = config.selfplay_threads;
  auto rate = [&](std::uint64_t x, std::uint64_t y) { return (y - x) / seconds; };
  auto ratio = [](double num, double den) { return den > 0 ? num / den : 0.0; };
  const double encode = b.encode_seconds - a.encode_seconds;
  const double evaluator = (b.evaluator_ns - a.evaluator_ns) * 1e-9;
  const double tree = (b.tree_ns - a.tree_ns) * 1e-9, solver = (b.solver_ns - a.solver_ns) * 1e-9;
  const double other = (b.other_ns - a.other_ns) * 1e-9;
  const double total = tree + evaluator + solver + other;
  const std::uint64_t lookups = (b.hits - a.hits) + (b.misses - a.misses);
  const std::uint64_t net_positions = be.cache ? b.misses - a.misses : b.positions - a.positions;
  nlohmann::ordered_json j;
  j["config"] = opt.config;
  j["evaluator"] = opt.evaluator;
  j["encoding"] = opt.evaluator == "uniform" ? (opt.no_encode ? "off" : "on") : "in the evaluator";
  j["backend"] = be.backend;
  j["device"] = be.device;
  j["dtype"] = be.dtype;
  j["threads"] = config.selfplay_threads;
  j["games_per_thread"] = config.games_per_thread;
  j["leaves_per_game"] = config.leaves_per_game;
  j["max_batch"] = config.inference.max_batch;
  j["seconds"] = seconds;
  j["warmup_seconds"] = a.time;
  j["games"] = b.games - a.games;
  j["positions"] = b.moves - a.moves;
  j["positions_per_s"] = rate(a.moves, b.moves);
  j["playouts_per_s"] = rate(a.playouts, b.playouts);
  j["playouts_per_s_per_thread"] = rate(a.playouts, b.playouts) / threads;
  j["evaluations_per_s"] = rate(a.positions, b.positions);
  j["cache_hit_rate"] = ratio(static_cast<double>(b.hits - a.hits), static_cast<double>(lookups));
  j["network_evaluations_per_s"] = net_positions / seconds;
  j["mean_batch"] = ratio(static_cast<double>(b.positions - a.positions),
                          static_cast<double>(b.calls - a.calls));
  j["round_batch"] = ratio(static_cast<double>(b.round_positions - a.round_positions),
                           static_cast<double>(b.round_calls - a.round_calls));
  j["root_evaluations_per_s"] =
      rate(a.calls - a.round_calls, b.calls - b.round_calls);  // one position each
  j["network_batch"] =
      be.batched ? ratio(static_cast<double>(b.net_positions - a.net_positions),
                         static_cast<double>(b.net_calls - a.net_calls))
                 : ratio(static_cast<double>(net_positions), static_cast<double>(b.calls - a.calls));
  j["share_tree"] = ratio(tree, total);
  j["share_encoding"] = ratio(encode, total);
  j["share_evaluator"] = ratio(evaluator - encode, total);
  j["share_solver"] = ratio(solver, total);
  j["share_other"] = ratio(other, total);
  j["busy"] = ratio(total, seconds * threads);  // measured time per thread-second (~1)
  return j;
}

void Print(const nlohmann::ordered_json& j, bool json) {
  if (json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("bench selfplay\n");
  for (const auto& [key, value] : j.items()) {
    if (value.is_number_float()) {
      const double v = value.get<double>();
      const char* format = v >= 100 ? "%-26s %.0f\n" : v >= 1 ? "%-26s %.2f\n"
                           : v >= 0.001 || v == 0 ? "%-26s %.4f\n" : "%-26s %.3g\n";
      std::printf(format, key.c_str(), v);
    } else {
      std::printf("%-26s %s\n", key.c_str(),
                  value.is_string() ? value.get<std::string>().c_str() : value.dump().c_str());
    }
  }
}

void RunBenchSelfPlay(const BenchSelfPlayOptions& opt) {
  std::vector<std::string> overrides = opt.overrides;
  if (opt.threads > 0) overrides.push_back("selfplay.threads=" + std::to_string(opt.threads));
  if (!opt.device.empty()) overrides.push_back("inference.device=" + opt.device);
  training::TrainingConfig config = training::LoadTrainingConfig(opt.config, overrides);
  config = training::SizedForMachine(config, training::ThisMachine(config.inference.device));
  BenchEvaluator evaluator = MakeBenchEvaluator(config, opt);
  training::ModelSource models(config.inference, config.rules);
  models.Publish(evaluator.evaluator, /*step=*/0);
  training::SelfPlayStats stats;
  const Clock::time_point start = Clock::now();
  Workers workers(config, models, stats);
  workers.Sleep(opt.warmup);
  const Snapshot before = Take(stats, evaluator, start);
  workers.Sleep(opt.seconds);
  const Snapshot after = Take(stats, evaluator, start);
  workers.Join();
  Print(Report(config, opt, evaluator, before, after), opt.json);
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
      ->check(Seconds(/*zero=*/false))
      ->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "Seconds played before the measurement")
      ->check(Seconds(/*zero=*/true))
      ->capture_default_str();
  cmd->add_option("--device", opt->device,
                  "Network device: auto, cpu, cuda or cuda:N (default: inference.device)");
  cmd->add_flag("--no-encode", opt->no_encode,
                "With --evaluator uniform: skip the input encoding (free evaluations exactly)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of name-value lines");
  cmd->callback([opt] { RunBenchSelfPlay(*opt); });
}

}  // namespace othello::cli
