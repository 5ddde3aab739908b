#pragma once
// GGF game records (the Generic Game Format of GGS, the Othello server format):
//   (;GM[Othello]PC[place]DT[date]PB[black]PW[white]TI[time]TY[8]RE[+2.000]
//     BO[8 -------- ... -------- *]B[f5//1.20]W[d6/-2.50/0.80]...;)
// BO[] holds the size, the start board row by row ('*' black, 'O' white, '-' empty)
// and the side to move; B[]/W[] hold square/evaluation/seconds ("PA" passes); TY[]
// the size and variants ('a' anti-Othello, 'r' random start); RE[] black's result
// with an optional ":r" (resigned), ":t" (time out) or ":s" (agreed) flag.
// Reading replays every move and reports the first problem with its move number.
// Thread safety: pure functions.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/game.h"

namespace othello::core {

struct GgfMove {
  Square square = kPass;
  std::optional<double> eval;     // evaluation in discs, from the mover's view
  std::optional<double> seconds;  // time used
};

struct GgfRecord {
  Rules rules;  // size and anti-Othello from TY[] / BO[]; start from the moves' context
  Position start = Position::Standard(8);
  std::vector<GgfMove> moves;  // passes included
  std::string place = "othello-zero";
  std::string date;
  std::string black_name, white_name;
  std::string time_control;  // TI[] verbatim
  std::optional<double> result;  // black's final margin; nullopt when unknown ("?")
  char result_flag = 0;          // 0, 'r', 't' or 's'
  std::string comment;           // any other properties, kept verbatim ("XX[..]")

  // The game this record describes (all moves already validated by ParseGgf).
  Game ToGame() const;
  // A record of `game`, with its outcome as the result when the game is over.
  static GgfRecord FromGame(const Game& game);
};

// Parses one game; `text` may hold surrounding whitespace.
Result<GgfRecord> ParseGgf(std::string_view text);
// Parses every game of a file; errors name the game number.
Result<std::vector<GgfRecord>> ParseGgfFile(std::string_view text);
std::string WriteGgf(const GgfRecord& record);

}  // namespace othello::core
