#include "mcts/eval_cache.h"

#include <algorithm>
#include <cmath>

#include "core/symmetry.h"

namespace othello::mcts {

EvalCache::EvalCache(std::size_t entries, bool canonical)
    : canonical_(canonical), shards_(new std::mutex[kShards]) {
  std::size_t n = 64;
  while (n < entries) n *= 2;
  entries_.resize(n);
  mask_ = n / 2 - 1;  // index of a pair of slots
}

std::uint64_t EvalCache::KeyOf(const Position& position, int* symmetry) const {
  *symmetry = 0;
  std::uint64_t key = position.Hash();
  if (canonical_) {
    for (int s = 1; s < core::kNumSymmetries; ++s) {
      const std::uint64_t k = core::TransformPosition(position, s).Hash();
      if (k < key) {
        key = k;
        *symmetry = s;
      }
    }
  }
  return key | 1;  // never 0 (the empty marker)
}

bool EvalCache::Lookup(const Position& position, EvalOutput& out) {
  int sym;
  const std::uint64_t key = KeyOf(position, &sym);
  const std::size_t pair = (key >> 1) & mask_;
  const int size = position.size();
  std::lock_guard<std::mutex> lock(shards_[pair % kShards]);
  for (std::size_t slot = pair * 2; slot < pair * 2 + 2; ++slot) {
    const Entry& e = entries_[slot];
    if (e.key != key || e.size != size) continue;
    out.win = e.win;
    out.draw = e.draw;
    out.loss = e.loss;
    out.has_aux = e.has_aux;
    out.disc_difference = e.disc_difference;
    for (int sq = 0; sq < size * size; ++sq) {
      const int stored = core::TransformSquare(sq, size, sym);
      out.policy[sq] = e.policy[stored] / 65535.0f;
      out.ownership[sq] = e.ownership[stored] / 127.0f;
    }
    out.policy[size * size] = e.policy[size * size] / 65535.0f;
    hits_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void EvalCache::Insert(const Position& position, const EvalOutput& output) {
  int sym;
  const std::uint64_t key = KeyOf(position, &sym);
  const std::size_t pair = (key >> 1) & mask_;
  const int size = position.size();
  Entry fresh;
  fresh.key = key;
  fresh.age = clock_.fetch_add(1, std::memory_order_relaxed);
  fresh.size = static_cast<std::int8_t>(size);
  fresh.has_aux = output.has_aux;
  fresh.win = output.win;
  fresh.draw = output.draw;
  fresh.loss = output.loss;
  fresh.disc_difference = output.disc_difference;
  for (int sq = 0; sq < size * size; ++sq) {
    const int stored = core::TransformSquare(sq, size, sym);
    fresh.policy[stored] =
        static_cast<std::uint16_t>(std::lround(std::clamp(output.policy[sq], 0.0f, 1.0f) * 65535));
    fresh.ownership[stored] = static_cast<std::int8_t>(
        std::lround(std::clamp(output.ownership[sq], -1.0f, 1.0f) * 127));
  }
  fresh.policy[size * size] = static_cast<std::uint16_t>(
      std::lround(std::clamp(output.policy[size * size], 0.0f, 1.0f) * 65535));
  std::lock_guard<std::mutex> lock(shards_[pair % kShards]);
  Entry* a = &entries_[pair * 2];
  Entry* b = a + 1;
  Entry* target = a->key == key ? a : b->key == key ? b : (a->age <= b->age ? a : b);
  *target = fresh;
}

struct CachingEvaluator::Misses {
  EvalBatch batch;          // the positions the cache did not know
  std::vector<int> index;   // index[j]: where batch's position j is in the caller's batch
};

CachingEvaluator::CachingEvaluator(Evaluator& inner, std::size_t entries, bool canonical)
    : inner_(inner), cache_(entries, canonical) {}

CachingEvaluator::CachingEvaluator(std::shared_ptr<Evaluator> inner, std::size_t entries,
                                   bool canonical)
    : CachingEvaluator(*inner, entries, canonical) {
  owned_ = std::move(inner);
}

CachingEvaluator::~CachingEvaluator() = default;

void CachingEvaluator::Submit(EvalBatch& batch) {
  batch.Restart();
  batch.outputs().resize(batch.size());
  std::unique_ptr<Misses> misses = TakeSpare();
  for (int i = 0; i < batch.size(); ++i) {
    if (cache_.Lookup(batch.positions()[i], batch.outputs()[i])) continue;
    misses->batch.Add(batch.positions()[i]);
    misses->index.push_back(i);
  }
  if (misses->index.empty()) {
    Recycle(std::move(misses));
    batch.MarkDone();
    return;
  }
  inner_.Submit(misses->batch);  // if it throws, nothing is pending
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.emplace(&batch, std::move(misses));
}

void CachingEvaluator::Wait(EvalBatch& batch) {
  std::unique_ptr<Misses> misses;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = pending_.find(&batch);
    if (it != pending_.end()) {
      misses = std::move(it->second);
      pending_.erase(it);
    }
  }
  if (misses) {  // otherwise every position was a hit: the batch is done
    try {
      inner_.Wait(misses->batch);
      Fill(batch, *misses);
      batch.MarkDone();
    } catch (...) {
      batch.Fail(std::current_exception());
    }
    Recycle(std::move(misses));
  }
  batch.WaitDone();
}

void CachingEvaluator::Fill(EvalBatch& batch, const Misses& misses) {
  for (std::size_t j = 0; j < misses.index.size(); ++j) {
    const EvalOutput& output = misses.batch.output(static_cast<int>(j));
    cache_.Insert(misses.batch.positions()[j], output);
    batch.outputs()[misses.index[j]] = output;
  }
}

std::unique_ptr<CachingEvaluator::Misses> CachingEvaluator::TakeSpare() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.empty()) return std::make_unique<Misses>();
  std::unique_ptr<Misses> misses = std::move(spare_.back());
  spare_.pop_back();
  return misses;
}

void CachingEvaluator::Recycle(std::unique_ptr<Misses> misses) {
  misses->batch.Clear();
  misses->index.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  spare_.push_back(std::move(misses));
}

std::shared_ptr<Evaluator> WithCache(std::shared_ptr<Evaluator> inner, std::size_t entries,
                                     bool canonical) {
  if (entries == 0) return inner;
  return std::make_shared<CachingEvaluator>(std::move(inner), entries, canonical);
}

}  // namespace othello::mcts
