#include "play/game_session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/notation.h"
#include "play/root_solve.h"

namespace othello::play {

std::string Strength::Describe() const {
  char text[96];
  if (seconds > 0) {
    std::snprintf(text, sizeof text, "%llu playouts, %.2f s per move%s",
                  static_cast<unsigned long long>(visits), seconds, temperature > 0 ? ", varied" : "");
  } else {
    std::snprintf(text, sizeof text, "%llu playouts per move%s",
                  static_cast<unsigned long long>(visits), temperature > 0 ? ", varied" : "");
  }
  return text;
}

Strength StrengthForLevel(int level) {
  static const std::uint64_t kVisits[] = {1, 1, 4, 16, 32, 64, 128, 256, 512, 1024};
  if (!kLevel.Contains(level)) {
    throw core::InputError("level " + std::to_string(level) + " is out of range (" +
                           std::to_string(kLevel.low) + "-" + std::to_string(kLevel.high) + ")");
  }
  Strength s;
  s.visits = kVisits[level - 1];
  // The lowest levels choose among the moves the network likes, not always the best.
  s.temperature = level == 1 ? 1.0f : level <= 3 ? 0.5f : 0.0f;
  return s;
}

std::string FormatDiscs(double discs) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f", discs);
  return text;
}

MoveEvaluation SearchedMove(const mcts::SearchResult& result, core::Square move, int squares) {
  const double half_board = squares / 2.0;
  MoveEvaluation m;
  m.move = move;
  m.win_probability = result.win + 0.5 * result.draw;
  m.discs = result.has_score ? result.score : result.q * half_board;
  for (const mcts::SearchResult::Child& child : result.children) {
    if (child.move != move) continue;
    m.visits = child.visits;
    m.win_probability = (child.q + 1) / 2;
    m.discs = result.has_score ? child.score : child.q * half_board;
  }
  if (result.exact && move == result.move) {
    m.exact = true;
    m.discs = result.exact_score;
    m.win_probability = m.discs > 0 ? 1.0 : m.discs < 0 ? 0.0 : 0.5;
  }
  return m;
}

GameSession::GameSession(mcts::Evaluator& evaluator, const core::Rules& rules, Strength strength,
                         std::uint64_t seed, std::optional<core::Rules> trained)
    : evaluator_(evaluator),
      trained_(std::move(trained)),
      game_(rules, seed),
      strength_(strength),
      seed_(seed),
      rng_(seed) {
  if (auto error = Allowed(rules)) throw core::InputError(error->message);
}

std::optional<core::Error> GameSession::Allowed(const core::Rules& rules) const {
  if (auto error = core::ValidateRules(rules)) return error;
  if (trained_) {
    if (auto mismatch = core::RulesMismatch(*trained_, rules)) return core::Error{*mismatch};
  }
  return std::nullopt;
}

std::optional<core::Error> GameSession::NewGame(const core::Rules& rules) {
  if (auto error = Allowed(rules)) return error;
  game_ = core::Game(rules, ++seed_);
  redo_.clear();
  tree_.Reset();
  return std::nullopt;
}

std::optional<core::Error> GameSession::SetGame(const core::GgfRecord& record) {
  if (auto error = Allowed(record.rules)) return error;
  game_ = record.ToGame();
  redo_.clear();
  tree_.Reset();
  return std::nullopt;
}

std::optional<core::Error> GameSession::Play(core::Square move) {
  if (auto error = game_.Play(move)) return error;
  redo_.clear();
  return std::nullopt;
}

bool GameSession::Undo() {
  if (game_.moves().empty()) return false;
  redo_.push_back(game_.moves().back());
  game_.Undo();
  // A forced pass before the move goes too: the side to move then has a move again.
  while (!game_.moves().empty() && game_.moves().back() == core::kPass) {
    redo_.push_back(core::kPass);
    game_.Undo();
  }
  return true;
}

