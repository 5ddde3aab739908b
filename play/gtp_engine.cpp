#include "play/gtp_engine.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <sstream>

#include "core/notation.h"
#include "core/rules.h"
#include "play/engine_players.h"

namespace othello::play {

namespace {

[[noreturn]] void Error(const std::string& message) { throw core::InputError(message); }

double Seconds(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !(v >= 0) || v > 1e9) Error("'" + text + "' is not a time in seconds");
  return v;
}

void Need(const std::vector<std::string>& args, std::size_t n, const char* usage) {
  if (args.size() != n) Error(std::string("expected: ") + usage);
}

core::Color ParseColor(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "b" || t == "black") return core::Color::kBlack;
  if (t == "w" || t == "white") return core::Color::kWhite;
  Error("'" + text + "' is not a colour (black or white)");
}

// The line without its comment, with control characters as spaces.
std::string CleanLine(const std::string& raw) {
  std::string line = raw.substr(0, raw.find('#'));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 32) c = ' ';
  }
  return line;
}

// "=ID REPLY\n\n"; a reply ends at its first empty line, so it keeps none inside.
std::string Success(const std::string& id, std::string reply) {
  while (!reply.empty() && reply.back() == '\n') reply.pop_back();
  for (std::size_t at; (at = reply.find("\n\n")) != std::string::npos;) reply.erase(at, 1);
  return "=" + id + (reply.empty() || reply[0] == '\n' ? "" : " ") + reply + "\n\n";
}

}  // namespace

const std::vector<GtpEngine::Command>& GtpEngine::Commands() {
  static const std::vector<Command> kCommands = {
      {"protocol_version", &GtpEngine::ProtocolVersion},
      {"name", &GtpEngine::Name},
      {"version", &GtpEngine::Version},
      {"known_command", &GtpEngine::KnownCommand},
      {"list_commands", &GtpEngine::ListCommands},
      {"boardsize", &GtpEngine::BoardSize},
      {"clear_board", &GtpEngine::ClearBoard},
      {"play", &GtpEngine::PlayMove},
      {"genmove", &GtpEngine::GenMove},
      {"undo", &GtpEngine::Undo},
      {"showboard", &GtpEngine::ShowBoard},
      {"final_score", &GtpEngine::FinalScore},
      {"time_settings", &GtpEngine::TimeSettings},
      {"time_left", &GtpEngine::TimeLeft},
      {"quit", &GtpEngine::Quit}};
  return kCommands;
}

std::string GtpEngine::Execute(const std::string& command, const Args& args) {
  for (const Command& c : Commands()) {
    if (command == c.name) return (this->*c.handler)(args);
  }
  Error("unknown command");
}

std::string GtpEngine::ProtocolVersion(const Args&) { return "2"; }
std::string GtpEngine::Name(const Args&) { return "othello-zero"; }
std::string GtpEngine::Version(const Args&) { return "0.1.0"; }

std::string GtpEngine::KnownCommand(const Args& args) {
  Need(args, 1, "known_command COMMAND");
  for (const Command& c : Commands()) {
    if (args[0] == c.name) return "true";
  }
  return "false";
}

std::string GtpEngine::ListCommands(const Args&) {
  std::string list;
  for (const Command& c : Commands()) list += (list.empty() ? "" : "\n") + std::string(c.name);
  return list;
}

std::string GtpEngine::BoardSize(const Args& args) {
  Need(args, 1, "boardsize N");
  core::Rules rules = session_.rules();
  char* end = nullptr;
  rules.size = static_cast<int>(std::strtol(args[0].c_str(), &end, 10));
  if (*end || args[0].empty()) Error("'" + args[0] + "' is not a board size");
  if (auto error = session_.NewGame(rules)) Error("unacceptable size: " + error->message);
  return "";
}

std::string GtpEngine::ClearBoard(const Args&) {
  session_.NewGame(session_.rules());
  return "";
}

