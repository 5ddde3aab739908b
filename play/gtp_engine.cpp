#include "play/gtp_engine.h"

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

const char* const kCommands[] = {
    "protocol_version", "name",       "version",        "known_command", "list_commands",
    "boardsize",        "clear_board", "play",          "genmove",       "undo",
    "showboard",        "final_score", "time_settings", "time_left",     "quit"};

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

}  // namespace

core::Color GtpEngine::ParseColor(const std::string& text) const {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "b" || t == "black") return core::Color::kBlack;
  if (t == "w" || t == "white") return core::Color::kWhite;
  Error("'" + text + "' is not a colour (black or white)");
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

std::string GtpEngine::Execute(const std::string& command, const std::vector<std::string>& args) {
  const int size = session_.rules().size;
  if (command == "protocol_version") return "2";
  if (command == "name") return "othello-zero";
  if (command == "version") return "0.1.0";
  if (command == "known_command") {
    Need(args, 1, "known_command COMMAND");
    for (const char* c : kCommands) {
      if (args[0] == c) return "true";
    }
    return "false";
  }
  if (command == "list_commands") {
    std::string list;
    for (const char* c : kCommands) list += (list.empty() ? "" : "\n") + std::string(c);
    return list;
  }
  if (command == "boardsize") {
    Need(args, 1, "boardsize N");
    core::Rules rules = session_.rules();
    char* end = nullptr;
    rules.size = static_cast<int>(std::strtol(args[0].c_str(), &end, 10));
    if (*end || args[0].empty()) Error("'" + args[0] + "' is not a board size");
    if (auto error = session_.NewGame(rules)) Error("unacceptable size: " + error->message);
    return "";
  }
  if (command == "clear_board") {
    session_.NewGame(session_.rules());
    return "";
  }
  if (command == "play") {
    Need(args, 2, "play COLOR MOVE");
    const core::Color color = ParseColor(args[0]);
    auto move = core::ParseSquare(args[1], size);
    if (!move) Error("illegal move: " + move.error());
    const core::Position& pos = session_.game().position();
    // A pass for the side that is not to move (it already passed) is accepted.
    if (*move == core::kPass && pos.side_to_move() != color) return "";
    ReadyFor(color);
    if (auto error = session_.Play(*move)) Error("illegal move: " + error->message);
    return "";
  }
  if (command == "genmove") {
    Need(args, 1, "genmove COLOR");
    const core::Color color = ParseColor(args[0]);
    if (session_.game().IsOver()) return "pass";
    ReadyFor(color);  // plays the other side's forced pass if needed
    if (session_.game().position().MustPass()) {
      session_.Play(core::kPass);
      return "pass";
    }
    double budget = 0;
    if (time_left_) {
      MoveClock clock{true, *time_left_, 0};
      budget = std::max(0.05, clock.Budget(session_.game().position()));
    }
    const Analysis analysis = session_.PlayAi(budget);
    return core::SquareName(analysis.best.move, size);
  }
  if (command == "undo") {
    if (!session_.Undo()) Error("cannot undo: no move played");
    return "";
  }
  if (command == "showboard") return "\n" + core::RenderBoard(session_.game().position());
  if (command == "final_score") {
    const core::Outcome outcome = core::Score(session_.game().position(), session_.rules());
    if (outcome.black_margin == 0) return "0";
    return (outcome.black_margin > 0 ? "B+" : "W+") + std::to_string(std::abs(outcome.black_margin));
  }
  if (command == "time_settings") {
    Need(args, 3, "time_settings MAIN BYO_YOMI STONES");
    main_time_ = Seconds(args[0]);
    Seconds(args[1]);
    time_left_ = *main_time_ > 0 ? main_time_ : std::nullopt;
    return "";
  }
  if (command == "time_left") {
    Need(args, 3, "time_left COLOR SECONDS STONES");
    ParseColor(args[0]);
    time_left_ = Seconds(args[1]);
    return "";
  }
  if (command == "quit") {
    quit_ = true;
    return "";
  }
  Error("unknown command");
}

std::string GtpEngine::Handle(const std::string& raw) {
  std::string line = raw.substr(0, raw.find('#'));
  for (char& c : line) {
    if (c == '\t') c = ' ';
    if (static_cast<unsigned char>(c) < 32 && c != '\t') c = ' ';
  }
  std::vector<std::string> words = SplitWords(line);
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
    std::string reply = Execute(command, words);
    // A reply ends at its first empty line: keep none inside it.
    while (!reply.empty() && reply.back() == '\n') reply.pop_back();
    for (std::size_t at; (at = reply.find("\n\n")) != std::string::npos;) reply.erase(at, 1);
    return "=" + id + (reply.empty() || reply[0] == '\n' ? "" : " ") + reply + "\n\n";
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
