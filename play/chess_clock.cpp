#include "play/chess_clock.h"

#include <algorithm>
#include <chrono>

namespace othello::play {

double ChessClock::SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ChessClock::ChessClock(TimeControl control, Now now)
    : control_(control), now_(std::move(now)), bank_{control.main_seconds, control.main_seconds} {}

double ChessClock::Elapsed() const { return running_ ? now_() - started_ : 0; }

void ChessClock::Start(core::Color side) {
  if (flagged_) return;
  Pause();
  running_ = side;
  started_ = now_();
}

void ChessClock::Pause() {
  if (!running_) return;
  bank_[static_cast<int>(*running_)] -= Elapsed();
  running_.reset();
}

bool ChessClock::Charge(core::Color side, double seconds) {
  if (flagged_) return false;
  if (running_ == side) {
    const double elapsed = Elapsed();
    running_.reset();
    if (seconds < 0) seconds = elapsed;
  }
  double& bank = bank_[static_cast<int>(side)];
  bank -= std::max(0.0, seconds);
  if (bank <= 0) {
    bank = 0;
    flagged_ = side;
    running_.reset();
    return false;
  }
  bank += control_.increment_seconds;
  return true;
}

double ChessClock::Remaining(core::Color side) const {
  double left = bank_[static_cast<int>(side)];
  if (running_ == side) left -= Elapsed();
  return std::max(0.0, left);
}

std::optional<core::Color> ChessClock::Flagged() {
  if (!flagged_ && running_ && Remaining(*running_) <= 0) {
    bank_[static_cast<int>(*running_)] = 0;
    flagged_ = running_;
    running_.reset();
  }
  return flagged_;
}

MoveClock ChessClock::ForMove(core::Color side) const {
  MoveClock clock;
  clock.timed = true;
  clock.seconds_left = Remaining(side);
  clock.increment = control_.increment_seconds;
  return clock;
}

}  // namespace othello::play
