#include "play/nboard_engine.h"

#include <cctype>
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
  static const Command kCommands[] = {
      {"nboard", &NBoardEngine::Hello}, {"ping", &NBoardEngine::Ping},
      {"learn", &NBoardEngine::Ignore}, {"analyze", &NBoardEngine::Ignore},
      {"set", &NBoardEngine::Set},      {"move", &NBoardEngine::Move},
      {"hint", &NBoardEngine::Hint},    {"go", &NBoardEngine::Go}};
  for (const Command& c : kCommands) {
    if (command == c.name) return (this->*c.handler)(SplitWords(rest), rest);
  }
  Error("unknown command '" + command + "'");
}

std::string NBoardEngine::Hello(const Args&, const std::string&) { return "set myname othello-zero\n"; }

std::string NBoardEngine::Ping(const Args& args, const std::string&) {
  return "pong " + (args.empty() ? std::string("0") : args[0]) + "\n";
}

std::string NBoardEngine::Ignore(const Args&, const std::string&) { return ""; }

std::string NBoardEngine::Set(const Args& args, const std::string& rest) {
  static const Command kSettings[] = {{"depth", &NBoardEngine::SetDepth},
                                      {"contempt", &NBoardEngine::SetContempt},
                                      {"game", &NBoardEngine::SetGame}};
  if (args.empty()) Error("'set' needs what to set (depth, game, contempt)");
  for (const Command& c : kSettings) {
    if (args[0] == c.name) return (this->*c.handler)(args, rest);
  }
  Error("unknown setting '" + args[0] + "'");
}

std::string NBoardEngine::SetDepth(const Args& args, const std::string&) {
  if (args.size() != 2) Error("expected: set depth D");
  Strength strength = session_.strength();
  strength.visits = 50ull * Integer(args[1], 1, 60, "depth");
  strength.temperature = 0;
  session_.set_strength(strength);
  return "";
}

std::string NBoardEngine::SetContempt(const Args& args, const std::string&) {
  if (args.size() != 2) Error("expected: set contempt N");
  Integer(args[1], -100000, 100000, "contempt");
  return "";
}

std::string NBoardEngine::SetGame(const Args&, const std::string& rest) {
  auto record = core::ParseGgf(rest.substr(rest.find("game") + 4));
  if (!record) Error("set game: " + record.error());
  if (auto error = session_.SetGame(*record)) Error("set game: " + error->message);
  return "";
}

std::string NBoardEngine::Move(const Args& args, const std::string&) {
  if (args.empty()) Error("expected: move MOVE[/EVAL/TIME]");
  auto move = core::ParseSquare(args[0].substr(0, args[0].find('/')), session_.rules().size);
  if (!move) Error("move: " + move.error());
  if (auto error = session_.Play(*move)) Error("move: " + error->message);
  return "";
}

bool NBoardEngine::MustPass(const std::string& command) const {
  if (session_.game().IsOver()) Error(command + ": the game is over");
  return session_.game().position().MustPass();
}

std::string NBoardEngine::Hint(const Args& args, const std::string&) {
  if (MustPass("hint")) return "search PA 0.00 0 0\nstatus\n";
  const int n = args.empty() ? 1 : Integer(args[0], 1, 100, "hint count");
  const Analysis analysis = session_.Analyze();
  std::string out = "status othello-zero is thinking\n";
  for (int i = 0; i < n && i < static_cast<int>(analysis.moves.size()); ++i) {
    const MoveEvaluation& m = analysis.moves[i];
    char line[128];
    std::snprintf(line, sizeof line, "search %s %.2f 0 %u\n",
                  MoveName(m.move, session_.rules().size).c_str(), m.discs, m.visits);
    out += line;
  }
  return out + "status\n";
}

std::string NBoardEngine::Go(const Args&, const std::string&) {
  if (MustPass("go")) return "=== PA/0.00/0.0\n";
  const Analysis analysis = session_.Analyze();
  char line[128];
  std::snprintf(line, sizeof line, "=== %s/%.2f/%.1f\n",
                MoveName(analysis.best.move, session_.rules().size).c_str(), analysis.best.discs,
                analysis.seconds);
  return std::string("status othello-zero is thinking\n") + line + "status othello-zero is waiting\n";
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
