#pragma once
// The NBoard engine (`othello-zero nboard`), protocol version 2, as the NBoard GUI
// drives engines:
//   nboard 2                -> set myname othello-zero
//   set depth D             -> strength: 50 * D playouts per move (D = 1..60)
//   set game GGF            -> the game to analyse or continue (any size, any start)
//   set contempt N          -> accepted (the search has no contempt)
//   move MOVE[/EVAL/TIME]   -> plays a move ("PA" passes)
//   hint N                  -> "search MOVE EVAL 0 DEPTH" for up to N moves, then "status"
//   go                      -> "=== MOVE/EVAL/TIME" (EVAL in discs for the mover, TIME in s)
//   ping N                  -> "pong N"
//   learn, analyze          -> accepted, nothing to do
// While thinking it reports "status othello-zero is thinking" and afterwards
// "status othello-zero is waiting". Bad lines (unknown commands, a bad GGF game, an
// illegal move) are answered with "status error: ..." naming the problem; the engine
// keeps running.
// Each command (and each `set` setting) is one handler, found by name in a table
// (nboard_engine.cpp).
// Thread safety: none; one thread drives the engine and its session.
// Lifetime: the session is borrowed and must outlive the engine.
#include <iosfwd>
#include <string>
#include <vector>

#include "play/game_session.h"

namespace othello::play {

class NBoardEngine {
 public:
  explicit NBoardEngine(GameSession& session) : session_(session) {}
  std::string Handle(const std::string& line);  // every reply line, each ending in '\n'
  void Run(std::istream& in, std::ostream& out);

 private:
  using Args = std::vector<std::string>;
  // A command's reply lines; `args` are the words after the command, `rest` the text
  // after it (a GGF game keeps its spaces). Bad input throws core::InputError.
  using Handler = std::string (NBoardEngine::*)(const Args& args, const std::string& rest);
  struct Command {
    const char* name;
    Handler handler;
  };
  std::string Execute(const std::string& command, const std::string& rest);

  std::string Hello(const Args& args, const std::string& rest);   // nboard
  std::string Ping(const Args& args, const std::string& rest);
  std::string Ignore(const Args& args, const std::string& rest);  // learn, analyze
  std::string Set(const Args& args, const std::string& rest);
  std::string SetDepth(const Args& args, const std::string& rest);
  std::string SetContempt(const Args& args, const std::string& rest);
  std::string SetGame(const Args& args, const std::string& rest);
  std::string Move(const Args& args, const std::string& rest);
  std::string Hint(const Args& args, const std::string& rest);
  std::string Go(const Args& args, const std::string& rest);

  // Whether the side to move must pass (hint and go answer a pass without a search);
  // throws when the game is over.
  bool MustPass(const std::string& command) const;

  GameSession& session_;
};

}  // namespace othello::play
