#include "mcts/symmetry_evaluator.h"

#include "core/hash.h"
#include "core/rng.h"
#include "core/symmetry.h"

namespace othello::mcts {

struct RandomSymmetryEvaluator::Transformed {
  EvalBatch batch;              // the positions in their drawn orientations
  std::vector<int> symmetries;  // symmetries[i]: the one drawn for position i
  void Clear() {
    batch.Clear();
    symmetries.clear();
  }
};

RandomSymmetryEvaluator::RandomSymmetryEvaluator(std::shared_ptr<Evaluator> inner,
                                                 std::uint64_t seed)
    : inner_(std::move(inner)), seed_(seed) {}

RandomSymmetryEvaluator::~RandomSymmetryEvaluator() = default;

void RandomSymmetryEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  std::unique_ptr<Transformed> transformed = pending_.Take();
  core::Rng rng(core::Mix64(seed_ ^ calls_.fetch_add(1, std::memory_order_relaxed)));
  transformed->symmetries.resize(batch.size());
  for (int i = 0; i < batch.size(); ++i) {
    const int symmetry = static_cast<int>(rng.Below(core::kNumSymmetries));
    transformed->symmetries[i] = symmetry;
    transformed->batch.Add(core::TransformPosition(batch.positions()[i], symmetry));
  }
  try {
    inner_->Submit(transformed->batch);
  } catch (...) {
    pending_.Recycle(std::move(transformed));
    throw;  // nothing is pending
  }
  pending_.Add(batch, std::move(transformed));
}

void RandomSymmetryEvaluator::Wait(EvalBatch& batch) {
  std::unique_ptr<Transformed> transformed = pending_.Remove(batch);
  if (transformed) {
    try {
      inner_->Wait(transformed->batch);
      for (int i = 0; i < batch.size(); ++i) {
        // Output square sq of the original position is square T(sq) of the transformed one.
        const EvalOutput& seen = transformed->batch.output(i);
        EvalOutput& out = batch.outputs()[i];
        out = seen;
        const int size = batch.positions()[i].size(), area = size * size;
        for (int sq = 0; sq < area; ++sq) {
          const int t = core::TransformSquare(sq, size, transformed->symmetries[i]);
          out.policy[sq] = seen.policy[t];
          out.ownership[sq] = seen.ownership[t];
        }
      }
      batch.MarkDone();
    } catch (...) {
      batch.Fail(std::current_exception());
    }
    pending_.Recycle(std::move(transformed));
  }
  batch.WaitDone();
}

}  // namespace othello::mcts
