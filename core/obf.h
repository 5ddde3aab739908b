#pragma once
// .obf lines (the format of the FFO endgame suite, tests/data/ffo40-59.obf):
//   <N*N squares X/O/-> <side X|O>; <move>:<score>; <move>:<score>; ...
// where each score is the exact final disc difference for the side to move after that
// move under perfect play. Lines starting with '%' or '#' and blank lines hold no
// position. Errors name the column and what was wrong there.
// Thread safety: pure functions.
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/position.h"

namespace othello::core {

struct ObfScore {
  Square move = kPass;
  int score = 0;
};

struct ObfEntry {
  Position position = Position::Standard(8);
  std::vector<ObfScore> scores;  // in the order of the line
  // The best listed score, if any.
  std::optional<int> BestScore() const;
};

// nullopt: a comment or blank line.
Result<std::optional<ObfEntry>> ParseObfLine(std::string_view line);

}  // namespace othello::core
