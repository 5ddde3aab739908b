#include "play/match.h"

#include <chrono>
#include <ctime>

#include "core/notation.h"
#include "core/rules.h"

namespace othello::play {

namespace {

std::string Today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S GMT", &tm);
  return buf;
}

// GGF text may not hold ']' unescaped; keep reasons on one line.
std::string GgfText(std::string text) {
  for (char& c : text) c = c == ']' ? ')' : c == '[' ? '(' : c == '\n' ? ' ' : c;
  return text;
}

}  // namespace

MatchResult PlayMatch(Player& black, Player& white, const MatchSetup& setup) {
  const core::Position start =
      setup.start ? *setup.start : core::StartPosition(setup.rules, setup.seed);
  core::Game game(setup.rules, start);
  for (const core::Square move : setup.opening) {
    if (auto error = game.Play(move)) throw core::InputError("opening: " + error->message);
  }
  MatchResult out;
  Player* players[2] = {&black, &white};
  double bank[2] = {0, 0};
  std::optional<core::Color> loser;
  auto end_early = [&](core::Color side, MatchEnd end, const std::string& why) {
    loser = side;
    out.end = end;
    out.reason = std::string(core::ColorName(side)) + " (" + players[int(side)]->name() + ") " + why;
  };
  for (int side = 0; side < 2 && !loser; ++side) {
    bank[side] = setup.time ? setup.time->main_seconds : 0;
    try {
      players[side]->NewGame(game, setup.time);
    } catch (const PlayerError& e) {
      end_early(core::Color(side), MatchEnd::kForfeit, std::string("forfeits: ") + e.what());
    }
  }
  std::vector<core::GgfMove> moves;
  for (const core::Square sq : game.moves()) moves.push_back({sq, std::nullopt, std::nullopt});
  while (!loser && !game.IsOver()) {
    const core::Position& position = game.position();
    if (position.MustPass()) {
      game.Play(core::kPass);
      moves.push_back({core::kPass, std::nullopt, std::nullopt});
      continue;
    }
    const core::Color side = position.side_to_move();
    const int s = static_cast<int>(side);
    MoveClock clock;
    clock.timed = setup.time.has_value();
    clock.seconds_left = bank[s];
    clock.increment = setup.time ? setup.time->increment_seconds : 0;
    const auto t0 = std::chrono::steady_clock::now();
    PlayedMove move;
    try {
      move = players[s]->GenMove(game, clock);
    } catch (const PlayerError& e) {
      end_early(side, MatchEnd::kForfeit, std::string("forfeits: ") + e.what());
      break;
    }
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.seconds[s] += used;
    if (clock.timed) {
      bank[s] -= used;
      if (bank[s] < 0) {
        end_early(side, MatchEnd::kTime, "lost on time");
        break;
      }
      bank[s] += clock.increment;
    }
    if (auto error = game.Play(move.square)) {
      end_early(side, MatchEnd::kForfeit, "forfeits: " + error->message);
      break;
    }
    moves.push_back({move.square, move.eval, used});
  }
  for (Player* p : players) {
    try {
      p->EndGame(game);
    } catch (const PlayerError&) {
      // The game is over; a failing shutdown changes nothing.
    }
  }

  core::GgfRecord& record = out.record;
  record = core::GgfRecord::FromGame(game);
  record.moves = moves;
  record.black_name = black.name();
  record.white_name = white.name();
  record.place = setup.place;
  record.date = Today();
  if (setup.time) record.time_control = setup.time->ToString();
  if (loser) {
    const int board = setup.rules.size * setup.rules.size;
    out.black_margin = *loser == core::Color::kBlack ? -board : board;
    record.result = out.black_margin;
    record.result_flag = out.end == MatchEnd::kTime ? 't' : 'r';
    record.comment = "C[" + GgfText(out.reason) + "]";
  } else {
    out.black_margin = game.FinalOutcome().black_margin;
    record.result = out.black_margin;
  }
  return out;
}

}  // namespace othello::play
