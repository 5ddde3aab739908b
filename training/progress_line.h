#pragma once
// The training progress line on a terminal: its fields in the order they matter (time
// left first), fitted to the terminal's width so that a redraw never wraps.
// Thread safety: functions of their arguments (TerminalColumns reads the terminal).
#include <string>
#include <vector>

namespace othello::training {

// `fields` joined by " | " in order, leaving out from the end every field that would make
// the line reach `columns` characters (a line as wide as the terminal wraps on some
// terminals, and a wrapped line is left behind by the next redraw). The first field is
// always kept, cut to columns - 1 when it alone is too wide.
std::string FitFields(const std::vector<std::string>& fields, int columns);

// The width of the terminal on `fd`, else $COLUMNS, else 80.
int TerminalColumns(int fd);

}  // namespace othello::training
