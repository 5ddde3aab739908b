#pragma once
// Outside engines as players, through the two protocols Othello engines speak.
//
// GTP (as Othello engines use it, e.g. GRhino's gtp-rhino): `boardsize N`,
// `clear_board`, `play COLOR MOVE` for every ply the engine has not seen (passes as
// "pass"; an engine that refuses a pass is not told), `genmove COLOR`, and with a time
// control `time_settings MAIN 0 0` and `time_left COLOR SECONDS 0`. Replies are
// "= ..." or "? error" followed by an empty line. GTP has no set-up command, so games
// must start from the standard position (random openings are sent as moves).
//
// NBoard (version 2, e.g. Edax -nboard): `nboard 2`, `set depth D`, then for each move
// `set game GGF` with the whole game so far, `ping N` (waits for `pong N`) and `go`,
// answered by `=== MOVE[/EVAL[/TIME]]` (spaces also accepted). Other engine lines
// (status, nodestats, search, set myname) are skipped.
//
// An engine that dies, answers garbage or an error to a required command, or takes
// longer than allowed (its clock plus a grace period when timed, else the move
// timeout) throws PlayerError: the session forfeits the game for it.
// Thread safety: one thread per object; each object runs its own process.
#include <memory>
#include <string>
#include <vector>

#include "play/engine_process.h"
#include "play/player.h"

namespace othello::play {

struct EngineOptions {
  std::string name;                 // shown in records; defaults to the command
  double move_timeout_seconds = 60; // untimed games: the longest wait for a move
  double grace_seconds = 2;         // timed games: wait this long past the clock
  int nboard_depth = 20;            // NBoard `set depth`
};

class GtpPlayer : public Player {
 public:
  GtpPlayer(const std::string& command, EngineOptions options);
  std::string name() const override { return options_.name; }
  void NewGame(const core::Game& game, const std::optional<TimeControl>& time) override;
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;
  void EndGame(const core::Game& game) override;

 private:
  // Sends a command; returns the reply text after "= ", or throws on "? ..." when
  // `required` (otherwise returns nullopt).
  std::optional<std::string> Command(const std::string& command, bool required,
                                     double timeout_seconds);

  std::string command_;
  EngineOptions options_;
  std::unique_ptr<EngineProcess> process_;
  std::size_t synced_ = 0;  // plies of the current game the engine knows
};

class NBoardPlayer : public Player {
 public:
  NBoardPlayer(const std::string& command, EngineOptions options);
  std::string name() const override { return options_.name; }
  void NewGame(const core::Game& game, const std::optional<TimeControl>& time) override;
  PlayedMove GenMove(const core::Game& game, const MoveClock& clock) override;
  void EndGame(const core::Game& game) override;

 private:
  void Start();
  void Ping(double timeout_seconds);

  std::string command_;
  EngineOptions options_;
  std::unique_ptr<EngineProcess> process_;
  int ping_ = 0;
};

// Splits an engine reply into words (for tests and the protocols).
std::vector<std::string> SplitWords(const std::string& text);

}  // namespace othello::play