std::string GtpEngine::PlayMove(const Args& args) {
  Need(args, 2, "play COLOR MOVE");
  const core::Color color = ParseColor(args[0]);
  auto move = core::ParseSquare(args[1], session_.rules().size);
  if (!move) Error("illegal move: " + move.error());
  // A pass for the side that is not to move (it already passed) is accepted.
  if (*move == core::kPass && session_.game().position().side_to_move() != color) return "";
  ReadyFor(color);
  if (auto error = session_.Play(*move)) Error("illegal move: " + error->message);
  return "";
}

std::string GtpEngine::GenMove(const Args& args) {
  Need(args, 1, "genmove COLOR");
  const core::Color color = ParseColor(args[0]);
  if (session_.game().IsOver()) return "pass";
  ReadyFor(color);  // plays the other side's forced pass if needed
  if (session_.game().position().MustPass()) {
    session_.Play(core::kPass);
    return "pass";
  }
  const Analysis analysis = session_.PlayAi(MoveBudget());
  return core::SquareName(analysis.best.move, session_.rules().size);
}

std::string GtpEngine::Undo(const Args&) {
  if (!session_.Undo()) Error("cannot undo: no move played");
  return "";
}

std::string GtpEngine::ShowBoard(const Args&) {
  return "\n" + core::RenderBoard(session_.game().position());
}

std::string GtpEngine::FinalScore(const Args&) {
  // The discs of a game under way are not its score: refused, as GTP allows ("cannot
  // score").
  if (!session_.game().IsOver()) Error("cannot score: the game is not over");
  const core::Outcome outcome = core::Score(session_.game().position(), session_.rules());
  if (outcome.black_margin == 0) return "0";
  return (outcome.black_margin > 0 ? "B+" : "W+") + std::to_string(std::abs(outcome.black_margin));
}

std::string GtpEngine::TimeSettings(const Args& args) {
  Need(args, 3, "time_settings MAIN BYO_YOMI STONES");
  const double main_time = Seconds(args[0]);
  Seconds(args[1]);  // checked, not used: no byo-yomi
  for (std::optional<double>& left : time_left_) {
    left = main_time > 0 ? std::optional<double>(main_time) : std::nullopt;
  }
  return "";
}

std::string GtpEngine::TimeLeft(const Args& args) {
  Need(args, 3, "time_left COLOR SECONDS STONES");
  const core::Color color = ParseColor(args[0]);
  time_left_[static_cast<int>(color)] = Seconds(args[1]);  // that colour's clock alone
  return "";
}

std::string GtpEngine::Quit(const Args&) {
  quit_ = true;
  return "";
}

void GtpEngine::ReadyFor(core::Color color) {
  const core::Position& pos = session_.game().position();
  if (pos.IsGameOver()) Error("the game is over");
  if (pos.side_to_move() == color) return;
  if (!pos.MustPass()) {
    Error(std::string("it is ") + std::string(core::ColorName(pos.side_to_move())) +
          "'s turn, not " + std::string(core::ColorName(color)) + "'s");
  }
  session_.Play(core::kPass);
}

double GtpEngine::MoveBudget() const {
  const std::optional<double>& left =
      time_left_[static_cast<int>(session_.game().position().side_to_move())];
  if (!left) return 0;
  const MoveClock clock{true, *left, 0};
  return std::max(0.05, clock.Budget(session_.game().position()));
}

std::string GtpEngine::Handle(const std::string& raw) {
  std::vector<std::string> words = SplitWords(CleanLine(raw));
  if (words.empty()) return "";
  std::string id;
  if (std::isdigit(static_cast<unsigned char>(words[0][0]))) {
    id = words[0];
    words.erase(words.begin());
    if (words.empty()) return "?" + id + " no command\n\n";
  }
  const std::string command = words[0];
  words.erase(words.begin());
  try {
    return Success(id, Execute(command, words));
  } catch (const core::InputError& e) {
    return "?" + id + " " + e.what() + "\n\n";
  }
}

void GtpEngine::Run(std::istream& in, std::ostream& out) {
  for (std::string line; !quit_ && std::getline(in, line);) {
    const std::string reply = Handle(line);
    if (!reply.empty()) out << reply << std::flush;
  }
}

}  // namespace othello::play
