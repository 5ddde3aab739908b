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
// Thread safety: one thread.
#include <iosfwd>
#include <string>

#include "play/game_session.h"

namespace othello::play {

class NBoardEngine {
 public:
  explicit NBoardEngine(GameSession& session) : session_(session) {}
  std::string Handle(const std::string& line);  // every reply line, each ending in '\n'
  void Run(std::istream& in, std::ostream& out);

 private:
  std::string Execute(const std::string& command, const std::string& rest);
  GameSession& session_;
};

}  // namespace othello::play
