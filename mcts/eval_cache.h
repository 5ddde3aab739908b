#pragma once
// A transposition-aware cache of evaluator outputs, keyed by the position hash, so a
// position reached by several move orders (or, with `canonical`, in any of its 8
// symmetric forms) is evaluated once. Entries hold a compact copy (policy in 1/65535
// steps, ownership in 1/127 steps); a full table overwrites the older of two slots.
//
// Thread safety: Lookup/Insert from any number of threads (sharded mutexes).
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "mcts/evaluator.h"

namespace othello::mcts {

class EvalCache {
 public:
  // `entries` is rounded up to a power of two (at least 64).
  EvalCache(std::size_t entries, bool canonical);

  // Copies the cached output for `position` into `out`; false on a miss.
  bool Lookup(const Position& position, EvalOutput& out);
  void Insert(const Position& position, const EvalOutput& output);

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
    std::array<std::uint16_t, core::kMaxSquares + 1> policy{};
    std::array<std::int8_t, core::kMaxSquares> ownership{};
  };
  static constexpr int kShards = 64;

  // The key of `position` and the symmetry that takes it to the stored orientation.
  std::uint64_t KeyOf(const Position& position, int* symmetry) const;

  const bool canonical_;
  std::size_t mask_;
  std::vector<Entry> entries_;  // pairs of slots; slot i guarded by shard (i / 2) % kShards
  std::unique_ptr<std::mutex[]> shards_;
  std::atomic<std::uint64_t> clock_{0}, hits_{0}, misses_{0};
};

}  // namespace othello::mcts
