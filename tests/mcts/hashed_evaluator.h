#pragma once
// A deterministic test evaluator whose every output is a function of the position alone
// (its hash): priors, win/draw/loss and the disc-difference head differ from position to
// position, so a search that applied one position's output to another (a wrong batch
// offset, a stale root evaluation) grows another tree. Unlike UniformEvaluator, whose
// outputs the search cannot tell apart once it renormalises over the legal moves.
// Thread safety: stateless but for the call counter (atomic).
#include <atomic>
#include <cstdint>

#include "core/hash.h"
#include "mcts/evaluator.h"

namespace othello::mcts {

// A uniform double in [0, 1) from a hash.
inline double HashedUnit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

inline void HashedOutput(const core::Position& pos, EvalOutput& out) {
  const std::uint64_t h = core::HashBoard(pos.size(), pos.player(), pos.opponent());
  const int squares = pos.size() * pos.size();
  for (int sq = 0; sq <= squares; ++sq) {
    out.policy[sq] = static_cast<float>(0.05 + HashedUnit(core::Mix64(h + sq + 1)));
  }
  const float win = static_cast<float>(0.9 * HashedUnit(core::Mix64(h ^ 0x1234)));
  const float loss = static_cast<float>((0.95 - win) * HashedUnit(core::Mix64(h ^ 0x5678)));
  out.win = win;
  out.loss = loss;
  out.draw = 1.0f - win - loss;
  out.has_aux = true;
  out.disc_difference = static_cast<float>(squares * (HashedUnit(core::Mix64(h ^ 0x9abc)) - 0.5));
}

class HashedEvaluator : public Evaluator {
 public:
  void Submit(EvalBatch& batch) override {
    batch.Restart();
    batch.outputs().resize(batch.size());
    for (int i = 0; i < batch.size(); ++i) HashedOutput(batch.positions()[i], batch.outputs()[i]);
    calls_.fetch_add(1, std::memory_order_relaxed);
    positions_.fetch_add(batch.size(), std::memory_order_relaxed);
    batch.MarkDone();
  }
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }
  std::uint64_t calls() const { return calls_.load(); }
  std::uint64_t positions() const { return positions_.load(); }

 private:
  std::atomic<std::uint64_t> calls_{0}, positions_{0};
};

}  // namespace othello::mcts
