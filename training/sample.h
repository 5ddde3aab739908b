#pragma once
// One training position and its targets, in a compact fixed-size record (the same on
// disk and in memory; replay_format.h): the discs from the side to move's point of
// view, the policy target in 1/65535 steps, the value target (win/draw/loss), the final
// ownership and disc difference and, where the solver knew it, the exact score; and the
// auxiliary heads' targets (nn/aux_heads.h): the opponent's reply policy (the next
// record's policy target) and the short-term values (exponential averages of the later
// positions' search values, training/self_play.h's FillTargets).
//
// Every field sits at its natural alignment with no implicit padding (the static
// asserts below), so the record can be copied as bytes and its members used in place.
// Replay format version 1 packed an older layout without alignment, version 2's records
// were the first 352 bytes of this one (no auxiliary targets); replay_format.cpp converts
// both when it reads old shards and journals.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "core/bitboard.h"
#include "core/position.h"

namespace othello::training {

// The horizons, in plies, of the short-term value targets: the search values averaged
// with weights decaying by (1 - 1/h) a ply (KataGo's short-term value heads, scaled to
// Othello's 60-ply games).
inline constexpr float kShortTermHorizons[2] = {4.0f, 12.0f};

struct Sample {
  std::uint64_t player[2] = {0, 0};  // low and high 64 bits
  std::uint64_t opponent[2] = {0, 0};
  std::array<std::uint16_t, core::kMaxSquares + 1> policy{};  // squares, then pass
  std::uint16_t wdl[3] = {0, 0, 0};  // value target, sums to 65535
  std::array<std::int8_t, core::kMaxSquares> ownership{};  // +1 side to move, -1 opponent
  std::uint8_t size = 8;
  std::uint8_t has_policy = 0;   // 0 after a fast search: no policy target
  std::uint8_t has_exact = 0;    // exact_score is the solver's
  std::int8_t exact_score = 0;   // final margin for the side to move under perfect play
  std::int8_t final_margin = 0;  // final margin of the game actually played
  std::uint8_t has_reply = 0;       // reply_policy is the opponent's next policy target
  std::uint8_t has_short_term = 0;  // short_term holds the short-term value targets
  std::uint8_t reserved0 = 0;       // zero
  // The short-term values for the side to move, in 1/32767 steps from -1 (loss) to +1
  // (win), over kShortTermHorizons plies.
  std::int16_t short_term[2] = {0, 0};
  std::array<std::uint16_t, core::kMaxSquares + 1> reply_policy{};  // as `policy`
  std::uint8_t reserved[6] = {};  // zero; makes the size a multiple of 8

  core::Position ToPosition() const;
  void SetPosition(const core::Position& position);
};

static_assert(std::is_trivially_copyable_v<Sample>);
static_assert(offsetof(Sample, policy) == 32 && offsetof(Sample, wdl) == 234 &&
                  offsetof(Sample, ownership) == 240 && offsetof(Sample, size) == 340 &&
                  offsetof(Sample, short_term) == 348 && offsetof(Sample, reply_policy) == 352 &&
                  sizeof(Sample) == 560,
              "the replay record layout is a file format: change it with a version bump");

// Why `sample` cannot be a record of a `board_size` game (0: any size): an invalid
// size, overlapping or off-board discs, flags other than 0/1, a value target that does
// not sum to 65535, targets off the board or out of range, targets present without their
// flag. nullopt when it is sound.
std::optional<std::string> CheckSample(const Sample& sample, int board_size);

// Maps the record through symmetry s (discs, policies, ownership) in place.
void TransformSample(Sample& sample, int symmetry);

}  // namespace othello::training
