#include "training/self_play.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "core/hash.h"
#include "core/solver.h"
#include "mcts/eval_cache.h"
#include "nn/eigen_net.h"
#include "nn/export.h"

namespace othello::training {
namespace {

std::uint16_t Prob(float p) {
  return static_cast<std::uint16_t>(std::lround(std::clamp(p, 0.0f, 1.0f) * 65535));
}

}  // namespace

// A worker thread's wall time split into phases: Switch() charges the time since the
// last switch to the phase that was running, less the solver's time in it (from
// core::SolveExactSeconds, which costs no clock read). One clock read per switch;
// the totals go to SelfPlayStats every 10 ms or so (relaxed atomics) and at the end.
class SelfPlayWorker::PhaseClock {
 public:
  enum Phase { kTree, kEvaluator, kSolver, kOther, kPhases };
  using Clock = std::chrono::steady_clock;

  explicit PhaseClock(SelfPlayStats& stats)
      : stats_(stats), last_(Clock::now()), flushed_(last_), solver_(core::SolveExactSeconds()) {}
  ~PhaseClock() {
    Switch(kOther);
    Flush();
  }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

  // Starts `next`; returns the phase that ran until now.
  Phase Switch(Phase next) {
    const Clock::time_point now = Clock::now();
    const double solver = core::SolveExactSeconds();
    const auto solved = static_cast<std::int64_t>((solver - solver_) * 1e9);
    const std::int64_t elapsed =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count();
    ns_[phase_] += std::max<std::int64_t>(0, elapsed - solved);
    ns_[kSolver] += std::min(solved, elapsed);
    solver_ = solver;
    last_ = now;
    const Phase previous = phase_;
    phase_ = next;
    return previous;
  }
  // Counts an evaluator call of `positions`, a search round's while in_round.
  void CountEvaluation(int positions) {
    ++calls_[in_round];
    positions_[in_round] += positions;
  }
  bool in_round = false;  // set by Run around RunSearchRound
  // Adds the totals to the stats when 10 ms have passed since the last time.
  void MaybeFlush() {
    if (last_ - flushed_ >= std::chrono::milliseconds(10)) Flush();
  }

 private:
  void Flush() {
    std::atomic<std::uint64_t>* totals[kPhases] = {&stats_.tree_ns, &stats_.evaluator_ns,
                                                   &stats_.solver_ns, &stats_.other_ns};
    for (int p = 0; p < kPhases; ++p) {
      totals[p]->fetch_add(static_cast<std::uint64_t>(ns_[p]), std::memory_order_relaxed);
      ns_[p] = 0;
    }
    stats_.evaluator_calls.fetch_add(calls_[0] + calls_[1], std::memory_order_relaxed);
    stats_.evaluator_positions.fetch_add(positions_[0] + positions_[1], std::memory_order_relaxed);
    stats_.round_calls.fetch_add(calls_[1], std::memory_order_relaxed);
    stats_.round_positions.fetch_add(positions_[1], std::memory_order_relaxed);
    calls_[0] = calls_[1] = positions_[0] = positions_[1] = 0;
    flushed_ = last_;
  }

  SelfPlayStats& stats_;
  Phase phase_ = kOther;
  Clock::time_point last_, flushed_;
  double solver_;  // core::SolveExactSeconds() at the last switch
  std::int64_t ns_[kPhases] = {};
  std::uint64_t calls_[2] = {}, positions_[2] = {};  // [in_round]
};

// The model as the worker's searches see it: its time is the clock's evaluator phase.
// Used by the worker's thread only (a Submit and its Wait follow each other there).
class SelfPlayWorker::TimedEvaluator : public mcts::Evaluator {
 public:
  TimedEvaluator(std::shared_ptr<mcts::Evaluator> model, PhaseClock& clock)
      : model_(std::move(model)), clock_(clock) {}
  void Submit(mcts::EvalBatch& batch) override {
    resume_ = clock_.Switch(PhaseClock::kEvaluator);
    clock_.CountEvaluation(batch.size());
    model_->Submit(batch);
  }
  void Wait(mcts::EvalBatch& batch) override {
    model_->Wait(batch);
    clock_.Switch(resume_);
  }
  const std::shared_ptr<mcts::Evaluator>& model() const { return model_; }

