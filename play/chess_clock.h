#pragma once
// A chess clock for speed Othello on the web page: a bank per side and an increment
// after each move (play/player.h's TimeControl). A person's clock runs in real time
// from the start of their turn; the AI is charged the time its search took (so a page
// that shows its moves slowly, as in model-vs-model watching, does not cost it time).
// A side whose bank reaches zero has lost on time: Flagged() names it and the clock
// stops. Forced passes cost nothing and earn no increment.
// Thread safety: none (WebApi calls it under its mutex).
#include <functional>
#include <optional>

#include "core/position.h"
#include "play/player.h"

namespace othello::play {

class ChessClock {
 public:
  using Now = std::function<double()>;  // monotonic seconds
  static double SteadySeconds();

  explicit ChessClock(TimeControl control, Now now = SteadySeconds);

  const TimeControl& control() const { return control_; }
  // `side`'s bank starts running in real time (a person's turn); the other's stops.
  void Start(core::Color side);
  // Stops the running bank, charging it the time since Start().
  void Pause();
  // `side` finished a move: charges `seconds` (the running time since Start() when it
  // is the running side and seconds < 0), then adds the increment. False (and the clock
  // stops with `side` flagged) when the bank did not cover it.
  bool Charge(core::Color side, double seconds = -1);
  // Seconds left now (a running bank included), never below 0.
  double Remaining(core::Color side) const;
  std::optional<core::Color> running() const { return running_; }
  // The side that ran out of time, if one has; checks the running bank against now.
  std::optional<core::Color> Flagged();
  // What the AI knows of its clock before a move (for MoveClock::Budget).
  MoveClock ForMove(core::Color side) const;

 private:
  double Elapsed() const;  // seconds the running bank has run

  TimeControl control_;
  Now now_;
  double bank_[2];
  std::optional<core::Color> running_;
  double started_ = 0;
  std::optional<core::Color> flagged_;
};

}  // namespace othello::play
