#include "core/notation.h"

#include <cctype>
#include <sstream>

#include "core/geometry.h"

namespace othello::core {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\n' || c == '\r'; }

// Black 'X', white 'O', empty '-', or '?' for anything else.
char DiscChar(char c) {
  switch (c) {
    case 'X': case 'x': case '*': case 'B': return 'X';
    case 'O': case 'o': case 'W': return 'O';
    case '-': case '.': case '_': return '-';
    default: return '?';
  }
}

// Length of the move token at text[pos...] ("f5", "j10", "pa", "pass"), 0 if none.
std::size_t TokenLength(std::string_view text, std::size_t pos) {
  const std::string head = Lower(text.substr(pos, 4));
  if (head == "pass") return 4;
  if (head.rfind("pa", 0) == 0 || head.rfind("ps", 0) == 0) return 2;
  std::size_t end = pos;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  if (end - pos >= 2) return end - pos;  // an unknown word, reported whole
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return end - pos;
}

}  // namespace

std::string_view ColorName(Color c) { return c == Color::kBlack ? "black" : "white"; }

std::string SquareName(Square sq, int size) {
  if (sq == kPass) return "pass";
  return std::string(1, static_cast<char>('a' + sq % size)) + std::to_string(sq / size + 1);
}

Result<Square> ParseSquare(std::string_view text, int size) {
  const std::string s = Lower(text);
  if (s == "pass" || s == "pa" || s == "ps") return kPass;
  const auto bad = [&](const std::string& why) {
    return Error{"bad square '" + std::string(text) + "': " + why};
  };
  if (s.size() < 2 || s.size() > 3 || !std::isalpha(static_cast<unsigned char>(s[0]))) {
    return bad("expected a column letter and a row number such as d3");
  }
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return bad("the row must be a number");
  }
  const int col = s[0] - 'a';
  const int row = std::stoi(s.substr(1)) - 1;
  const char last_col = static_cast<char>('a' + size - 1);
  if (col < 0 || col >= size) {
    return bad(std::string("column out of range a..") + last_col + " for " +
               std::to_string(size) + "x" + std::to_string(size));
  }
  if (row < 0 || row >= size || s[1] == '0') {
    return bad("row out of range 1.." + std::to_string(size) + " for " + std::to_string(size) +
               "x" + std::to_string(size));
  }
  return MakeSquare(size, col, row);
}

Result<std::vector<Square>> ParseTranscript(std::string_view text, const Position& start) {
  std::vector<Square> plies;
  Position pos = start;
  int move_number = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (IsSeparator(text[i])) {
      ++i;
      continue;
    }
    const std::size_t len = std::max<std::size_t>(TokenLength(text, i), 1);
    const std::string_view token = text.substr(i, len);
    ++move_number;
    const std::string where = "move " + std::to_string(move_number) + " ('" +
                              std::string(token) + "', column " + std::to_string(i + 1) + ")";
    auto sq = ParseSquare(token, start.size());
    if (!sq) return Error{where + ": " + sq.error()};
    if (pos.IsGameOver()) return Error{where + ": the game is already over"};
    if (*sq != kPass && pos.MustPass()) {  // implicit pass
      plies.push_back(kPass);
      pos = pos.Play(kPass);
    }
    if (!pos.IsLegal(*sq)) {
      return Error{where + ": illegal for " + std::string(ColorName(pos.side_to_move())) +
                   (*sq == kPass ? " (a legal move exists)" : "")};
    }
    plies.push_back(*sq);
    pos = pos.Play(*sq);
    i += len;
  }
  return plies;
}

std::string FormatTranscript(const std::vector<Square>& moves, int size) {
  std::string out;
  for (Square sq : moves) {
    if (sq != kPass) out += SquareName(sq, size);
  }
  return out;
}

Result<Position> ParseBoardString(std::string_view text) {
  std::size_t n = 0;
  std::string discs;
  for (; n < text.size() && !IsSeparator(text[n]); ++n) discs += text[n];
  int size = 0;
  for (int s = kMinSize; s <= kMaxSize; s += 2) {
    if (discs.size() == static_cast<std::size_t>(s * s)) size = s;
  }
  if (size == 0) {
    return Error{"board string has " + std::to_string(discs.size()) +
                 " squares; expected 16, 36, 64 or 100 (N*N for an N x N board) before the "
                 "side to move"};
  }
  Bitboard black = 0, white = 0;
  for (int sq = 0; sq < size * size; ++sq) {
    const char c = DiscChar(discs[sq]);
    if (c == '?') {
      return Error{"board string: bad character '" + std::string(1, discs[sq]) + "' at " +
                   SquareName(sq, size) + " (character " + std::to_string(sq + 1) +
                   "); use X, O or -"};
    }
    if (c == 'X') black |= Bit(sq);
    if (c == 'O') white |= Bit(sq);
  }
  while (n < text.size() && IsSeparator(text[n])) ++n;
  const std::string side = Lower(text.substr(n, TokenLength(text, n) ? TokenLength(text, n) : 1));
  Color to_move;
  if (side == "x" || side == "b" || side == "*" || side == "black") {
    to_move = Color::kBlack;
  } else if (side == "o" || side == "w" || side == "white") {
    to_move = Color::kWhite;
  } else {
    return Error{"board string: side to move " +
                 (side.empty() ? std::string("is missing") : "'" + side + "' is not X or O") +
                 " (character " + std::to_string(n + 1) + ")"};
  }
  n += side.size();
  while (n < text.size() && IsSeparator(text[n])) ++n;
  if (n < text.size() && text[n] != ';' && text[n] != '%') {
    return Error{"board string: unexpected text after the side to move at character " +
                 std::to_string(n + 1)};
  }
  return to_move == Color::kBlack ? Position(size, black, white, to_move)
                                  : Position(size, white, black, to_move);
}

std::string FormatBoardString(const Position& position) {
  std::string out;
  const Bitboard black = position.discs(Color::kBlack), white = position.discs(Color::kWhite);
  for (int sq = 0; sq < position.squares(); ++sq) {
    out += (black & Bit(sq)) ? 'X' : (white & Bit(sq)) ? 'O' : '-';
  }
  out += position.side_to_move() == Color::kBlack ? " X" : " O";
  return out;
}

std::string RenderBoard(const Position& position, bool mark_legal) {
  const int size = position.size();
  const Bitboard black = position.discs(Color::kBlack), white = position.discs(Color::kWhite);
  const Bitboard legal = mark_legal ? position.LegalMoves() : 0;
  std::ostringstream out;
  out << "   ";
  for (int c = 0; c < size; ++c) out << ' ' << static_cast<char>('a' + c);
  out << '\n';
  for (int r = 0; r < size; ++r) {
    out << (r + 1 < 10 ? "  " : " ") << r + 1;
    for (int c = 0; c < size; ++c) {
      const Bitboard b = Bit(MakeSquare(size, c, r));
      out << ' ' << ((black & b) ? 'X' : (white & b) ? 'O' : (legal & b) ? '*' : '.');
    }
    out << '\n';
  }
  out << "X (black): " << PopCount(black) << "  O (white): " << PopCount(white) << "  "
      << (position.IsGameOver() ? std::string("game over")
                                : std::string(ColorName(position.side_to_move())) + " to move")
      << '\n';
  return out.str();
}

}  // namespace othello::core
