#include "training/sample.h"

#include "core/symmetry.h"

namespace othello::training {
namespace {

core::Bitboard Join(const std::uint64_t parts[2]) {
  return (core::Bitboard{parts[1]} << 64) | parts[0];
}
void Split(core::Bitboard bits, std::uint64_t parts[2]) {
  parts[0] = static_cast<std::uint64_t>(bits);
  parts[1] = static_cast<std::uint64_t>(bits >> 64);
}

}  // namespace

core::Position Sample::ToPosition() const {
  return core::Position(size, Join(player), Join(opponent), core::Color::kBlack);
}

void Sample::SetPosition(const core::Position& position) {
  size = static_cast<std::uint8_t>(position.size());
  Split(position.player(), player);
  Split(position.opponent(), opponent);
}

void TransformSample(Sample& sample, int symmetry) {
  if (symmetry == 0) return;
  const int size = sample.size, area = size * size;
  Split(core::TransformBits(Join(sample.player), size, symmetry), sample.player);
  Split(core::TransformBits(Join(sample.opponent), size, symmetry), sample.opponent);
  auto policy = sample.policy;
  auto ownership = sample.ownership;
  for (int sq = 0; sq < area; ++sq) {
    const int t = core::TransformSquare(sq, size, symmetry);
    sample.policy[t] = policy[sq];
    sample.ownership[t] = ownership[sq];
  }
}

}  // namespace othello::training
