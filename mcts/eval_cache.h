#pragma once
// A transposition-aware cache of evaluator outputs, keyed by the position hash, so a
// position reached by several move orders (or, with `canonical`, in any of its 8
// symmetric forms) is evaluated once. Entries hold a compact copy (policy in 1/65535
// steps, ownership in 1/127 steps); a full table overwrites the older of two slots.
// Two positions with the same 64-bit key and board size share an entry (accepted).
//
// The search never sees the cache: CachingEvaluator puts it in front of any evaluator,
// as lc0 keeps its cache behind its backend.
//
// Cost: a lookup hashes the 8 symmetric forms (bitboard transforms on 8x8) and maps the
// outputs through a table of squares; CachingEvaluator locates a whole batch first, so
// the table's cache lines load in parallel, and reuses the key for the miss's Insert.
//
// Thread safety: EvalCache::Locate/Lookup/Insert from any number of threads (each pair
// of slots is guarded by one of kShards mutexes; the counters are relaxed atomics).
// CachingEvaluator follows the Submit/Wait contract of evaluator.h.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/thread_annotations.h"
#include "mcts/evaluator.h"
#include "mcts/pending_batches.h"

namespace othello::mcts {

class EvalCache {
 public:
  // `entries` is rounded up to a power of two (at least 64).
  EvalCache(std::size_t entries, bool canonical);

  // Where a position's entry lives: its key and the symmetry that takes it to the
  // stored orientation (the least hash of its 8 forms when canonical).
  struct Probe {
    std::uint64_t key = 0;
    int symmetry = 0;
  };
  // The probe of `position`; starts loading its slots into the CPU cache, so a batch
  // locates all its positions first and then looks them up.
  Probe Locate(const Position& position) const;

  // Copies the cached output for `position` into `out`; false on a miss.
  bool Lookup(const Position& position, EvalOutput& out) {
    return Lookup(position, Locate(position), out);
  }
  void Insert(const Position& position, const EvalOutput& output) {
    Insert(position, Locate(position), output);
  }
  // The same, with `probe` = Locate(position).
  bool Lookup(const Position& position, const Probe& probe, EvalOutput& out);
  void Insert(const Position& position, const Probe& probe, const EvalOutput& output);

  std::uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  std::uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }
  bool canonical() const { return canonical_; }

 private:
  struct Entry {
    std::uint64_t key = 0;  // 0: empty
    std::uint64_t age = 0;
    std::int8_t size = 0;
    bool has_aux = false;
    float win = 0, draw = 0, loss = 0, disc_difference = 0;
    // The first size*size + 1 and size*size steps hold the entry (the rest are stale).
    std::array<std::uint16_t, core::kMaxSquares + 1> policy{};
    std::array<std::int8_t, core::kMaxSquares> ownership{};
  };
  static constexpr int kShards = 64;

  // Writes entry `e` into `out`, mapped from the stored orientation by `symmetry`.
  static void Decode(const Entry& e, int size, int symmetry, EvalOutput& out);

  const bool canonical_;
  std::size_t mask_;
  // Pairs of slots; slot i guarded by shard (i / 2) % kShards (unchecked: the analysis
  // cannot name a mutex chosen by index).
  std::vector<Entry> entries_;
  std::unique_ptr<core::Mutex[]> shards_;
  std::atomic<std::uint64_t> clock_{0}, hits_{0}, misses_{0};
};

// Answers what `inner` evaluated before from an EvalCache: Submit() looks every
// position up and submits only the misses to `inner`, as one batch of their own;
// Wait() waits for that batch, caches its outputs and copies them into the caller's
// batch. Misses get `inner`'s outputs exactly, hits the cache's compact copy.
// A failure of `inner` (in its Wait) reaches the caller's Wait().
// Lifetime: `inner` must outlive this evaluator (the shared_ptr constructor keeps it
// alive); destroy it only when no batch is between Submit() and Wait().
class CachingEvaluator : public Evaluator {
 public:
  // `entries` and `canonical` as for EvalCache.
  CachingEvaluator(Evaluator& inner, std::size_t entries, bool canonical);
  CachingEvaluator(std::shared_ptr<Evaluator> inner, std::size_t entries, bool canonical);
  ~CachingEvaluator() override;
  CachingEvaluator(const CachingEvaluator&) = delete;
  CachingEvaluator& operator=(const CachingEvaluator&) = delete;

  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override;

  // Its statistics (hits and misses) for benchmarks and metrics.
  const EvalCache& cache() const { return cache_; }

 private:
  struct Misses;  // one submitted batch's misses, and where they go in it

  // Writes the misses' outputs into `batch` and the cache.
  void Fill(EvalBatch& batch, const Misses& misses);

  Evaluator& inner_;
  EvalCache cache_;
  PendingBatches<Misses> pending_;  // batches between Submit() and Wait() with misses
  std::shared_ptr<Evaluator> owned_;  // `inner` when shared; last, so destroyed first
};

}  // namespace othello::mcts
