#include "training/duplicate_targets.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "core/symmetry.h"

namespace othello::training {
namespace {

std::uint16_t Prob(double p) {
  return static_cast<std::uint16_t>(std::lround(std::clamp(p, 0.0, 1.0) * 65535));
}

}  // namespace

std::size_t DuplicateTargets::KeyHash::operator()(const Key& k) const {
  const auto low = [](core::Bitboard b) { return static_cast<std::uint64_t>(b); };
  const auto high = [](core::Bitboard b) { return static_cast<std::uint64_t>(b >> 64); };
  return static_cast<std::size_t>(core::Mix64(
      core::Mix64(low(k.player) ^ core::Mix64(high(k.player))) ^
      core::Mix64(low(k.opponent) + 0x9e3779b97f4a7c15ULL) ^ high(k.opponent)));
}

bool DuplicateTargets::Counts(const Sample& sample) const {
  if (!enabled() || sample.has_exact) return false;
  const core::Position position = sample.ToPosition();
  return core::PopCount(position.player() | position.opponent()) <= 4 + max_plies_;
}

DuplicateTargets::Key DuplicateTargets::Canonical(const Sample& sample, int* symmetry) {
  const core::Position position = sample.ToPosition();
  const core::Bitboard player = position.player(), opponent = position.opponent();
  Key best{player, opponent};
  *symmetry = 0;
  for (int s = 1; s < 8; ++s) {
    const Key k{core::TransformBits(player, sample.size, s),
                core::TransformBits(opponent, sample.size, s)};
    if (k.player < best.player || (k.player == best.player && k.opponent < best.opponent)) {
      best = k;
      *symmetry = s;
    }
  }
  return best;
}

void DuplicateTargets::Change(const Sample& sample, int sign) {
  if (!Counts(sample)) return;
  int symmetry = 0;
  const Key key = Canonical(sample, &symmetry);
  Sums& sums = sums_[key];
  sums.count += sign;
  records_ += sign;
  for (int k = 0; k < 3; ++k) sums.wdl[k] += sign * (sample.wdl[k] / 65535.0);
  if (sample.has_policy) {
    sums.with_policy += sign;
    const int area = sample.size * sample.size;
    for (int sq = 0; sq < area; ++sq) {
      sums.policy[core::TransformSquare(sq, sample.size, symmetry)] +=
          sign * (sample.policy[sq] / 65535.0);
    }
    sums.policy[area] += sign * (sample.policy[area] / 65535.0);
  }
  if (sums.count == 0) sums_.erase(key);
}

void DuplicateTargets::Average(Sample& sample) const {
  if (!Counts(sample)) return;
  int symmetry = 0;
  const auto it = sums_.find(Canonical(sample, &symmetry));
  if (it == sums_.end() || it->second.count < 2) return;
  const Sums& sums = it->second;
  const double n = sums.count;
  sample.wdl[0] = Prob(sums.wdl[0] / n);
  sample.wdl[1] = std::min<std::uint16_t>(Prob(sums.wdl[1] / n), 65535 - sample.wdl[0]);
  sample.wdl[2] = static_cast<std::uint16_t>(65535 - sample.wdl[0] - sample.wdl[1]);
  if (sums.with_policy == 0) return;
  const int area = sample.size * sample.size;
  const double m = sums.with_policy;
  for (int sq = 0; sq < area; ++sq) {
    sample.policy[sq] = Prob(sums.policy[core::TransformSquare(sq, sample.size, symmetry)] / m);
  }
  sample.policy[area] = Prob(sums.policy[area] / m);
  sample.has_policy = 1;
}

}  // namespace othello::training
