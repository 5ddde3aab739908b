#include "core/ggf.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/geometry.h"
#include "core/notation.h"

namespace othello::core {
namespace {

struct Property {
  std::string name;
  std::string value;
  std::size_t offset;  // of the name, from the start of the game text
};

std::string Trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Splits "(;A[x]B[y];)" into properties.
Result<std::vector<Property>> Tokenize(std::string_view text) {
  const std::size_t open = text.find("(;");
  if (open == std::string_view::npos) return Error{"GGF: no game start '(;' found"};
  std::vector<Property> props;
  std::size_t i = open + 2;
  while (true) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) return Error{"GGF: game not closed with ';)' (unexpected end)"};
    if (text.compare(i, 2, ";)") == 0) break;
    const std::size_t start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || i >= text.size() || text[i] != '[') {
      return Error{"GGF: expected a property such as PB[name] at character " +
                   std::to_string(start + 1)};
    }
    const std::size_t close = text.find(']', i);
    if (close == std::string_view::npos) {
      return Error{"GGF: property " + std::string(text.substr(start, i - start)) +
                   " at character " + std::to_string(start + 1) + " is not closed with ']'"};
    }
    props.push_back({std::string(text.substr(start, i - start)),
                     std::string(text.substr(i + 1, close - i - 1)), start});
    i = close + 1;
  }
  return props;
}

std::optional<double> ParseNumber(const std::string& s) {
  if (s.empty()) return std::nullopt;
  // Seconds may be written as [[h:]m:]s.
  double total = 0;
  std::size_t pos = 0;
  while (true) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + pos, &end);
    if (end == s.c_str() + pos || !std::isfinite(v)) return std::nullopt;  // no nan, inf
    total = total * 60 + v;
    pos = static_cast<std::size_t>(end - s.c_str());
    if (pos == s.size()) return total;
    if (s[pos] != ':') return std::nullopt;
    ++pos;
  }
}

Result<Position> ParseBoard(const std::string& value) {
  std::size_t i = 0;
  while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
  std::size_t digits = i;
  while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) ++digits;
  if (digits == i) return Error{"GGF BO[]: missing board size"};
  const int size = digits - i > 2 ? 0 : std::atoi(value.substr(i, digits - i).c_str());
  if (!IsValidSize(size)) {
    return Error{"GGF BO[]: board size " + std::to_string(size) + " is not supported"};
  }
  std::string squares;
  for (std::size_t k = digits; k < value.size(); ++k) {
    if (!std::isspace(static_cast<unsigned char>(value[k]))) squares += value[k];
  }
  if (squares.size() != static_cast<std::size_t>(size * size + 1)) {
    return Error{"GGF BO[]: expected " + std::to_string(size * size) +
                 " squares and the side to move, found " + std::to_string(squares.size()) +
                 " characters"};
  }
  auto pos = ParseBoardString(squares.substr(0, size * size) + " " + squares.back());
  if (!pos) return Error{"GGF BO[]: " + pos.error()};
  return *pos;
}

Result<GgfMove> ParseMoveValue(const std::string& value, int size) {
  GgfMove move;
  const std::size_t slash = value.find('/');
  auto sq = ParseSquare(Trim(value.substr(0, slash)), size);
  if (!sq) return Error{sq.error()};
  move.square = *sq;
  if (slash != std::string::npos) {
    const std::size_t slash2 = value.find('/', slash + 1);
    const std::string eval = Trim(value.substr(slash + 1, slash2 - slash - 1));
    if (!eval.empty()) {
      move.eval = ParseNumber(eval);
      if (!move.eval) return Error{"bad evaluation '" + eval + "'"};
    }
    if (slash2 != std::string::npos) {
      const std::string secs = Trim(value.substr(slash2 + 1));
      if (!secs.empty()) {
        move.seconds = ParseNumber(secs);
        if (!move.seconds) return Error{"bad time '" + secs + "'"};
      }
    }
  }
  return move;
}

std::string FormatNumber(double v, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Clean(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == ']') c = ')';
  }
  return out;
}

