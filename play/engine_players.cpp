#include "play/engine_players.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/ggf.h"
#include "core/notation.h"

namespace othello::play {

namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The engine's move text as a square of this game, or PlayerError naming the text.
core::Square ParseEngineMove(const std::string& text, const core::Game& game,
                             const std::string& engine, const std::string& command) {
  auto square = core::ParseSquare(text, game.position().size());
  if (!square) {
    throw PlayerError("engine '" + engine + "' answered '" + command + "' with '" + text +
                      "', which is not a move: " + square.error());
  }
  return *square;
}

std::string WholeSeconds(double seconds) {
  std::ostringstream out;
  out << static_cast<long long>(seconds < 0 ? 0 : seconds);
  return out.str();
}

}  // namespace

std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// ---------------------------------------------------------------------------- GTP

GtpPlayer::GtpPlayer(const std::string& command, EngineOptions options)
    : command_(command), options_(std::move(options)) {
  if (options_.name.empty()) options_.name = command;
}

std::optional<std::string> GtpPlayer::Command(const std::string& command, bool required,
                                              double timeout_seconds) {
  process_->WriteLine(command);
  const EngineProcess::Deadline deadline{std::chrono::duration<double>(timeout_seconds)};
  std::string first;
  do {
    first = Trim(process_->ReadLine(deadline));
  } while (first.empty());
  if (first[0] != '=' && first[0] != '?') {
    throw PlayerError("engine '" + options_.name + "' answered '" + command +
                      "' with garbage: '" + first.substr(0, 200) + "'");
  }
  // The reply runs to the next empty line.
  std::string reply = Trim(first.substr(1));
  for (std::string line; !(line = process_->ReadLine(deadline)).empty();) reply += "\n" + line;
  if (first[0] == '?') {
    if (required) {
      throw PlayerError("engine '" + options_.name + "' refused '" + command + "': " + reply);
    }
    return std::nullopt;
  }
  return reply;
}

void GtpPlayer::NewGame(const core::Game& game, const std::optional<TimeControl>& time) {
  const int size = game.rules().size;
  if (game.start() != core::Position::Standard(size)) {
    throw PlayerError("engine '" + options_.name +
                      "' speaks GTP, which cannot set up a position: games with it must "
                      "start from the standard position (random openings are fine)");
  }
  if (!process_) process_ = std::make_unique<EngineProcess>(command_);
  const double t = options_.move_timeout_seconds;
  Command("boardsize " + std::to_string(size), /*required=*/true, t);
  Command("clear_board", /*required=*/true, t);
  if (time) {
    Command("time_settings " + WholeSeconds(time->main_seconds) + " 0 0", /*required=*/false, t);
  }
  synced_ = 0;
}

PlayedMove GtpPlayer::GenMove(const core::Game& game, const MoveClock& clock) {
  const double timeout =
      clock.timed ? clock.seconds_left + options_.grace_seconds : options_.move_timeout_seconds;
  const int size = game.rules().size;
  for (; synced_ < game.moves().size(); ++synced_) {
    const core::Square move = game.moves()[synced_];
    const std::string color(core::ColorName(game.position_at(synced_).side_to_move()));
    Command("play " + color + " " + core::SquareName(move, size), move != core::kPass, timeout);
  }
  const std::string color(core::ColorName(game.position().side_to_move()));
  if (clock.timed) {
    Command("time_left " + color + " " + WholeSeconds(clock.seconds_left) + " 0", false, timeout);
  }
  const std::string request = "genmove " + color;
  const std::string reply = Lower(*Command(request, /*required=*/true, timeout));
  if (reply == "resign") throw PlayerError("engine '" + options_.name + "' resigned");
  synced_ = game.moves().size() + 1;  // the engine has played its own move
  return {ParseEngineMove(reply, game, options_.name, request), std::nullopt};
}

void GtpPlayer::EndGame(const core::Game&) {
  if (!process_) return;
  try {
    Command("quit", /*required=*/false, 1.0);
  } catch (const PlayerError&) {
    // A dead or slow engine is killed below.
  }
  process_.reset();
}

// ------------------------------------------------------------------------- NBoard

NBoardPlayer::NBoardPlayer(const std::string& command, EngineOptions options)
    : command_(command), options_(std::move(options)) {
  if (options_.name.empty()) options_.name = command;
}

void NBoardPlayer::Start() {
  process_ = std::make_unique<EngineProcess>(command_);
  process_->WriteLine("nboard 2");
  process_->WriteLine("set depth " + std::to_string(options_.nboard_depth));
  Ping(options_.move_timeout_seconds);
}

void NBoardPlayer::Ping(double timeout_seconds) {
  const std::string expected = "pong " + std::to_string(++ping_);
  process_->WriteLine("ping " + std::to_string(ping_));
  const EngineProcess::Deadline deadline{std::chrono::duration<double>(timeout_seconds)};
  for (;;) {
    const std::string line = Trim(process_->ReadLine(deadline));
    if (line == expected) return;
    // Anything else before the pong is informational or an answer to earlier work.
  }
}

void NBoardPlayer::NewGame(const core::Game&, const std::optional<TimeControl>&) {
  if (!process_) Start();
}

PlayedMove NBoardPlayer::GenMove(const core::Game& game, const MoveClock& clock) {
  const double timeout =
      clock.timed ? clock.seconds_left + options_.grace_seconds : options_.move_timeout_seconds;
  core::GgfRecord record = core::GgfRecord::FromGame(game);
  process_->WriteLine("set game " + core::WriteGgf(record));
  Ping(timeout);
  process_->WriteLine("go");
  const EngineProcess::Deadline deadline{std::chrono::duration<double>(timeout)};
  for (;;) {
    const std::string line = Trim(process_->ReadLine(deadline));
    if (line.empty()) continue;
    if (StartsWith(line, "===")) {
      std::string rest = Trim(line.substr(3));
      for (char& c : rest) c = c == '/' ? ' ' : c;
      const std::vector<std::string> words = SplitWords(rest);
      if (words.empty()) {
        throw PlayerError("engine '" + options_.name + "' answered 'go' with an empty move");
      }
      PlayedMove move{ParseEngineMove(words[0], game, options_.name, "go"), std::nullopt};
      if (words.size() > 1) {
        char* end = nullptr;
        const double eval = std::strtod(words[1].c_str(), &end);
        // Only a number of discs is an evaluation ("nan" or 1e999 are not).
        if (end == words[1].c_str() + words[1].size() && std::abs(eval) <= 1000) move.eval = eval;
      }
      return move;
    }
    static const char* const kInformational[] = {"status", "nodestats", "search", "set ",
                                                 "pong",   "hint",      "learn"};
    bool known = false;
    for (const char* prefix : kInformational) known = known || StartsWith(line, prefix);
    if (!known) {
      throw PlayerError("engine '" + options_.name + "' answered 'go' with garbage: '" +
                        line.substr(0, 200) + "'");
    }
  }
}

void NBoardPlayer::EndGame(const core::Game&) { process_.reset(); }

}  // namespace othello::play
