#pragma once
// Seconds since a point of the steady clock, as a double: what the training loop, its
// actors and its benchmarks time their stretches with.
// Thread safety: a pure function.
#include <chrono>

namespace othello::core {

using SteadyClock = std::chrono::steady_clock;

inline double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace othello::core
