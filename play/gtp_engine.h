#pragma once
// The GTP engine (`othello-zero gtp`), as Othello engines speak GTP (e.g. GRhino):
// protocol_version, name, version, known_command, list_commands, boardsize N,
// clear_board, play COLOR MOVE, genmove COLOR, undo, showboard, final_score,
// time_settings MAIN BYO STONES, time_left COLOR SECONDS STONES, quit.
// Colours are b/black/w/white; moves a1..j10 or pass. A play or genmove for the colour
// not to move is accepted when the side to move must pass (the pass is played first).
// Replies are "= ..." or "? error", then an empty line, with the command's id if it
// had one; bad input gets an error reply and the engine keeps running.
// Thread safety: one thread.
#include <iosfwd>
#include <optional>
#include <string>

#include "play/game_session.h"

namespace othello::play {

class GtpEngine {
 public:
  explicit GtpEngine(GameSession& session) : session_(session) {}
  // The full reply to one line ("" for an empty or comment line).
  std::string Handle(const std::string& line);
  bool quit() const { return quit_; }
  // Reads commands until quit or end of input.
  void Run(std::istream& in, std::ostream& out);

 private:
  // The reply text, or an error (thrown as core::InputError by the helpers).
  std::string Execute(const std::string& command, const std::vector<std::string>& args);
  core::Color ParseColor(const std::string& text) const;
  void ReadyFor(core::Color color);  // plays a forced pass so that `color` is to move

  GameSession& session_;
  bool quit_ = false;
  std::optional<double> main_time_, time_left_;  // seconds, from time_settings/time_left
};

}  // namespace othello::play
