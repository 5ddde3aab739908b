#include "mcts/value_bias.h"

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace othello::mcts {

std::uint32_t ValueBiasKey(const core::Position& after, core::Square move) {
  const int n = after.size();
  // After the move the mover's opponent is to move. Black 0, white 1.
  const std::uint32_t mover = after.side_to_move() == core::Color::kBlack ? 1 : 0;
  std::uint32_t key = static_cast<std::uint32_t>(n) << 24 | mover << 23;
  if (move == core::kPass) return key;
  key |= static_cast<std::uint32_t>(move + 1) << 16;
  const core::Bitboard mine = after.opponent(), theirs = after.player();
  const int row = move / n, col = move % n;
  int shift = 0;
  for (int dr = -1; dr <= 1; ++dr) {
    for (int dc = -1; dc <= 1; ++dc) {
      if (dr == 0 && dc == 0) continue;
      const int r = row + dr, c = col + dc;
      std::uint32_t owner = 3;  // off the board
      if (r >= 0 && r < n && c >= 0 && c < n) {
        const core::Bitboard bit = core::Bit(r * n + c);
        owner = (mine & bit) ? 1 : (theirs & bit) ? 2 : 0;
      }
      key |= owner << shift;
      shift += 2;
    }
  }
  return key;
}

BiasContribution NodeContribution(const Node& node, const NodeBias& bias, float exponent) {
  const std::uint32_t visits = node.Visits();
  if (visits < 2) return {};
  const double others = static_cast<double>(visits - 1);
  const double mean = static_cast<double>(node.ValueSum() - bias.own_value) /
                      (static_cast<double>(kValueScale) * others);
  const double weight = std::pow(others, static_cast<double>(exponent));
  return {weight * (mean - static_cast<double>(bias.nn_value)), weight};
}

namespace {

std::size_t PowerOfTwoAtLeast(std::size_t n) {
  std::size_t size = 64;
  while (size < n) size *= 2;
  return size;
}

}  // namespace

ValueBiasTable::ValueBiasTable(std::size_t slots)
    : mask_(PowerOfTwoAtLeast(slots) - 1),
      entries_(mask_ + 1),
      shards_(std::make_unique<core::Mutex[]>(kShards)) {}

std::uint32_t ValueBiasTable::Find(std::uint32_t key) {
  std::size_t i = core::Mix64(key) & mask_;
  for (int probe = 0; probe < kProbes; ++probe, i = (i + 1) & mask_) {
    std::uint32_t found = entries_[i].key.load(std::memory_order_acquire);
    if (found == 0 &&
        entries_[i].key.compare_exchange_strong(found, key, std::memory_order_acq_rel)) {
      return static_cast<std::uint32_t>(i + 1);
    }
    if (found == key) return static_cast<std::uint32_t>(i + 1);
  }
  return 0;
}

double ValueBiasTable::Bias(std::uint32_t slot) const {
  core::MutexLock lock(Shard(slot));
  const Entry& e = entries_[slot - 1];
  return e.weight > 0 ? e.weighted_error / e.weight : 0.0;
}

void ValueBiasTable::Replace(std::uint32_t slot, const BiasContribution& before,
                             const BiasContribution& after) {
  Entry& e = entries_[slot - 1];
  e.weighted_error += after.weighted_error - before.weighted_error;
  e.weight += after.weight - before.weight;
}

void ValueBiasTable::Clear() {
  for (Entry& e : entries_) {
    e.key.store(0, std::memory_order_relaxed);
    e.weighted_error = e.weight = 0;
  }
}

std::uint32_t ValueBiasTable::key(std::uint32_t slot) const {
  return entries_[slot - 1].key.load(std::memory_order_acquire);
}

BiasContribution ValueBiasTable::sums(std::uint32_t slot) const {
  const Entry& e = entries_[slot - 1];
  return {e.weighted_error, e.weight};
}

}  // namespace othello::mcts
