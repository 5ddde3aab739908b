#include "training/self_play_bench.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/hash.h"
#include "core/rng.h"
#include "core/stopwatch.h"
#include "core/symmetry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/eval_cache.h"
#include "nn/encoding.h"
#include "nn/evaluator.h"
#include "nn/model.h"
#include "training/self_play.h"

namespace othello::training {
namespace {

using Clock = std::chrono::steady_clock;

// Sleeps `seconds`, or less when a self-play thread stops (fails).
void Sleep(const SelfPlayThreads& threads, double seconds) {
  const Clock::time_point start = Clock::now();
  while (!threads.stopped() && core::SecondsSince(start) < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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
  std::shared_ptr<mcts::Evaluator> evaluator;         // what the workers get
  const EncodingUniformEvaluator* uniform = nullptr;  // evaluator uniform
  nn::EvaluatorLayers layers;                         // evaluator net: its batcher, the cache
  std::unique_ptr<nn::OthelloNet> net;                // evaluator net: random weights
};

BenchEvaluator MakeBenchEvaluator(const TrainingConfig& config,
                                  const SelfPlayBenchOptions& opt) {
  BenchEvaluator b;
  if (opt.evaluator == "uniform") {
    auto uniform = std::make_shared<EncodingUniformEvaluator>(opt.encode,
                                                              config.inference.random_symmetry);
    b.uniform = uniform.get();
    nn::EvaluatorOptions stack = config.inference;
    stack.random_symmetry = false;  // the stand-in draws its own (for the encoding)
    b.evaluator = nn::WrapNetwork(uniform, /*step=*/0, stack, &b.layers);
    b.layers.backend = b.layers.device = b.layers.precision = "-";
  } else {
    b.net = std::make_unique<nn::OthelloNet>(config.net);
    b.evaluator = nn::MakeEvaluator(*b.net, config.rules, /*step=*/0, config.inference, &b.layers);
  }
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

Snapshot Take(const SelfPlayStats& s, const BenchEvaluator& b, Clock::time_point start) {
  auto get = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  Snapshot x;
  x.time = core::SecondsSince(start);
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
  if (const auto& cache = b.layers.cache) {
    x.hits = cache->cache().hits(), x.misses = cache->cache().misses();
  }
  if (const auto& batcher = b.layers.batcher) {
    x.net_calls = batcher->backend_calls();
    x.net_positions = batcher->positions_evaluated();
  }
  return x;
}

// The report of the window between `a` and `b`.
nlohmann::ordered_json Report(const TrainingConfig& config,
                              const SelfPlayBenchOptions& opt, const BenchEvaluator& be,
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
  const std::uint64_t net_positions =
      be.layers.cache ? b.misses - a.misses : b.positions - a.positions;
  nlohmann::ordered_json j;
  j["config"] = opt.config_name;
  j["evaluator"] = opt.evaluator;
  j["encoding"] = opt.evaluator == "uniform" ? (opt.encode ? "on" : "off") : "in the evaluator";
  j["backend"] = be.layers.backend;
  j["device"] = be.layers.device;
  j["dtype"] = be.layers.precision;
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
  // Calls outside search rounds: none, as each search's root joins the next round's batch.
  j["root_evaluations_per_s"] = rate(a.calls - a.round_calls, b.calls - b.round_calls);
  j["network_batch"] =
      be.layers.batcher ? ratio(static_cast<double>(b.net_positions - a.net_positions),
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

}  // namespace

nlohmann::ordered_json BenchSelfPlay(const TrainingConfig& config,
                                     const SelfPlayBenchOptions& options) {
  BenchEvaluator evaluator = MakeBenchEvaluator(config, options);
  ModelSource models(config.inference, config.rules);
  models.Publish(evaluator.evaluator, /*step=*/0);
  SelfPlayStats stats;
  const Clock::time_point start = Clock::now();
  SelfPlayThreads threads(config, models, [](const std::vector<Sample>&) {}, stats, config.seed);
  Sleep(threads, options.warmup);
  const Snapshot before = Take(stats, evaluator, start);
  Sleep(threads, options.seconds);
  const Snapshot after = Take(stats, evaluator, start);
  threads.Stop();
  threads.RethrowError();
  return Report(config, options, evaluator, before, after);
}

}  // namespace othello::training
