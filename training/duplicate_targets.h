#pragma once
// Targets averaged over the duplicate positions of the replay window (config
// replay.average_duplicates_plies): the openings repeat from game to game, and each
// repeat's targets are one noisy sample of the same position's value and policy. The
// table keeps, for every position of the first `max_plies` plies in the window (under
// the 8 symmetries of the board), how many records hold it and the sums of their value
// targets and policy targets; a drawn record's targets become those means.
//
// Records with an exact score keep their own targets and are not counted. A record
// without a policy target (a fast search's) gets the mean of its duplicates' policy
// targets when any has one.
// Thread safety: none; the replay buffer calls it under its lock.
#include <array>
#include <cstdint>
#include <unordered_map>

#include "core/bitboard.h"
#include "training/sample.h"

namespace othello::training {

class DuplicateTargets {
 public:
  // 0: off (Add, Remove and Average do nothing).
  explicit DuplicateTargets(int max_plies) : max_plies_(max_plies) {}
  bool enabled() const { return max_plies_ > 0; }

  // A record enters or leaves the window.
  void Add(const Sample& sample) { Change(sample, +1); }
  void Remove(const Sample& sample) { Change(sample, -1); }
  // Replaces the record's value target (and its policy target) with the means over the
  // window's records of its position, where there are at least two of them.
  void Average(Sample& sample) const;

  // Positions in the table, and records counted in it.
  std::size_t positions() const { return sums_.size(); }
  std::uint64_t records() const { return records_; }

 private:
  struct Key {
    core::Bitboard player = 0, opponent = 0;
    bool operator==(const Key& o) const { return player == o.player && opponent == o.opponent; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  struct Sums {
    std::uint32_t count = 0;         // records of the position
    std::uint32_t with_policy = 0;   // of them, with a policy target
    double wdl[3] = {0, 0, 0};       // their value targets' sums, in probabilities
    // Their policy targets' sums, in probabilities, in the canonical orientation.
    std::array<double, core::kMaxSquares + 1> policy{};
  };
  // Whether the record is one the table counts.
  bool Counts(const Sample& sample) const;
  // The position's canonical key and the symmetry that maps the record onto it.
  static Key Canonical(const Sample& sample, int* symmetry);
  void Change(const Sample& sample, int sign);

  const int max_plies_;
  std::unordered_map<Key, Sums, KeyHash> sums_;
  std::uint64_t records_ = 0;
};

}  // namespace othello::training
