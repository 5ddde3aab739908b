#include "play/nboard_engine.h"

#include <cstdio>
#include <cstdlib>
#include <istream>
#include <ostream>

#include "core/ggf.h"
#include "core/notation.h"
#include "play/engine_players.h"

namespace othello::play {

namespace {

[[noreturn]] void Error(const std::string& message) { throw core::InputError(message); }

int Integer(const std::string& text, int low, int high, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < low || v > high) {
    Error(std::string(what) + " '" + text + "' is not a number from " + std::to_string(low) +
          " to " + std::to_string(high));
  }
  return static_cast<int>(v);
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string MoveName(core::Square move, int size) {
  return move == core::kPass ? "PA" : Upper(core::SquareName(move, size));
}

}  // namespace

std::string NBoardEngine::Execute(const std::string& command, const std::string& rest) {
  const std::vector<std::string> args = SplitWords(rest);
  const int size = session_.rules().size;
  if (command == "nboard") return "set myname othello-zero\n";
  if (command == "ping") return "pong " + (args.empty() ? std::string("0") : args[0]) + "\n";
  if (command == "learn" || command == "analyze") return "";
  if (command == "set") {
    if (args.empty()) Error("'set' needs what to set (depth, game, contempt)");
    if (args[0] == "depth") {
      if (args.size() != 2) Error("expected: set depth D");
      Strength strength = session_.strength();
      strength.visits = 50ull * Integer(args[1], 1, 60, "depth");
      strength.temperature = 0;
      session_.set_strength(strength);
      return "";
    }
    if (args[0] == "contempt") {
      if (args.size() != 2) Error("expected: set contempt N");
      Integer(args[1], -100000, 100000, "contempt");
      return "";
    }
    if (args[0] == "game") {
      const std::size_t at = rest.find("game");
      auto record = core::ParseGgf(rest.substr(at + 4));
      if (!record) Error("set game: " + record.error());
      if (auto error = session_.SetGame(*record)) Error("set game: " + error->message);
      return "";
    }
    Error("unknown setting '" + args[0] + "'");
  }
  if (command == "move") {
    if (args.empty()) Error("expected: move MOVE[/EVAL/TIME]");
    const std::string text = args[0].substr(0, args[0].find('/'));
    auto move = core::ParseSquare(text, size);
    if (!move) Error("move: " + move.error());
    if (auto error = session_.Play(*move)) Error("move: " + error->message);
    return "";
  }
  if (command == "hint" || command == "go") {
    if (session_.game().IsOver()) Error(command + ": the game is over");
    if (session_.game().position().MustPass()) {
      if (command == "go") return "=== PA/0.00/0.0\n";
      return "search PA 0.00 0 0\nstatus\n";
    }
    const Analysis analysis = session_.Analyze();
    std::string out = "status othello-zero is thinking\n";
    char line[128];
    if (command == "go") {
      std::snprintf(line, sizeof line, "=== %s/%.2f/%.1f\n", MoveName(analysis.best.move, size).c_str(),
                    analysis.best.discs, analysis.seconds);
      return out + line + "status othello-zero is waiting\n";
    }
    const int n = args.empty() ? 1 : Integer(args[0], 1, 100, "hint count");
    for (int i = 0; i < n && i < static_cast<int>(analysis.moves.size()); ++i) {
      const MoveEvaluation& m = analysis.moves[i];
      std::snprintf(line, sizeof line, "search %s %.2f 0 %u\n", MoveName(m.move, size).c_str(),
                    m.discs, m.visits);
      out += line;
    }
    return out + "status\n";
  }
  Error("unknown command '" + command + "'");
}

std::string NBoardEngine::Handle(const std::string& line) {
  const std::vector<std::string> words = SplitWords(line);
  if (words.empty()) return "";
  const std::size_t start = line.find(words[0]) + words[0].size();
  try {
    return Execute(words[0], line.substr(start));
  } catch (const core::InputError& e) {
    return std::string("status error: ") + e.what() + "\n";
  }
}

void NBoardEngine::Run(std::istream& in, std::ostream& out) {
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "quit") break;
    out << Handle(line) << std::flush;
  }
}

}  // namespace othello::play