 private:
  const std::shared_ptr<mcts::Evaluator> model_;
  PhaseClock& clock_;
  PhaseClock::Phase resume_ = PhaseClock::kTree;
};

void ModelSource::Publish(nn::OthelloNet& net, std::int64_t step) {
  Publish(nn::MakeEvaluator(net, rules_, step, options_), step);
}

void ModelSource::Publish(std::shared_ptr<mcts::Evaluator> evaluator, std::int64_t step) {
  core::MutexLock lock(mutex_);
  current_ = std::move(evaluator);
  step_ = step;
}

std::shared_ptr<mcts::Evaluator> ModelSource::Current(std::int64_t* step) const {
  core::MutexLock lock(mutex_);
  if (step) *step = step_;
  return current_;
}

core::Outcome GameResult(const core::Position& final_position, const core::Rules& rules,
                         std::optional<core::Color> resigned) {
  core::Outcome outcome = core::Score(final_position, rules);
  if (resigned) {
    // The resigning side loses; the margin keeps the board's size but not its sign.
    const int size = std::max(1, std::abs(outcome.black_margin));
    outcome.black_margin = *resigned == core::Color::kBlack ? -size : size;
  }
  return outcome;
}

float PolicySurprise(const mcts::SearchResult& result, int board_size) {
  if (result.policy_target.empty()) return 0.0f;
  double kl = 0;
  for (const mcts::SearchResult::Child& c : result.children) {
    const double t = result.policy_target[mcts::PolicyIndex(c.move, board_size)];
    if (t > 0) kl += t * std::log(t / std::max(static_cast<double>(c.prior), 1e-6));
  }
  return static_cast<float>(std::max(0.0, kl));
}

std::vector<Sample> WeightBySurprise(const GameRecords& game, float share, core::Rng& rng) {
  const std::size_t n = game.samples.size();
  double total = 0, full = 0;  // over the records of full searches
  for (std::size_t i = 0; i < n; ++i) {
    if (!game.samples[i].has_policy) continue;
    total += game.surprise[i];
    full += 1;
  }
  if (share <= 0 || total <= 0) return game.samples;
  std::vector<Sample> out;
  out.reserve(n + n / 4);
  for (std::size_t i = 0; i < n; ++i) {
    const double weight = !game.samples[i].has_policy
                              ? 1.0
                              : (1 - share) + share * full * game.surprise[i] / total;
    const double whole = std::floor(weight);
    const int copies = static_cast<int>(whole) + (rng.Uniform() < weight - whole ? 1 : 0);
    for (int c = 0; c < copies; ++c) out.push_back(game.samples[i]);
  }
  return out;
}

void FillShortTermTargets(GameRecords& game, const core::Outcome& outcome) {
  const std::size_t n = game.samples.size();
  for (int h = 0; h < 2; ++h) {
    const float keep = 1.0f - 1.0f / kShortTermHorizons[h];  // the weight of the later values
    float later = 0;  // the target of record i + 1, for its mover
    for (std::size_t i = n; i-- > 0;) {
      Sample& s = game.samples[i];
      const core::Color mover = game.movers[i];
      const int result = s.has_exact ? s.exact_score : outcome.MarginFor(mover);
      const float sign_of_result = result > 0 ? 1.0f : result < 0 ? -1.0f : 0.0f;
      float target = sign_of_result;  // an exact value, or what follows the last record
      if (!s.has_exact) {
        const float search = game.search_wdl[3 * i] - game.search_wdl[3 * i + 2];
        const float next = i + 1 == n                      ? sign_of_result
                           : game.movers[i + 1] != mover ? -later
                                                         : later;
        target = (1 - keep) * search + keep * next;
      }
      later = target;
      s.short_term[h] = static_cast<std::int16_t>(std::lround(std::clamp(target, -1.0f, 1.0f) * 32767));
      s.has_short_term = 1;
    }
  }
}

void FillTargets(GameRecords& game, const core::Position& final_position,
                 const core::Outcome& outcome, float value_mix, float value_lambda,
                 bool exact_outcome) {
  const int area = final_position.squares();
  const std::size_t n = game.samples.size();
  // Each record's result from its mover's side: its exact score, or the game's; with
  // exact_outcome, the next exact score after it (turned to its side) where there is one,
  // so that the moves played after a solved position do not reach the earlier targets.
  std::vector<int> result(n);
  std::optional<std::pair<int, core::Color>> anchor;  // the next exact score, its mover
  for (std::size_t i = n; i-- > 0;) {
    const Sample& s = game.samples[i];
    const core::Color mover = game.movers[i];
    if (s.has_exact) {
      result[i] = s.exact_score;
      anchor = {s.exact_score, mover};
    } else if (exact_outcome && anchor) {
      result[i] = anchor->second == mover ? anchor->first : -anchor->first;
    } else {
      result[i] = outcome.MarginFor(mover);
    }
  }
  // The value targets (win, draw, loss for each mover), from the last record back: the
  // result (an exact score where the solver knew it), or with value_lambda below 1 the
  // lambda-return (1 - lambda) * next search value + lambda * next target, both turned
  // to this mover's side. The last record and exact ones keep their result.
  std::vector<std::array<float, 3>> target(n);
  for (std::size_t i = n; i-- > 0;) {
    const Sample& s = game.samples[i];
    const int r = result[i];
    target[i] = {r > 0 ? 1.0f : 0.0f, r == 0 ? 1.0f : 0.0f, r < 0 ? 1.0f : 0.0f};
    if (value_lambda >= 1 || s.has_exact || i + 1 == n) continue;
    const bool flip = game.movers[i + 1] != game.movers[i];
    const float* next_search = &game.search_wdl[3 * (i + 1)];
    for (int k = 0; k < 3; ++k) {
      const int from = flip ? 2 - k : k;  // a win of the opponent is a loss here
      target[i][k] = (1 - value_lambda) * next_search[from] + value_lambda * target[i + 1][from];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    Sample& s = game.samples[i];
    const core::Color mover = game.movers[i];
    // The disc target: the game's final margin, or with exact_outcome the record's result.
    const int margin = exact_outcome ? result[i] : outcome.MarginFor(mover);
    s.final_margin = static_cast<std::int8_t>(margin);
    const float w = target[i][0], d = target[i][1];  // the loss share is what is left
    const float m = s.has_exact ? 0.0f : value_mix;  // an exact value needs no mixing
    s.wdl[0] = Prob((1 - m) * w + m * game.search_wdl[3 * i]);
    s.wdl[1] = Prob((1 - m) * d + m * game.search_wdl[3 * i + 1]);
    s.wdl[1] = std::min<std::uint16_t>(s.wdl[1], 65535 - s.wdl[0]);
    s.wdl[2] = static_cast<std::uint16_t>(65535 - s.wdl[0] - s.wdl[1]);
    const core::Bitboard own = final_position.discs(mover);
    const core::Bitboard theirs = final_position.discs(core::Other(mover));
    for (int sq = 0; sq < area; ++sq) {
      s.ownership[sq] = (own & core::Bit(sq)) ? 1 : (theirs & core::Bit(sq)) ? -1 : 0;
    }
    // The opponent's reply: the next record's policy target, when the opponent moves next
    // (not after its forced pass) and searched fully.
    const bool reply = i + 1 < n && game.movers[i + 1] != mover && game.samples[i + 1].has_policy;
    s.has_reply = reply ? 1 : 0;
    if (reply) {
      s.reply_policy = game.samples[i + 1].policy;
    } else {
      s.reply_policy.fill(0);
    }
  }
  FillShortTermTargets(game, outcome);
}

Sample ExploredSample(const mcts::ExploredNode& node) {
  Sample s;
  s.SetPosition(node.position);
  s.has_policy = 1;
  for (std::size_t a = 0; a < node.policy.size(); ++a) s.policy[a] = Prob(node.policy[a]);
  const int area = node.position.squares();
  if (node.exact) {
    s.has_exact = 1;
    s.exact_score = static_cast<std::int8_t>(node.exact_score);
    const int r = node.exact_score;
    s.wdl[0] = r > 0 ? 65535 : 0;
    s.wdl[1] = r == 0 ? 65535 : 0;
    s.final_margin = static_cast<std::int8_t>(r);
  } else {
    s.wdl[0] = Prob(node.win);
    s.wdl[1] = std::min<std::uint16_t>(Prob(node.draw), 65535 - s.wdl[0]);
    s.final_margin = static_cast<std::int8_t>(
        std::clamp<long>(std::lround(node.score), -area, area));
  }
  s.wdl[2] = static_cast<std::uint16_t>(65535 - s.wdl[0] - s.wdl[1]);
  return s;
}

void FillExploredTargets(GameRecords& game, const core::Position& final_position,
                         const core::Outcome& outcome, bool use_result) {
  const int area = final_position.squares();
  for (std::size_t i = 0; i < game.explored.size(); ++i) {
    Sample& s = game.explored[i];
    const core::Color mover = game.explored_movers[i];
    if (use_result && !s.has_exact) {
      const int r = outcome.MarginFor(mover);
      s.wdl[0] = r > 0 ? 65535 : 0;
      s.wdl[1] = r == 0 ? 65535 : 0;
      s.wdl[2] = static_cast<std::uint16_t>(65535 - s.wdl[0] - s.wdl[1]);
      s.final_margin = static_cast<std::int8_t>(r);
    }
    const core::Bitboard own = final_position.discs(mover);
    const core::Bitboard theirs = final_position.discs(core::Other(mover));
    for (int sq = 0; sq < area; ++sq) {
      s.ownership[sq] = (own & core::Bit(sq)) ? 1 : (theirs & core::Bit(sq)) ? -1 : 0;
    }
  }
}

struct SelfPlayWorker::Game {
  std::unique_ptr<mcts::Tree> tree;
  std::unique_ptr<mcts::TreeSearch> search;
  std::shared_ptr<mcts::Evaluator> evaluator;  // the model this game's tree was built with
  GameRecords records;
  int ply = 0;
  bool resign_check = false;                  // play on to check resignations
  int low_value_moves[2] = {0, 0};            // per colour, in a row
  std::optional<core::Color> would_resign;    // check games: who would have resigned
};

SelfPlayWorker::SelfPlayWorker(const TrainingConfig& config, ModelSource& models,
                               ReplayBuffer& buffer, SelfPlayStats& stats, std::uint64_t seed)
    : SelfPlayWorker(
          config, models, [&buffer](const std::vector<Sample>& game) { buffer.Add(game); },
          stats, seed) {}

SelfPlayWorker::SelfPlayWorker(const TrainingConfig& config, ModelSource& models,
                               SampleSink sink, SelfPlayStats& stats, std::uint64_t seed)
    : config_(config), models_(models), sink_(std::move(sink)), stats_(stats), rng_(seed) {}

SelfPlayWorker::~SelfPlayWorker() = default;

std::shared_ptr<mcts::Evaluator> SelfPlayWorker::Timed(
    const std::shared_ptr<mcts::Evaluator>& model) {
  if (!timed_ || timed_->model() != model) {
    timed_ = std::make_shared<TimedEvaluator>(model, *clock_);
  }
  return timed_;
}

void SelfPlayWorker::StartGame(Game& game) {
  const core::Position start = core::StartPosition(config_.rules, rng_.Next());
  game.evaluator = Timed(models_.Current());
  if (!game.tree) {
    game.tree = std::make_unique<mcts::Tree>(start, config_.tree_nodes);
  } else {
    game.tree->Reset(start);
  }
  game.search = std::make_unique<mcts::TreeSearch>(*game.tree, *game.evaluator, config_.search,
                                                   rng_.Next());
  game.records.samples.clear();
  game.records.movers.clear();
  game.records.search_wdl.clear();
  game.records.surprise.clear();
  game.records.explored.clear();
  game.records.explored_movers.clear();
  game.ply = 0;
  game.resign_check = rng_.Uniform() < config_.resign_check_fraction;
  game.low_value_moves[0] = game.low_value_moves[1] = 0;
  game.would_resign.reset();
}

std::optional<core::Color> SelfPlayWorker::Resigns(Game& game, core::Color mover, float value) {
  if (!config_.resign) return std::nullopt;
  int& low = game.low_value_moves[static_cast<int>(mover)];
  low = value <= config_.resign_value ? low + 1 : 0;
  if (low < config_.resign_moves) return std::nullopt;
  if (!game.resign_check) return mover;
  if (!game.would_resign) game.would_resign = mover;
  return std::nullopt;
}

void SelfPlayWorker::FinishGame(Game& game, std::optional<core::Color> resigned) {
  const core::Position& final_position = game.tree->root_position();
  const core::Outcome outcome = GameResult(final_position, config_.rules, resigned);
  if (resigned) stats_.resigned.fetch_add(1, std::memory_order_relaxed);
  if (game.would_resign) {
    stats_.resign_checks.fetch_add(1, std::memory_order_relaxed);
    if (outcome.MarginFor(*game.would_resign) >= 0) {
      stats_.resign_false_positives.fetch_add(1, std::memory_order_relaxed);
    }
  }
  FillTargets(game.records, final_position, outcome, static_cast<float>(config_.value_target_mix),
              static_cast<float>(config_.value_lambda), config_.exact_outcome);
  FillExploredTargets(game.records, final_position, outcome, config_.explored_value == "result");
  std::vector<Sample> weighted;
  const std::vector<Sample>* out = &game.records.samples;
  if (config_.policy_surprise_weight > 0) {
    weighted =
        WeightBySurprise(game.records, static_cast<float>(config_.policy_surprise_weight), rng_);
    out = &weighted;
  }
  if (!game.records.explored.empty()) {
    if (out != &weighted) weighted = *out;
    weighted.insert(weighted.end(), game.records.explored.begin(), game.records.explored.end());
    out = &weighted;
    stats_.explored.fetch_add(game.records.explored.size(), std::memory_order_relaxed);
  }
  sink_(*out);
  stats_.positions.fetch_add(out->size(), std::memory_order_relaxed);
  stats_.games.fetch_add(1, std::memory_order_relaxed);
}

void SelfPlayWorker::BeginMove(Game& game, const std::shared_ptr<mcts::Evaluator>& current) {
  // A newly published model takes over a game at its next move (the tree is kept).
  if (game.evaluator != current) {
    game.evaluator = current;
    game.search = std::make_unique<mcts::TreeSearch>(*game.tree, *current, config_.search,
                                                     rng_.Next());
  }
  game.search->BeginSelfPlayMove();
}

void SelfPlayWorker::FinishMove(Game& game) {
  clock_->Switch(PhaseClock::kTree);
  const mcts::SearchResult r = game.search->Finish(game.ply);
  clock_->Switch(PhaseClock::kOther);
  stats_.playouts.fetch_add(r.playouts, std::memory_order_relaxed);
  stats_.moves.fetch_add(1, std::memory_order_relaxed);
  const core::Position& pos = game.tree->root_position();
  if (!pos.MustPass()) {  // forced passes teach nothing
    Sample s;
    s.SetPosition(pos);
    s.has_policy = r.full_search && !r.policy_target.empty();
    for (std::size_t a = 0; a < r.policy_target.size(); ++a) s.policy[a] = Prob(r.policy_target[a]);
    if (r.exact) {
      s.has_exact = 1;
      s.exact_score = static_cast<std::int8_t>(r.exact_score);
    } else if (pos.EmptyCount() <= config_.exact_target_empties) {
      const core::SolveResult solved = core::SolveExact(pos, config_.rules);
      if (solved.exact()) {
        s.has_exact = 1;
        s.exact_score = static_cast<std::int8_t>(solved.score);
      }
    }
    game.records.samples.push_back(s);
    game.records.movers.push_back(pos.side_to_move());
    game.records.search_wdl.insert(game.records.search_wdl.end(), {r.win, r.draw, r.loss});
    game.records.surprise.push_back(s.has_policy ? PolicySurprise(r, pos.size()) : 0.0f);
    if (config_.explored_min_visits > 0 && r.full_search) {
      for (const mcts::ExploredNode& node :
           game.search->ExploredNodes(static_cast<std::uint32_t>(config_.explored_min_visits), r.move)) {
        game.records.explored.push_back(ExploredSample(node));
        game.records.explored_movers.push_back(node.position.side_to_move());
      }
    }
  }
  if (const std::optional<core::Color> resigned = Resigns(game, pos.side_to_move(), r.q)) {
    FinishGame(game, resigned);
    clock_->Switch(PhaseClock::kTree);
    StartGame(game);
    return;
  }
  clock_->Switch(PhaseClock::kTree);
  game.tree->Advance(r.move);
  ++game.ply;
  if (game.tree->root_position().IsGameOver()) {
    clock_->Switch(PhaseClock::kOther);
    FinishGame(game, std::nullopt);
    clock_->Switch(PhaseClock::kTree);
    StartGame(game);
  }
}

void SelfPlayWorker::Run(const std::atomic<bool>& stop) {
  clock_ = std::make_unique<PhaseClock>(stats_);  // flushes its totals when Run ends
  clock_->Switch(PhaseClock::kTree);
  std::vector<Game> games(config_.games_per_thread);
  std::vector<mcts::TreeSearch*> searches(games.size());
  std::shared_ptr<mcts::Evaluator> current = Timed(models_.Current());
  for (std::size_t i = 0; i < games.size(); ++i) {
    StartGame(games[i]);
    BeginMove(games[i], current);
    searches[i] = games[i].search.get();
  }
  // Each game moves as soon as its own search is done, so that every round gathers
  // from all games (fast and full searches end at different rounds): a new search's
  // root goes into the next round's batch, its leaves into the rounds after. A model
  // published mid-search evaluates the rest of that search's positions; the tree mixes
  // models anyway, as it is kept from move to move.
  mcts::SearchRoundBuffers buffers;
  while (!stop.load(std::memory_order_relaxed)) {
    clock_->Switch(PhaseClock::kOther);
    current = Timed(models_.Current());
    clock_->Switch(PhaseClock::kTree);
    clock_->in_round = true;
    mcts::RunSearchRound(searches, *current, config_.leaves_per_game, buffers);
    clock_->in_round = false;
    for (std::size_t i = 0; i < games.size(); ++i) {
      if (!searches[i]->Done()) continue;
      FinishMove(games[i]);  // leaves the clock in tree work
      BeginMove(games[i], current);
      searches[i] = games[i].search.get();
    }
    clock_->MaybeFlush();
  }
  clock_.reset();
  timed_.reset();
}

SelfPlayThreads::SelfPlayThreads(const TrainingConfig& config, ModelSource& models,
                                 SampleSink sink, SelfPlayStats& stats, std::uint64_t seed)
    : errors_(static_cast<std::size_t>(std::max(0, config.selfplay_threads))) {
  if (config.selfplay_threads < 0) {
    throw std::invalid_argument("self-play: selfplay.threads auto was not sized for the machine "
                                "(training::SizedForMachine)");
  }
  for (int t = 0; t < config.selfplay_threads; ++t) {
    threads_.emplace_back([this, &config, &models, sink, &stats, seed, t] {
      try {
        SelfPlayWorker worker(config, models, sink, stats, core::Mix64(seed + t));
        worker.Run(stop_);
      } catch (...) {
        errors_[t] = std::current_exception();  // read only after the join
        stop_.store(true);
      }
    });
  }
}

void SelfPlayThreads::Stop() {
  stop_.store(true);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void SelfPlayThreads::RethrowError() const {
  for (std::size_t t = 0; t < errors_.size(); ++t) {
    if (!errors_[t]) continue;
    try {
      std::rethrow_exception(errors_[t]);
    } catch (const std::exception& e) {
      throw std::runtime_error("self-play thread " + std::to_string(t) + " failed: " + e.what());
    }
  }
}

}  // namespace othello::training
