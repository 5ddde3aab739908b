#pragma once
// A player of one game at a time: the built-in players, a search guided by an
// evaluator, and outside engines behind the GTP and NBoard protocols all answer
// GenMove() for the current position of a core::Game.
//
// Time: a game may have a time control (a bank per player plus an increment per move).
// The match referee (play/match.h) measures each GenMove() and enforces the bank; players
// only receive the time they have left, to budget it.
//
// Errors: a player that cannot go on (an engine that died, answered garbage, played an
// illegal move or hung) throws PlayerError; the session forfeits the game for it.
// Thread safety: one thread drives a player at a time; different players may run in
// different threads (shared resources such as an evaluator are thread-safe).
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/game.h"

namespace othello::play {

class PlayerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A time control "MAIN+INC" in seconds ("300", "60+2", "0.5+0.1").
struct TimeControl {
  double main_seconds = 0;
  double increment_seconds = 0;
  std::string ToString() const;  // "60+2"
};
core::Result<TimeControl> ParseTimeControl(std::string_view text);

// What a player knows of its clock when asked for a move.
struct MoveClock {
  bool timed = false;
  double seconds_left = 0;  // in the bank before this move (timed only)
  double increment = 0;     // added after this move (timed only)
  // A share of the bank for this move (the bank over the mover's remaining moves, plus
  // most of the increment, keeping a reserve); 0 when untimed.
  double Budget(const core::Position& position) const;
};

struct PlayedMove {
  core::Square square = core::kPass;
  std::optional<double> eval;  // expected final disc margin for the mover, when known
};

class Player {
 public:
  virtual ~Player() = default;
  // The name recorded in game records (PB/PW) and results.
  virtual std::string name() const = 0;
  // A new game starts from game.start() under game.rules() (before any ply).
  virtual void NewGame(const core::Game& game, const std::optional<TimeControl>& time) {
    (void)game, (void)time;
  }
  // The move for game.position(), which has a legal move (forced passes are played by
  // the session and only observed). Throws PlayerError when the player fails.
  virtual PlayedMove GenMove(const core::Game& game, const MoveClock& clock) = 0;
  // The game ended (normally or by forfeit); engines may be told or shut down.
  virtual void EndGame(const core::Game& game) { (void)game; }
};

// Another player under a different name.
class NamedPlayer : public Player {
 public:
  NamedPlayer(std::unique_ptr<Player> player, std::string name)
      : player_(std::move(player)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void NewGame(const core::Game& game, const std::optional<TimeControl>& time) override {
    player_->NewGame(game, time);
  }
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override {
    return player_->GenMove(game, clock);
  }
  void EndGame(const core::Game& game) override { player_->EndGame(game); }

 private:
  std::unique_ptr<Player> player_;
  std::string name_;
};

}  // namespace othello::play
