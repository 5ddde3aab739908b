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

// One refereed game: the steps of PlayMatch.
class Referee {
 public:
  Referee(Player& black, Player& white, const MatchSetup& setup)
      : setup_(setup), players_{&black, &white}, game_(setup.rules, Start(setup)) {}

  MatchResult Play() {
    PlayOpening();
    StartPlayers();
    while (!loser_ && !game_.IsOver()) PlayPly();
    EndPlayers();
    WriteRecord();
    return std::move(out_);
  }

 private:
  static core::Position Start(const MatchSetup& setup) {
    return setup.start ? *setup.start : core::StartPosition(setup.rules, setup.seed);
  }

  void PlayOpening() {
    for (const core::Square move : setup_.opening) {
      if (auto error = game_.Play(move)) throw core::InputError("opening: " + error->message);
    }
    for (const core::Square sq : game_.moves()) moves_.push_back({sq, std::nullopt, std::nullopt});
  }

  void StartPlayers() {
    for (int side = 0; side < 2 && !loser_; ++side) {
      bank_[side] = setup_.time ? setup_.time->main_seconds : 0;
      try {
        players_[side]->NewGame(game_, setup_.time);
      } catch (const PlayerError& e) {
        EndEarly(core::Color(side), MatchEnd::kForfeit, std::string("forfeits: ") + e.what());
      }
    }
  }

  // A forced pass, or the side to move's move, timed against its bank and checked.
  void PlayPly() {
    const core::Position& position = game_.position();
    if (position.MustPass()) {
      game_.Play(core::kPass);
      moves_.push_back({core::kPass, std::nullopt, std::nullopt});
      return;
    }
    const core::Color side = position.side_to_move();
    const int s = static_cast<int>(side);
    MoveClock clock;
    clock.timed = setup_.time.has_value();
    clock.seconds_left = bank_[s];
    clock.increment = setup_.time ? setup_.time->increment_seconds : 0;
    const auto t0 = std::chrono::steady_clock::now();
    PlayedMove move;
    try {
      move = players_[s]->GenMove(game_, clock);
    } catch (const PlayerError& e) {
      return EndEarly(side, MatchEnd::kForfeit, std::string("forfeits: ") + e.what());
    }
    const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out_.seconds[s] += used;
    if (clock.timed) {
      bank_[s] -= used;
      if (bank_[s] < 0) return EndEarly(side, MatchEnd::kTime, "lost on time");
      bank_[s] += clock.increment;
    }
    if (auto error = game_.Play(move.square)) {
      return EndEarly(side, MatchEnd::kForfeit, "forfeits: " + error->message);
    }
    moves_.push_back({move.square, move.eval, used});
  }

  void EndEarly(core::Color side, MatchEnd end, const std::string& why) {
    loser_ = side;
    out_.end = end;
    out_.reason =
        std::string(core::ColorName(side)) + " (" + players_[int(side)]->name() + ") " + why;
  }

  void EndPlayers() {
    for (Player* p : players_) {
      try {
        p->EndGame(game_);
      } catch (const PlayerError&) {
        // The game is over; a failing shutdown changes nothing.
      }
    }
  }

  // The GGF record and the result (the whole board to the winner of a game ended early).
  void WriteRecord() {
    core::GgfRecord& record = out_.record;
    record = core::GgfRecord::FromGame(game_);
    record.moves = moves_;
    record.black_name = players_[0]->name();
    record.white_name = players_[1]->name();
    record.place = setup_.place;
    record.date = Today();
    if (setup_.time) record.time_control = setup_.time->ToString();
    if (loser_) {
      const int board = setup_.rules.size * setup_.rules.size;
      out_.black_margin = *loser_ == core::Color::kBlack ? -board : board;
      record.result = out_.black_margin;
      record.result_flag = out_.end == MatchEnd::kTime ? 't' : 'r';
      record.comment = "C[" + GgfText(out_.reason) + "]";
    } else {
      out_.black_margin = game_.FinalOutcome().black_margin;
      record.result = out_.black_margin;
    }
  }

  const MatchSetup& setup_;
  Player* players_[2];
  core::Game game_;
  std::vector<core::GgfMove> moves_;
  double bank_[2] = {0, 0};
  std::optional<core::Color> loser_;
  MatchResult out_;
};

}  // namespace

MatchResult PlayMatch(Player& black, Player& white, const MatchSetup& setup) {
  return Referee(black, white, setup).Play();
}

}  // namespace othello::play
