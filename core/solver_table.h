#pragma once
// Internal to the solver: the transposition table of proven score bounds.
//
// Two-slot buckets (32 bytes, half a cache line): the first slot keeps the entry that
// cost the most to find (most empties), the second takes everything else, so a deep
// result is never pushed out by the flood of shallow ones. Each slot is two 64-bit
// words, the data and key ^ data (Hyatt and Mann's lockless hashing, 2002): threads
// that solve one position together share the table without locks, and a slot torn by
// two simultaneous writes fails the key check and reads as empty. Every stored bound is
// proven, so merging two bounds of one position (from any threads) stays exact.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace othello::core::solver_detail {

inline constexpr int kInf = 127;  // beyond every score (at most 100 squares)

struct TableEntry {
  int lower = -kInf;
  int upper = kInf;
  int move = -1;  // internal square, or -1
  int empties = 0;
};

class Table {
 public:
  explicit Table(std::size_t megabytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= std::max<std::size_t>(megabytes, 1) << 20) buckets *= 2;
    buckets_ = std::make_unique<Bucket[]>(buckets);
    mask_ = buckets - 1;
    Clear();
  }

  // The stored bounds of `key`, if any.
  bool Probe(std::uint64_t key, TableEntry* entry) const {
    const Bucket& b = buckets_[key & mask_];
    for (const Slot& slot : b.slots) {
      const std::uint64_t data = slot.data.load(std::memory_order_relaxed);
      if ((slot.check.load(std::memory_order_relaxed) ^ data) == key && data != 0) {
        *entry = Unpack(data);
        return true;
      }
    }
    return false;
  }

  // Narrows the stored bounds of `key` or stores them in the bucket (see the top).
  void Store(std::uint64_t key, int empties, int lower, int upper, int move) {
    Bucket& b = buckets_[key & mask_];
    for (Slot& slot : b.slots) {
      const std::uint64_t data = slot.data.load(std::memory_order_relaxed);
      if ((slot.check.load(std::memory_order_relaxed) ^ data) == key && data != 0) {
        const TableEntry old = Unpack(data);
        Write(slot, key, {std::max(old.lower, lower), std::min(old.upper, upper),
                          move >= 0 ? move : old.move, std::max(old.empties, empties)});
        return;
      }
    }
    const std::uint64_t first = b.slots[0].data.load(std::memory_order_relaxed);
    const bool deep = first == 0 || Unpack(first).empties <= empties;
    Write(b.slots[deep ? 0 : 1], key, {lower, upper, move, empties});
  }

  void Prefetch(std::uint64_t key) const { __builtin_prefetch(&buckets_[key & mask_]); }

  void Clear() {
    for (std::size_t i = 0; i <= mask_; ++i) {
      for (Slot& slot : buckets_[i].slots) {
        slot.data.store(0, std::memory_order_relaxed);
        slot.check.store(0, std::memory_order_relaxed);
      }
    }
  }

 private:
  struct Slot {
    std::atomic<std::uint64_t> check{0};  // key ^ data
    std::atomic<std::uint64_t> data{0};   // packed TableEntry; 0: empty
  };
  struct alignas(32) Bucket {
    Slot slots[2];
  };

  // Bytes: lower + kInf, upper + kInf, move + 1, empties, and a marker so data != 0.
  static std::uint64_t Pack(const TableEntry& e) {
    return static_cast<std::uint64_t>(e.lower + kInf) |
           static_cast<std::uint64_t>(e.upper + kInf) << 8 |
           static_cast<std::uint64_t>(e.move + 1) << 16 |
           static_cast<std::uint64_t>(e.empties) << 24 | std::uint64_t{1} << 32;
  }
  static TableEntry Unpack(std::uint64_t d) {
    return {static_cast<int>(d & 0xff) - kInf, static_cast<int>(d >> 8 & 0xff) - kInf,
            static_cast<int>(d >> 16 & 0xff) - 1, static_cast<int>(d >> 24 & 0xff)};
  }
  static void Write(Slot& slot, std::uint64_t key, const TableEntry& e) {
    const std::uint64_t data = Pack(e);
    slot.data.store(data, std::memory_order_relaxed);
    slot.check.store(key ^ data, std::memory_order_relaxed);
  }

  std::unique_ptr<Bucket[]> buckets_;
  std::size_t mask_ = 0;
};

}  // namespace othello::core::solver_detail
