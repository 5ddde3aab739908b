#pragma once
// The GTP engine (`othello-zero gtp`), as Othello engines speak GTP (e.g. GRhino):
// protocol_version, name, version, known_command, list_commands, boardsize N,
// clear_board, play COLOR MOVE, genmove COLOR, undo, showboard, final_score (once the
// game is over; before, "? cannot score"),
// time_settings MAIN BYO STONES, time_left COLOR SECONDS STONES, quit.
// Colours are b/black/w/white; moves a1..j10 or pass. A play or genmove for the colour
// not to move is accepted when the side to move must pass (the pass is played first).
// Replies are "= ..." or "? error", then an empty line, with the command's id if it
// had one; bad input gets an error reply and the engine keeps running.
// Each command is one handler, found by name in a table (gtp_engine.cpp), the table
// also answering known_command and list_commands.
// Thread safety: none; one thread drives the engine and its session.
// Lifetime: the session is borrowed and must outlive the engine.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

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
  // Seconds the next genmove may take: a share of the side to move's time left
  // (time_settings, then that colour's time_left); 0: untimed.
  double MoveBudget() const;

 private:
  using Args = std::vector<std::string>;
  // A command's reply text; bad input throws core::InputError (answered "? message").
  using Handler = std::string (GtpEngine::*)(const Args& args);
  struct Command {
    const char* name;
    Handler handler;
  };
  static const std::vector<Command>& Commands();  // in list_commands order
  std::string Execute(const std::string& command, const Args& args);

  std::string ProtocolVersion(const Args& args);
  std::string Name(const Args& args);
  std::string Version(const Args& args);
  std::string KnownCommand(const Args& args);
  std::string ListCommands(const Args& args);
  std::string BoardSize(const Args& args);
  std::string ClearBoard(const Args& args);
  std::string PlayMove(const Args& args);
  std::string GenMove(const Args& args);
  std::string Undo(const Args& args);
  std::string ShowBoard(const Args& args);
  std::string FinalScore(const Args& args);
  std::string TimeSettings(const Args& args);
  std::string TimeLeft(const Args& args);
  std::string Quit(const Args& args);

  void ReadyFor(core::Color color);  // plays a forced pass so that `color` is to move

  GameSession& session_;
  bool quit_ = false;
  // Each colour's seconds left (black, white), from time_settings and time_left.
  std::optional<double> time_left_[2];
};

}  // namespace othello::play
