#pragma once
// Text notation: squares ("a1".."j10", "pass"/"PA"), transcripts ("f5d6c3d3c4",
// passes implicit), and board strings (N*N characters X/O/- row by row from a1, a
// space, then the side to move X or O, as in .obf files).
// Parsers take untrusted text and return Result<T> with a message that says what
// was wrong and where. Thread safety: pure functions.
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/position.h"

namespace othello::core {

// "a1".."j10", or "pass" for kPass.
std::string SquareName(Square sq, int size);
// Accepts a square in either case, or "pass"/"pa"/"ps" for kPass.
Result<Square> ParseSquare(std::string_view text, int size);

// Parses a transcript from `start`: squares written back to back or separated by
// spaces/commas, case-insensitive; forced passes are inserted automatically and may
// also be written. Returns every ply, passes included.
Result<std::vector<Square>> ParseTranscript(std::string_view text, const Position& start);
// Writes the moves without passes ("f5d6c3").
std::string FormatTranscript(const std::vector<Square>& moves, int size);

// Board strings. The size is inferred from the number of squares (16, 36, 64, 100).
// Accepted discs: X, x, * and B for black; O, o and W for white; -, . and _ empty.
Result<Position> ParseBoardString(std::string_view text);
std::string FormatBoardString(const Position& position);

// A human-readable diagram with coordinates ('X' black, 'O' white, '*' legal moves
// when `mark_legal`), followed by the disc counts and the side to move.
std::string RenderBoard(const Position& position, bool mark_legal = true);

std::string_view ColorName(Color c);  // "black" / "white"

}  // namespace othello::core
