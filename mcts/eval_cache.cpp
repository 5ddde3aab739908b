#include "mcts/eval_cache.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/hash.h"
#include "core/symmetry.h"

namespace othello::mcts {
namespace {

// square_map[size][symmetry][sq] = core::TransformSquare(sq, size, symmetry): the
// stored orientation's square of each square, looked up once per square instead of
// a switch and a division.
struct SquareMaps {
  std::array<std::array<std::array<std::uint8_t, core::kMaxSquares>, core::kNumSymmetries>,
             core::kMaxSize + 1>
      square_map{};
  SquareMaps() {
    for (int size = core::kMinSize; size <= core::kMaxSize; ++size) {
      for (int s = 0; s < core::kNumSymmetries; ++s) {
        for (int sq = 0; sq < size * size; ++sq) {
          square_map[size][s][sq] = static_cast<std::uint8_t>(core::TransformSquare(sq, size, s));
        }
      }
    }
  }
};

const std::uint8_t* SquareMap(int size, int symmetry) {
  static const SquareMaps maps;
  return maps.square_map[size][symmetry].data();
}

// std::lround for |x| < 2^31 without the libm call (bit for bit the same: x - trunc(x)
// is exact, and halves round away from zero; checked against std::lround on every
// float in [-70000, 70000]).
inline int Round(float x) {
  const int whole = static_cast<int>(x);
  const float frac = x - static_cast<float>(whole);
  return whole + (frac >= 0.5f) - (frac <= -0.5f);
}

inline std::uint16_t QuantizePolicy(float p) {
  return static_cast<std::uint16_t>(Round(std::clamp(p, 0.0f, 1.0f) * 65535));
}

inline std::int8_t QuantizeOwnership(float o) {
  return static_cast<std::int8_t>(Round(std::clamp(o, -1.0f, 1.0f) * 127));
}

// The key of `position` and the symmetry that takes it to the stored orientation: the
// least hash over the 8 symmetric forms when canonical (the first symmetry on ties), as
// core::TransformPosition(position, s).Hash() computes them.
std::uint64_t KeyOf(const Position& position, bool canonical, int* symmetry) {
  *symmetry = 0;
  const int size = position.size();
  std::uint64_t key = core::HashBoard(size, position.player(), position.opponent());
  if (!canonical) return key | 1;
  const auto consider = [&](std::uint64_t k, int s) {
    if (k < key) {
      key = k;
      *symmetry = s;
    }
  };
  if (size == 8) {
    const auto player = static_cast<std::uint64_t>(position.player());
    const auto opponent = static_cast<std::uint64_t>(position.opponent());
    for (int s = 1; s < core::kNumSymmetries; ++s) {
      consider(core::HashBoard(8, core::Transform8(player, s), core::Transform8(opponent, s)), s);
    }
  } else {
    for (int s = 1; s < core::kNumSymmetries; ++s) {
      consider(core::HashBoard(size, core::TransformBits(position.player(), size, s),
                               core::TransformBits(position.opponent(), size, s)),
               s);
    }
  }
  return key | 1;  // never 0 (the empty marker)
}

}  // namespace

EvalCache::EvalCache(std::size_t entries, bool canonical)
    : canonical_(canonical), shards_(new core::Mutex[kShards]) {
  std::size_t n = 64;
  while (n < entries) n *= 2;
  entries_.resize(n);
  mask_ = n / 2 - 1;  // index of a pair of slots
}

EvalCache::Probe EvalCache::Locate(const Position& position) const {
  int symmetry;
  const std::uint64_t key = KeyOf(position, canonical_, &symmetry);
  // Both slots up to the last byte a position of this size uses: Lookup reads one of
  // them, a miss's Insert later writes one (hence the write intent).
  const std::size_t pair = (key >> 1) & mask_;
  const char* first = reinterpret_cast<const char*>(&entries_[pair * 2]);
  const char* end = reinterpret_cast<const char*>(&entries_[pair * 2 + 1]) +
                    offsetof(Entry, ownership) + position.squares();
  for (const char* line = first; line < end; line += 64) __builtin_prefetch(line, /*rw=*/1);
  __builtin_prefetch(end - 1, /*rw=*/1);
  return {key, symmetry};
}

void EvalCache::Decode(const Entry& e, int size, int symmetry, EvalOutput& out) {
  out.win = e.win;
  out.draw = e.draw;
  out.loss = e.loss;
  out.has_aux = e.has_aux;
  out.disc_difference = e.disc_difference;
  const int n = size * size;
  if (symmetry == 0) {
    for (int sq = 0; sq <= n; ++sq) out.policy[sq] = e.policy[sq] / 65535.0f;
    for (int sq = 0; sq < n; ++sq) out.ownership[sq] = e.ownership[sq] / 127.0f;
    return;
  }
  // Gathered through the square map, then divided in place (a loop without gathers).
  const std::uint8_t* map = SquareMap(size, symmetry);
  for (int sq = 0; sq < n; ++sq) {
    out.policy[sq] = e.policy[map[sq]];
    out.ownership[sq] = e.ownership[map[sq]];
  }
  out.policy[n] = e.policy[n];
  for (int sq = 0; sq <= n; ++sq) out.policy[sq] /= 65535.0f;
  for (int sq = 0; sq < n; ++sq) out.ownership[sq] /= 127.0f;
}

bool EvalCache::Lookup(const Position& position, const Probe& probe, EvalOutput& out) {
  const std::uint64_t key = probe.key;
  const std::size_t pair = (key >> 1) & mask_;
  const int size = position.size();
  core::MutexLock lock(shards_[pair % kShards]);
  for (std::size_t slot = pair * 2; slot < pair * 2 + 2; ++slot) {
    const Entry& e = entries_[slot];
    if (e.key != key || e.size != size) continue;
    Decode(e, size, probe.symmetry, out);
    hits_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void EvalCache::Insert(const Position& position, const Probe& probe, const EvalOutput& output) {
  const std::uint64_t key = probe.key;
  const std::size_t pair = (key >> 1) & mask_;
  const int size = position.size();
  const int n = size * size;
  // Quantised in the stored orientation outside the lock; only the n + 1 policy and n
  // ownership steps a position of this size uses are written (Lookup reads no others).
  std::array<std::uint16_t, core::kMaxSquares + 1> policy;
  std::array<std::int8_t, core::kMaxSquares> ownership;
  if (probe.symmetry == 0) {
    for (int sq = 0; sq <= n; ++sq) policy[sq] = QuantizePolicy(output.policy[sq]);
    for (int sq = 0; sq < n; ++sq) ownership[sq] = QuantizeOwnership(output.ownership[sq]);
  } else {
    // Quantised in the caller's order, then placed through the square map.
    std::array<std::uint16_t, core::kMaxSquares + 1> p;
    std::array<std::int8_t, core::kMaxSquares> o;
    for (int sq = 0; sq <= n; ++sq) p[sq] = QuantizePolicy(output.policy[sq]);
    for (int sq = 0; sq < n; ++sq) o[sq] = QuantizeOwnership(output.ownership[sq]);
    const std::uint8_t* map = SquareMap(size, probe.symmetry);
    for (int sq = 0; sq < n; ++sq) {
      policy[map[sq]] = p[sq];
      ownership[map[sq]] = o[sq];
    }
    policy[n] = p[n];
  }
  const std::uint64_t age = clock_.fetch_add(1, std::memory_order_relaxed);
  core::MutexLock lock(shards_[pair % kShards]);
  Entry* a = &entries_[pair * 2];
  Entry* b = a + 1;
  Entry* target = a->key == key ? a : b->key == key ? b : (a->age <= b->age ? a : b);
  target->key = key;
  target->age = age;
  target->size = static_cast<std::int8_t>(size);
  target->has_aux = output.has_aux;
  target->win = output.win;
  target->draw = output.draw;
  target->loss = output.loss;
  target->disc_difference = output.disc_difference;
  std::memcpy(target->policy.data(), policy.data(), sizeof(policy[0]) * (n + 1));
  std::memcpy(target->ownership.data(), ownership.data(), sizeof(ownership[0]) * n);
}

struct CachingEvaluator::Misses {
  EvalBatch batch;          // the positions the cache did not know
  std::vector<int> index;   // index[j]: where batch's position j is in the caller's batch
  std::vector<EvalCache::Probe> probes;  // probes[i]: the caller's position i located
  void Clear() {
    batch.Clear();
    index.clear();
    probes.clear();
  }
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
  std::unique_ptr<Misses> misses = pending_.Take();
  misses->probes.resize(batch.size());
  for (int i = 0; i < batch.size(); ++i) misses->probes[i] = cache_.Locate(batch.positions()[i]);
  for (int i = 0; i < batch.size(); ++i) {
    if (cache_.Lookup(batch.positions()[i], misses->probes[i], batch.outputs()[i])) continue;
    misses->batch.Add(batch.positions()[i]);
    misses->index.push_back(i);
  }
  if (misses->index.empty()) {
    pending_.Recycle(std::move(misses));
    batch.MarkDone();
    return;
  }
  inner_.Submit(misses->batch);  // if it throws, nothing is pending
  pending_.Add(batch, std::move(misses));
}

void CachingEvaluator::Wait(EvalBatch& batch) {
  std::unique_ptr<Misses> misses = pending_.Remove(batch);
  if (misses) {  // otherwise every position was a hit: the batch is done
    try {
      inner_.Wait(misses->batch);
      Fill(batch, *misses);
      batch.MarkDone();
    } catch (...) {
      batch.Fail(std::current_exception());
    }
    pending_.Recycle(std::move(misses));
  }
  batch.WaitDone();
}

void CachingEvaluator::Fill(EvalBatch& batch, const Misses& misses) {
  for (std::size_t j = 0; j < misses.index.size(); ++j) {
    const EvalOutput& output = misses.batch.output(static_cast<int>(j));
    cache_.Insert(misses.batch.positions()[j], misses.probes[misses.index[j]], output);
    batch.outputs()[misses.index[j]] = output;
  }
}

}  // namespace othello::mcts