bool GameSession::Redo() {
  if (redo_.empty()) return false;
  core::Square move;
  do {
    move = redo_.back();
    redo_.pop_back();
    game_.Play(move);
  } while (move == core::kPass && !redo_.empty());
  return true;
}

std::vector<core::Square> GameSession::Line() const {
  std::vector<core::Square> line = game_.moves();
  line.insert(line.end(), redo_.rbegin(), redo_.rend());
  return line;
}

core::Game GameSession::LineGame() const {
  core::Game game(game_.rules(), game_.start());
  for (core::Square sq : Line()) game.Play(sq);
  return game;
}

bool GameSession::GoTo(std::size_t ply) {
  if (ply > game_.moves().size() + redo_.size()) return false;
  while (game_.moves().size() > ply && Undo()) {
  }
  while (game_.moves().size() < ply && Redo()) {
  }
  return true;
}

bool GameSession::SkipForcedPass() {
  if (!game_.position().MustPass()) return false;
  if (!redo_.empty() && redo_.back() == core::kPass) {
    redo_.pop_back();
  } else {
    redo_.clear();  // (a line goes on from a forced pass only with the pass)
  }
  game_.Play(core::kPass);
  return true;
}

core::Square GameSession::SampleMove(const mcts::SearchResult& result) {
  // Weights (visits + prior * playouts)^(1/T): with few playouts, mostly the policy.
  const double total = std::max<double>(1, result.playouts);
  std::vector<double> weight;
  double sum = 0;
  for (const auto& child : result.children) {
    weight.push_back(std::pow(child.visits + child.prior * total, 1.0 / strength_.temperature));
    sum += weight.back();
  }
  double r = rng_.Uniform() * sum;
  for (std::size_t i = 0; i < weight.size(); ++i) {
    if ((r -= weight[i]) < 0) return result.children[i].move;
  }
  return result.children.back().move;
}

Analysis GameSession::Analyze(double extra_seconds) {
  const core::Position& position = game_.position();
  mcts::Tree& tree = tree_.Sync(game_, TreeNodesFor(strength_.visits, strength_.seconds));
  mcts::SearchLimits limits;
  limits.playouts = strength_.visits;
  limits.seconds = strength_.seconds;
  if (extra_seconds > 0) {
    limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, extra_seconds) : extra_seconds;
  }
  if (limits.playouts == 0 && limits.seconds == 0) limits.playouts = kMoveVisits.value;
  mcts::SearchParams params = PlaySearch(limits.playouts, limits.seconds).params;
  params.rules = game_.rules();
  const int ply = static_cast<int>(game_.moves().size());
  mcts::TreeSearch search(tree, evaluator_, params, seed_ * 7919 + ply);
  const int root_empties =
      PlaysRawPolicy(limits.playouts, limits.seconds) ? 0 : strength_.root_solve_empties;
  if (SolvesAtRoot(position, root_empties) && !root_solver_) {
    root_solver_ = std::make_unique<core::Solver>(kRootSolveTableMegabytes);
  }
  const mcts::SearchResult result =
      root_solver_ ? SolveOrSearch(search, evaluator_, limits, ply, root_empties,
                                   SolverFor(*root_solver_))
                   : mcts::RunSearch(search, evaluator_, limits, ply);
  Analysis analysis;
  analysis.playouts = result.playouts;
  analysis.seconds = result.seconds;
  analysis.pv = result.pv;
  analysis.best = SearchedMove(result, result.move, position.squares());
  for (const auto& child : result.children) {
    analysis.moves.push_back(SearchedMove(result, child.move, position.squares()));
  }
  if (strength_.temperature > 0 && !result.proven && !result.children.empty()) {
    analysis.best.move = SampleMove(result);
    for (const MoveEvaluation& m : analysis.moves) {
      if (m.move == analysis.best.move) analysis.best = m;
    }
  }
  std::stable_sort(analysis.moves.begin(), analysis.moves.end(),
                   [](const MoveEvaluation& a, const MoveEvaluation& b) {
                     return a.visits != b.visits ? a.visits > b.visits
                                                 : a.win_probability > b.win_probability;
                   });
  return analysis;
}

