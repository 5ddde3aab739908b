#include "training/sample.h"

#include <cstdlib>

#include "core/geometry.h"
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

std::optional<std::string> CheckSample(const Sample& s, int board_size) {
  if (!core::IsValidSize(s.size)) return "board size " + std::to_string(s.size) + " is not supported";
  if (board_size && s.size != board_size) {
    return std::to_string(s.size) + "x" + std::to_string(s.size) + " position in a " +
           std::to_string(board_size) + "x" + std::to_string(board_size) + " run";
  }
  const int area = s.size * s.size;
  const core::Bitboard board = (core::Bitboard{1} << area) - 1;
  const core::Bitboard player = Join(s.player), opponent = Join(s.opponent);
  if ((player & opponent) || ((player | opponent) & ~board)) return std::string("discs overlap or lie off the board");
  if (s.has_policy > 1 || s.has_exact > 1 || s.has_reply > 1 || s.has_short_term > 1) {
    return std::string("flags other than 0 and 1");
  }
  if (s.wdl[0] + s.wdl[1] + s.wdl[2] != 65535) return std::string("value target does not sum to 65535");
  for (int i = area + 1; i <= core::kMaxSquares; ++i) {
    if (s.policy[i]) return std::string("policy target off the board");
    if (s.reply_policy[i]) return std::string("reply policy target off the board");
  }
  if (!s.has_reply) {
    for (std::uint16_t p : s.reply_policy) {
      if (p) return std::string("reply policy target without its flag");
    }
  }
  if (!s.has_short_term && (s.short_term[0] || s.short_term[1])) {
    return std::string("short-term value target without its flag");
  }
  for (std::int16_t v : s.short_term) {
    if (v < -32767) return std::string("short-term value target out of range");
  }
  for (int i = 0; i < core::kMaxSquares; ++i) {
    if (s.ownership[i] < -1 || s.ownership[i] > 1 || (i >= area && s.ownership[i])) {
      return std::string("ownership target out of range");
    }
  }
  if (std::abs(s.exact_score) > area || std::abs(s.final_margin) > area) {
    return std::string("margin larger than the board");
  }
  if (s.reserved0) return std::string("reserved bytes not zero");
  for (std::uint8_t r : s.reserved) {
    if (r) return std::string("reserved bytes not zero");
  }
  return std::nullopt;
}

void TransformSample(Sample& sample, int symmetry) {
  if (symmetry == 0) return;
  const int size = sample.size, area = size * size;
  Split(core::TransformBits(Join(sample.player), size, symmetry), sample.player);
  Split(core::TransformBits(Join(sample.opponent), size, symmetry), sample.opponent);
  auto policy = sample.policy;
  auto reply = sample.reply_policy;
  auto ownership = sample.ownership;
  for (int sq = 0; sq < area; ++sq) {
    const int t = core::TransformSquare(sq, size, symmetry);
    sample.policy[t] = policy[sq];
    sample.reply_policy[t] = reply[sq];
    sample.ownership[t] = ownership[sq];
  }
}

}  // namespace othello::training