// Applies one property to the record; moves are replayed against `pos`.
std::optional<Error> Apply(const Property& p, GgfRecord& rec, Position& pos, bool& board_seen,
                           int& type_size) {
  const std::string& v = p.value;
  if (p.name == "GM") {
    if (Trim(v) != "Othello" && Trim(v) != "othello" && !Trim(v).empty()) {
      return Error{"GGF GM[" + v + "]: not an Othello game"};
    }
  } else if (p.name == "PC") { rec.place = v;
  } else if (p.name == "DT") { rec.date = v;
  } else if (p.name == "PB") { rec.black_name = v;
  } else if (p.name == "PW") { rec.white_name = v;
  } else if (p.name == "TI") { rec.time_control = v;
  } else if (p.name == "TY") {
    std::size_t k = 0;
    while (k < v.size() && !std::isdigit(static_cast<unsigned char>(v[k]))) ++k;
    const std::size_t first = k;
    while (k < v.size() && std::isdigit(static_cast<unsigned char>(v[k]))) ++k;
    type_size = k - first > 2 ? 0 : std::atoi(v.substr(first, k - first).c_str());
    if (!IsValidSize(type_size)) return Error{"GGF TY[" + v + "]: unsupported board size"};
    rec.rules.anti = v.find('a', k) != std::string::npos;
    if (v.find('r', k) != std::string::npos) rec.rules.start = StartKind::kRandom;
  } else if (p.name == "RE") {
    const std::string r = Trim(v);
    const std::size_t colon = r.find(':');
    if (r != "?" && !r.empty()) {
      rec.result = ParseNumber(r.substr(0, colon));
      if (!rec.result) return Error{"GGF RE[" + v + "]: bad result"};
      if (colon != std::string::npos) rec.result_flag = r.size() > colon + 1 ? r[colon + 1] : 0;
    }
  } else if (p.name == "BO") {
    if (!rec.moves.empty()) return Error{"GGF BO[] after the first move"};
    auto board = ParseBoard(v);
    if (!board) return Error{board.error()};
    rec.start = pos = *board;
    rec.rules.size = board->size();
    board_seen = true;
  } else if (p.name == "B" || p.name == "W") {
    if (!board_seen) return Error{"GGF move before BO[] (the start board)"};
    const std::string where = "GGF move " + std::to_string(rec.moves.size() + 1) + " " +
                              p.name + "[" + v + "]: ";
    auto move = ParseMoveValue(v, pos.size());
    if (!move) return Error{where + move.error()};
    const Color mover = p.name == "B" ? Color::kBlack : Color::kWhite;
    if (mover != pos.side_to_move() && pos.MustPass()) {  // omitted pass
      rec.moves.push_back(GgfMove{});
      pos = pos.Play(kPass);
    }
    if (mover != pos.side_to_move()) {
      return Error{where + std::string(ColorName(pos.side_to_move())) + " is to move"};
    }
    if (!pos.IsLegal(move->square)) {
      return Error{where + "illegal move for " + std::string(ColorName(mover))};
    }
    pos = pos.Play(move->square);
    rec.moves.push_back(*move);
  } else {
    rec.comment += p.name + "[" + v + "]";
  }
  return std::nullopt;
}

}  // namespace

Result<GgfRecord> ParseGgf(std::string_view text) {
  auto props = Tokenize(text);
  if (!props) return Error{props.error()};
  GgfRecord rec;
  rec.place.clear();
  Position pos = rec.start;
  bool board_seen = false;
  int type_size = 0;
  for (const Property& p : *props) {
    if (auto err = Apply(p, rec, pos, board_seen, type_size)) return *err;
  }
  if (!board_seen) return Error{"GGF: missing BO[] (the start board)"};
  if (type_size != 0 && type_size != rec.rules.size) {
    return Error{"GGF: TY[] says size " + std::to_string(type_size) + " but BO[] has size " +
                 std::to_string(rec.rules.size)};
  }
  return rec;
}

Result<std::vector<GgfRecord>> ParseGgfFile(std::string_view text) {
  std::vector<GgfRecord> games;
  std::size_t pos = 0;
  while ((pos = text.find("(;", pos)) != std::string_view::npos) {
    std::size_t end = text.find(";)", pos + 2);
    end = end == std::string_view::npos ? text.size() : end + 2;
    auto game = ParseGgf(text.substr(pos, end - pos));
    if (!game) return Error{"game " + std::to_string(games.size() + 1) + ": " + game.error()};
    games.push_back(std::move(*game));
    pos = end;
  }
  return games;
}

Game GgfRecord::ToGame() const {
  Game game(rules, start);
  for (const GgfMove& m : moves) game.Play(m.square);
  return game;
}

GgfRecord GgfRecord::FromGame(const Game& game) {
  GgfRecord rec;
  rec.rules = game.rules();
  rec.start = game.start();
  for (Square sq : game.moves()) rec.moves.push_back(GgfMove{sq, std::nullopt, std::nullopt});
  if (game.IsOver()) rec.result = game.FinalOutcome().black_margin;
  return rec;
}

std::string WriteGgf(const GgfRecord& rec) {
  const int size = rec.start.size();
  std::string out = "(;GM[Othello]PC[" + Clean(rec.place) + "]DT[" + Clean(rec.date) + "]PB[" +
                    Clean(rec.black_name) + "]PW[" + Clean(rec.white_name) + "]";
  if (!rec.time_control.empty()) out += "TI[" + Clean(rec.time_control) + "]";
  out += "TY[" + std::to_string(size) + (rec.rules.start == StartKind::kRandom ? "r" : "") +
         (rec.rules.anti ? "a" : "") + "]";
  out += "RE[" + (rec.result ? FormatNumber(*rec.result, "%+.3f") : std::string("?"));
  if (rec.result_flag) out += std::string(":") + rec.result_flag;
  out += "]BO[" + std::to_string(size);
  const std::string board = FormatBoardString(rec.start);
  for (int r = 0; r < size; ++r) {
    out += ' ';
    for (char c : board.substr(r * size, size)) out += c == 'X' ? '*' : c;
  }
  out += rec.start.side_to_move() == Color::kBlack ? " *]" : " O]";
  Position pos = rec.start;
  for (const GgfMove& m : rec.moves) {
    out += pos.side_to_move() == Color::kBlack ? "B[" : "W[";
    std::string name = m.square == kPass ? "PA" : SquareName(m.square, size);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += name;
    if (m.eval || m.seconds) out += "/" + (m.eval ? FormatNumber(*m.eval, "%.2f") : "");
    if (m.seconds) out += "/" + FormatNumber(*m.seconds, "%.2f");
    out += "]";
    pos = pos.Play(m.square);
  }
  out += rec.comment + ";)";
  return out;
}

}  // namespace othello::core