Analysis GameSession::PlayAi(double extra_seconds) {
  Analysis analysis = Analyze(extra_seconds);
  Play(analysis.best.move);
  return analysis;
}

// ------------------------------------------------------------- a person against the AI

std::string AutoPly::PassNote() const {
  return std::string(core::ColorName(color)) + " has no move and passes";
}

void GameSession::set_human(core::Color color) {
  human_ = color;
  ai_[static_cast<int>(color)] = false;
  ai_[static_cast<int>(core::Other(color))] = true;
}

void GameSession::set_players(bool black_ai, bool white_ai) {
  ai_[static_cast<int>(core::Color::kBlack)] = black_ai;
  ai_[static_cast<int>(core::Color::kWhite)] = white_ai;
  if (black_ai != white_ai) human_ = black_ai ? core::Color::kWhite : core::Color::kBlack;
}

bool GameSession::IsHumanTurn() const {
  return !game_.IsOver() && !IsAi(game_.position().side_to_move());
}

bool GameSession::IsAiTurn() const {
  return !game_.IsOver() && IsAi(game_.position().side_to_move());
}

std::optional<core::Error> GameSession::HumanCannotMove() const {
  if (game_.IsOver()) return core::Error{"the game is over"};
  if (!IsHumanTurn()) return core::Error{"it is not your turn"};
  return std::nullopt;
}

std::optional<core::Error> GameSession::PlayHuman(core::Square move) {
  if (auto error = HumanCannotMove()) return error;
  return Play(move);
}

void GameSession::PlayAiTurns(const std::function<void(const AutoPly&)>& observer) {
  while (!game_.IsOver()) {
    PlayForcedPasses(observer);
    if (!IsAiTurn()) return;
    AutoPly ply;
    ply.color = game_.position().side_to_move();
    ply.analysis = PlayAi();
    observer(ply);
  }
}

void GameSession::PlayForcedPasses(const std::function<void(const AutoPly&)>& observer) {
  while (game_.position().MustPass()) {
    AutoPly ply;
    ply.color = game_.position().side_to_move();
    ply.pass = true;
    Play(core::kPass);
    observer(ply);
  }
}

bool GameSession::UndoToHumanTurn() {
  if (!Undo()) return false;
  const bool any_human = !IsAi(core::Color::kBlack) || !IsAi(core::Color::kWhite);
  while (any_human && IsAi(game_.position().side_to_move()) && Undo()) {
  }
  return true;
}

bool GameSession::RedoToHumanTurn() {
  if (!Redo()) return false;
  const bool any_human = !IsAi(core::Color::kBlack) || !IsAi(core::Color::kWhite);
  while (any_human && IsAi(game_.position().side_to_move()) && !game_.IsOver() && Redo()) {
  }
  return true;
}

Analysis GameSession::Hints(std::uint64_t playouts) {
  const Strength saved = strength_;
  strength_.visits = std::max<std::uint64_t>(1, playouts);
  strength_.seconds = 0;
  strength_.temperature = 0;
  Analysis analysis = Analyze();
  strength_ = saved;
  return analysis;
}

std::optional<std::string> GameSession::HumanResult() const {
  if (!game_.IsOver()) return std::nullopt;
  const bool against_ai = IsAi(core::Color::kBlack) != IsAi(core::Color::kWhite);
  const int margin = game_.FinalOutcome().MarginFor(against_ai ? human_ : core::Color::kBlack);
  if (margin == 0) return std::string("Draw");
  const std::string by = " by " + std::to_string(std::abs(margin));
  if (against_ai) return (margin > 0 ? "You win" : "The AI wins") + by;
  return (margin > 0 ? "Black wins" : "White wins") + by;
}

}  // namespace othello::play
