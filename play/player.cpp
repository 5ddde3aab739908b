#include "play/player.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace othello::play {

namespace {

// A number of seconds: a non-negative finite decimal.
bool ParseSeconds(std::string_view text, double* out) {
  if (text.empty() || text.size() > 32) return false;
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

}  // namespace

std::string TimeControl::ToString() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g+%g", main_seconds, increment_seconds);
  return buf;
}

core::Result<TimeControl> ParseTimeControl(std::string_view text) {
  TimeControl tc;
  const std::size_t plus = text.find('+');
  const std::string_view main = text.substr(0, plus);
  const std::string_view inc = plus == std::string_view::npos ? "0" : text.substr(plus + 1);
  if (!ParseSeconds(main, &tc.main_seconds) || !ParseSeconds(inc, &tc.increment_seconds) ||
      tc.main_seconds <= 0) {
    return core::Error{"time control '" + std::string(text) +
                       "' is not MAIN+INC in seconds with MAIN > 0 (e.g. 60+1 or 300)"};
  }
  return tc;
}

double MoveClock::Budget(const core::Position& position) const {
  if (!timed) return 0;
  const double moves_left = std::max(1, (position.EmptyCount() + 1) / 2);
  const double reserve = std::min(0.5, 0.05 * seconds_left);
  const double share = (seconds_left - reserve) / (moves_left + 2);
  return std::max(0.0, std::min(share + 0.8 * increment, 0.9 * seconds_left));
}

}  // namespace othello::play
