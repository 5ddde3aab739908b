#pragma once
// The replay buffer's window (config replay.*), apart from the buffer (replay_buffer.h)
// so that the config needs neither the buffer nor its dependencies.
// Window: "fixed" keeps the last window_max positions; "growing" (KataGo) keeps
//   min * (1 + 0.4 * ((seen / min)^exponent - 1) / exponent)
// positions, capped at window_max, where `seen` counts every position ever added.
#include <array>
#include <cstddef>
#include <string_view>

namespace othello::training {

enum class ReplayWindow { kGrowing, kFixed };
inline constexpr std::array<std::string_view, 2> kReplayWindowNames = {"growing", "fixed"};

// The window and the shard size (config replay.*; these are the config's defaults).
struct WindowConfig {
  ReplayWindow kind = ReplayWindow::kGrowing;
  std::size_t min = 20000;  // positions
  std::size_t max = 500000;
  double exponent = 0.75;   // growing only
  std::size_t shard_positions = 4096;
  // replay.average_duplicates_plies: the value and policy targets of a drawn position of
  // the first this many plies are the means over its duplicates in the window, under the
  // board's symmetries (DuplicateTargets, duplicate_targets.h); 0: off
  int average_duplicates_plies = 0;
};

}  // namespace othello::training
