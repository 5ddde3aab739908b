#include "mcts/evaluator.h"

#include <map>

#include "core/hash.h"
#include "core/rng.h"
#include "core/rules.h"

namespace othello::mcts {

void SetUniformPolicy(const Position& position, EvalOutput& out) {
  const int size = position.size();
  const core::Bitboard legal = position.LegalMoves();
  const int count = core::PopCount(legal);
  std::fill(out.policy.begin(), out.policy.begin() + size * size + 1, 0.0f);
  if (count == 0) {
    out.policy[size * size] = 1.0f;
    return;
  }
  const float p = 1.0f / static_cast<float>(count);
  core::ForEachSquare(legal, [&](Square sq) { out.policy[sq] = p; });
}

void UniformEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  for (int i = 0; i < batch.size(); ++i) {
    EvalOutput& out = batch.outputs()[i];
    SetUniformPolicy(batch.positions()[i], out);
    out.win = out.loss = 0.0f;
    out.draw = 1.0f;
  }
  batch.MarkDone();
}

void FunctionEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  std::vector<const Position*> positions;
  std::vector<EvalOutput*> outputs;
  positions.reserve(batch.size());
  outputs.reserve(batch.size());
  for (int i = 0; i < batch.size(); ++i) {
    positions.push_back(&batch.positions()[i]);
    outputs.push_back(&batch.outputs()[i]);
  }
  try {
    run_(positions, outputs);
  } catch (...) {
    batch.Fail(std::current_exception());
    return;
  }
  batch.MarkDone();
}

void RolloutEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  core::Rng rng(core::Mix64(seed_ ^ calls_.fetch_add(1, std::memory_order_relaxed)));
  core::Rules rules;
  rules.anti = anti_;
  for (int i = 0; i < batch.size(); ++i) {
    const Position& start = batch.positions()[i];
    EvalOutput& out = batch.outputs()[i];
    SetUniformPolicy(start, out);
    rules.size = start.size();
    int wins = 0, draws = 0;
    for (int r = 0; r < rollouts_; ++r) {
      Position pos = start;
      while (!pos.IsGameOver()) pos = pos.Play(core::RandomLegalMove(pos, rng));
      const int margin = core::Score(pos, rules).MarginFor(start.side_to_move());
      wins += margin > 0;
      draws += margin == 0;
    }
    out.win = static_cast<float>(wins) / rollouts_;
    out.draw = static_cast<float>(draws) / rollouts_;
    out.loss = 1.0f - out.win - out.draw;
  }
  batch.MarkDone();
}

void ForEachBoardSize(const std::vector<const Position*>& positions,
                      const std::vector<EvalOutput*>& outputs, const EvalFunction& run) {
  std::map<int, std::vector<std::size_t>> by_size;
  for (std::size_t i = 0; i < positions.size(); ++i) by_size[positions[i]->size()].push_back(i);
  if (by_size.size() == 1) {  // the usual case: no copies
    run(positions, outputs);
    return;
  }
  for (const auto& [size, indices] : by_size) {
    std::vector<const Position*> same_size;
    std::vector<EvalOutput*> same_size_outputs;
    for (std::size_t i : indices) {
      same_size.push_back(positions[i]);
      same_size_outputs.push_back(outputs[i]);
    }
    run(same_size, same_size_outputs);
  }
}

}  // namespace othello::mcts
