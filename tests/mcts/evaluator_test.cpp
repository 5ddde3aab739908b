#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/symmetry.h"
#include "mcts/batching_evaluator.h"
#include "mcts/eval_cache.h"
#include "mcts/search.h"
#include "mcts/symmetry_evaluator.h"

namespace othello::mcts {
namespace {

using ::testing::_;
using ::testing::AtLeast;
using ::testing::Invoke;

class MockBackend {
 public:
  MOCK_METHOD(void, Run,
              (const std::vector<const Position*>& positions,
               const std::vector<EvalOutput*>& outputs));
};

void Uniform(const std::vector<const Position*>& positions,
             const std::vector<EvalOutput*>& outputs) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    SetUniformPolicy(*positions[i], *outputs[i]);
    outputs[i]->draw = 1.0f;
  }
}

TEST(BatchingEvaluator, GathersPositionsFromSeveralThreadsAndGames) {
  MockBackend backend;
  std::mutex mutex;
  std::size_t largest = 0;
  std::set<std::uint64_t> roots_in_one_call_max;
  std::size_t most_games_in_one_call = 0;
  EXPECT_CALL(backend, Run(_, _))
      .Times(AtLeast(1))
      .WillRepeatedly(Invoke([&](const std::vector<const Position*>& positions,
                                 const std::vector<EvalOutput*>& outputs) {
        Uniform(positions, outputs);
        std::lock_guard<std::mutex> lock(mutex);
        largest = std::max(largest, positions.size());
        // Games differ by their first move, so count the distinct discs at d3/c4/f5/e6.
        std::set<core::Bitboard> openings;
        for (const Position* p : positions) {
          openings.insert((p->discs(core::Color::kBlack) | p->discs(core::Color::kWhite)) &
                          0x0000102004080000ULL);
        }
        most_games_in_one_call = std::max(most_games_in_one_call, openings.size());
      }));
  BatchingEvaluator evaluator(
      [&](const auto& positions, const auto& outputs) { backend.Run(positions, outputs); },
      /*max_batch=*/64, std::chrono::milliseconds(20));

  // Two threads, each searching two games (one per opening move) with 8 leaves per
  // game and round: a backend call can only exceed 16 positions by merging threads.
  constexpr int kLeaves = 8;
  auto run_thread = [&](int first_opening) {
    SearchParams params;
    params.solver_empties = 0;
    const Position start = Position::Standard(8);
    std::vector<std::unique_ptr<Tree>> trees;
    std::vector<std::unique_ptr<TreeSearch>> searches;
    std::vector<TreeSearch*> raw;
    for (int g = 0; g < 2; ++g) {
      core::Square move = core::LowestSquare(start.LegalMoves());
      for (int k = 0; k < first_opening + g; ++k) {
        move = core::LowestSquare(start.LegalMoves() & ~((core::Bitboard{2} << move) - 1));
      }
      trees.push_back(std::make_unique<Tree>(start.Play(move), 1 << 16));
      searches.push_back(std::make_unique<TreeSearch>(*trees.back(), evaluator, params, g));
      SearchLimits limits;
      limits.playouts = 400;
      searches.back()->Begin(limits);
      raw.push_back(searches.back().get());
    }
    RunSearchesBatched(raw, evaluator, kLeaves);
    for (auto* s : raw) EXPECT_EQ(s->Finish(0).playouts, 400u);
  };
  std::thread a(run_thread, 0), b(run_thread, 2);
  a.join();
  b.join();
  EXPECT_GT(largest, 2u * kLeaves);          // more than one thread's round
  EXPECT_GE(most_games_in_one_call, 3u);     // games of both threads in one call
  EXPECT_GT(evaluator.positions_evaluated(), evaluator.backend_calls());
}

TEST(BatchingEvaluator, BackendErrorsReachTheWaiter) {
  BatchingEvaluator evaluator(
      [](const auto&, const auto&) { throw std::runtime_error("backend exploded"); },
      /*max_batch=*/8, std::chrono::microseconds(100));
  EvalBatch batch;
  batch.Add(Position::Standard(8));
  EXPECT_THROW(
      {
        try {
          evaluator.Evaluate(batch);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "backend exploded");
          throw;
        }
      },
      std::runtime_error);
}

// A backend whose outputs tell the position apart: the policy at a square is 1 where
// the side to move has a disc there, the ownership 1 where the opponent has one.
void DiscMap(const std::vector<const Position*>& positions,
             const std::vector<EvalOutput*>& outputs) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Position& p = *positions[i];
    for (int sq = 0; sq < p.squares(); ++sq) {
      outputs[i]->policy[sq] = (p.player() & core::Bit(sq)) != 0 ? 1.0f : 0.0f;
      outputs[i]->ownership[sq] = (p.opponent() & core::Bit(sq)) != 0 ? 1.0f : 0.0f;
    }
    outputs[i]->win = 0.25f;
  }
}

TEST(FunctionEvaluator, RunsTheFunctionOnTheCallerAndRethrowsItsFailure) {
  FunctionEvaluator evaluator(DiscMap);
  EvalBatch batch;
  batch.Add(Position::Standard(8));
  evaluator.Evaluate(batch);
  EXPECT_EQ(batch.output(0).win, 0.25f);
  FunctionEvaluator failing([](const auto&, const auto&) { throw std::runtime_error("no"); });
  EXPECT_THROW(failing.Evaluate(batch), std::runtime_error);
}

// Whatever symmetry is drawn, the outputs mapped back are those of the position itself
// (the backend is equivariant), and the backend saw several orientations.
TEST(RandomSymmetryEvaluator, MapsEveryDrawnSymmetryBack) {
  std::set<std::uint64_t> seen;
  std::mutex mutex;
  auto backend = std::make_shared<FunctionEvaluator>([&](const auto& positions, const auto& outputs) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Position* p : positions) seen.insert(p->Hash());
    DiscMap(positions, outputs);
  });
  RandomSymmetryEvaluator evaluator(backend, /*seed=*/5);
  Position position = Position::Standard(8);
  position = position.Play(core::LowestSquare(position.LegalMoves()));
  std::vector<EvalOutput> direct(1);
  DiscMap({&position}, {&direct[0]});
  for (int round = 0; round < 16; ++round) {
    EvalBatch batch;
    for (int i = 0; i < 4; ++i) batch.Add(position);
    evaluator.Evaluate(batch);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(batch.output(i).policy, direct[0].policy) << round << " " << i;
      EXPECT_EQ(batch.output(i).ownership, direct[0].ownership) << round << " " << i;
      EXPECT_EQ(batch.output(i).win, 0.25f);
    }
  }
  EXPECT_GT(seen.size(), 4u);  // drawn, not fixed
  // A failure of the inner evaluator reaches Wait().
  RandomSymmetryEvaluator failing(
      std::make_shared<FunctionEvaluator>([](const auto&, const auto&) { throw std::runtime_error("x"); }),
      1);
  EvalBatch batch;
  batch.Add(position);
  EXPECT_THROW(failing.Evaluate(batch), std::runtime_error);
}

// The draws are the documented ones (what self-play's reproducibility rests on): call k
// seeds Rng(Mix64(seed ^ k)) and draws one symmetry per position in order.
TEST(RandomSymmetryEvaluator, DrawsAsDocumented) {
  std::vector<Position> seen;
  auto backend = std::make_shared<FunctionEvaluator>([&](const auto& positions, const auto& outputs) {
    for (const Position* p : positions) seen.push_back(*p);
    DiscMap(positions, outputs);
  });
  RandomSymmetryEvaluator evaluator(backend, /*seed=*/77);
  Position position = Position::Standard(8);
  position = position.Play(core::LowestSquare(position.LegalMoves()));
  for (std::uint64_t call = 0; call < 3; ++call) {
    seen.clear();
    EvalBatch batch;
    for (int i = 0; i < 5; ++i) batch.Add(position);
    evaluator.Evaluate(batch);
    core::Rng rng(core::Mix64(77 ^ call));
    ASSERT_EQ(seen.size(), 5u);
    for (int i = 0; i < 5; ++i) {
      const int symmetry = static_cast<int>(rng.Below(core::kNumSymmetries));
      EXPECT_EQ(seen[i].Hash(), core::TransformPosition(position, symmetry).Hash()) << call << " " << i;
    }
  }
}

TEST(BatchingEvaluator, SplitsBatchesLargerThanTheMaximum) {
  std::atomic<int> calls{0};
  BatchingEvaluator evaluator(
      [&](const auto& positions, const auto& outputs) {
        EXPECT_LE(positions.size(), 5u);
        ++calls;
        Uniform(positions, outputs);
      },
      /*max_batch=*/5, std::chrono::microseconds(100));
  EvalBatch batch;
  for (int i = 0; i < 12; ++i) batch.Add(Position::Standard(8));
  evaluator.Evaluate(batch);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_FLOAT_EQ(batch.output(11).policy[19], 0.25f);  // d3
}

TEST(EvalCache, CanonicalEntriesServeEverySymmetricPosition) {
  EvalCache cache(1024, /*canonical=*/true);
  Position pos = Position::Standard(8);
  pos = pos.Play(*core::ParseSquare("f5", 8)).Play(*core::ParseSquare("d6", 8));
  EvalOutput out;
  SetUniformPolicy(pos, out);
  out.policy[*core::ParseSquare("c3", 8)] = 0.7f;
  out.win = 0.6f;
  cache.Insert(pos, out);
  for (int s = 0; s < core::kNumSymmetries; ++s) {
    const Position t = core::TransformPosition(pos, s);
    EvalOutput got;
    ASSERT_TRUE(cache.Lookup(t, got)) << "symmetry " << s;
    EXPECT_NEAR(got.win, 0.6f, 1e-6);
    const core::Square c3 = core::TransformSquare(*core::ParseSquare("c3", 8), 8, s);
    EXPECT_NEAR(got.policy[c3], 0.7f, 1e-4) << "symmetry " << s;
  }
  EvalCache plain(1024, /*canonical=*/false);
  plain.Insert(pos, out);
  EvalOutput got;
  EXPECT_TRUE(plain.Lookup(pos, got));
  EXPECT_FALSE(plain.Lookup(core::TransformPosition(pos, 2), got));
  EXPECT_EQ(plain.hits(), 1u);
  EXPECT_EQ(plain.misses(), 1u);
}

// Outputs that differ from position to position: a policy weighted by square and a
// value from the position's hash.
void ByHash(const Position& position, EvalOutput& out) {
  SetUniformPolicy(position, out);
  float total = 0;
  core::ForEachSquare(position.LegalMoves(), [&](Square sq) {
    total += out.policy[sq] = static_cast<float>(sq + 1);
  });
  core::ForEachSquare(position.LegalMoves(), [&](Square sq) { out.policy[sq] /= total; });
  const std::uint64_t h = position.Hash();
  out.win = static_cast<float>(h % 1000) / 2000.0f;
  out.loss = static_cast<float>((h >> 10) % 1000) / 2000.0f;
  out.draw = 1.0f - out.win - out.loss;
}

void ByHashBackend(const std::vector<const Position*>& positions,
                   const std::vector<EvalOutput*>& outputs) {
  for (std::size_t i = 0; i < positions.size(); ++i) ByHash(*positions[i], *outputs[i]);
}

// ByHash, computed in Submit(), counting the positions it is asked for.
class CountingEvaluator : public Evaluator {
 public:
  void Submit(EvalBatch& batch) override {
    batch.Restart();
    batch.outputs().resize(batch.size());
    for (int i = 0; i < batch.size(); ++i) ByHash(batch.positions()[i], batch.outputs()[i]);
    positions_ += batch.size();
    batch.MarkDone();
  }
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }
  int positions() const { return positions_.load(); }

 private:
  std::atomic<int> positions_{0};
};

// Positions of random games on `size` boards, `count` of them.
std::vector<Position> RandomPositions(int count, int size, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<Position> positions;
  Position pos = Position::Standard(size);
  while (static_cast<int>(positions.size()) < count) {
    if (pos.IsGameOver()) pos = Position::Standard(size);
    pos = pos.Play(core::RandomLegalMove(pos, rng));
    positions.push_back(pos);
  }
  return positions;
}

void ExpectSameOutput(const EvalOutput& got, const EvalOutput& want, int size, float tolerance) {
  EXPECT_NEAR(got.win, want.win, tolerance);
  EXPECT_NEAR(got.draw, want.draw, tolerance);
  EXPECT_NEAR(got.loss, want.loss, tolerance);
  for (int a = 0; a <= size * size; ++a) EXPECT_NEAR(got.policy[a], want.policy[a], tolerance);
}

TEST(CachingEvaluator, HitsRepeatedAndSymmetricPositions) {
  CountingEvaluator inner;
  CachingEvaluator cached(inner, 1024, /*canonical=*/true);
  const Position pos = Position::Standard(8)
                           .Play(*core::ParseSquare("f5", 8))
                           .Play(*core::ParseSquare("d6", 8));
  EvalOutput want;
  ByHash(pos, want);
  EvalBatch batch;
  batch.Add(pos);
  cached.Evaluate(batch);
  ExpectSameOutput(batch.output(0), want, 8, 0.0f);  // a miss: the inner output itself
  cached.Evaluate(batch);
  EXPECT_EQ(inner.positions(), 1);
  ExpectSameOutput(batch.output(0), want, 8, 1e-4f);
  for (int s = 0; s < core::kNumSymmetries; ++s) {
    batch.Clear();
    batch.Add(core::TransformPosition(pos, s));
    cached.Evaluate(batch);
    EXPECT_NEAR(batch.output(0).win, want.win, 1e-6) << "symmetry " << s;
    for (int sq = 0; sq < 64; ++sq) {
      EXPECT_NEAR(batch.output(0).policy[core::TransformSquare(sq, 8, s)], want.policy[sq], 1e-4)
          << "symmetry " << s;
    }
  }
  EXPECT_EQ(inner.positions(), 1);
  EXPECT_EQ(cached.cache().hits(), 9u);
  EXPECT_EQ(cached.cache().misses(), 1u);

  CachingEvaluator plain(inner, 1024, /*canonical=*/false);
  plain.Evaluate(batch);
  batch.Clear();
  batch.Add(pos);
  plain.Evaluate(batch);
  EXPECT_EQ(inner.positions(), 3);  // a symmetric form is another position
}

TEST(CachingEvaluator, GivesTheInnerEvaluatorsOutputs) {
  CountingEvaluator inner;
  CachingEvaluator cached(inner, 1 << 12, /*canonical=*/false);
  std::vector<Position> positions = RandomPositions(40, 8, 11);
  const std::vector<Position> small = RandomPositions(20, 6, 12);
  positions.insert(positions.end(), small.begin(), small.end());
  EvalBatch batch;
  for (std::size_t i = 0; i < positions.size(); i += 2) batch.Add(positions[i]);
  cached.Evaluate(batch);
  // Half of these were seen: hits and misses mixed in one batch, of two board sizes.
  batch.Clear();
  for (const Position& p : positions) batch.Add(p);
  cached.Evaluate(batch);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    EvalOutput want;
    ByHash(positions[i], want);
    ExpectSameOutput(batch.output(static_cast<int>(i)), want, positions[i].size(),
                     i % 2 ? 0.0f : 1e-4f);
  }
  EXPECT_EQ(inner.positions(), static_cast<int>(positions.size()));
}

TEST(CachingEvaluator, ServesManyThreadsAtOnce) {
  BatchingEvaluator inner(ByHashBackend, /*max_batch=*/16, std::chrono::microseconds(200));
  CachingEvaluator cached(inner, 1 << 12, /*canonical=*/false);
  const std::vector<Position> positions = RandomPositions(64, 8, 13);
  constexpr int kThreads = 8, kRounds = 50, kPerBatch = 8;
  std::atomic<int> wrong{0};
  auto run = [&](int t) {
    core::Rng rng(t);
    EvalBatch batch;
    for (int round = 0; round < kRounds; ++round) {
      batch.Clear();
      for (int i = 0; i < kPerBatch; ++i) batch.Add(positions[rng.Below(static_cast<std::uint32_t>(positions.size()))]);
      cached.Evaluate(batch);
      for (int i = 0; i < kPerBatch; ++i) {
        EvalOutput want;
        ByHash(batch.positions()[i], want);
        if (std::abs(batch.output(i).win - want.win) > 1e-4f) ++wrong;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(run, t);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  const EvalCache& cache = cached.cache();
  EXPECT_EQ(cache.hits() + cache.misses(), std::uint64_t{kThreads} * kRounds * kPerBatch);
  EXPECT_EQ(inner.positions_evaluated(), cache.misses());
  EXPECT_GT(cache.hits(), cache.misses());
}

TEST(CachingEvaluator, InnerFailureReachesWait) {
  BatchingEvaluator inner(
      [](const auto&, const auto&) { throw std::runtime_error("backend exploded"); },
      /*max_batch=*/8, std::chrono::microseconds(100));
  CachingEvaluator cached(inner, 1024, /*canonical=*/true);
  EvalBatch batch;
  batch.Add(Position::Standard(8));
  for (int attempt = 0; attempt < 2; ++attempt) {  // nothing of the first stays pending
    try {
      cached.Evaluate(batch);
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "backend exploded");
    }
  }
  EXPECT_EQ(cached.cache().hits(), 0u);
}

// The cache as first written, square by square: the reference the fast cache must
// match bit for bit (keys, canonical symmetry, two-slot replacement, rounding).
class ReferenceCache {
 public:
  ReferenceCache(std::size_t entries, bool canonical) : canonical_(canonical) {
    std::size_t n = 64;
    while (n < entries) n *= 2;
    slots_.resize(n);
    mask_ = n / 2 - 1;
  }
  bool Lookup(const Position& position, EvalOutput& out) {
    int sym;
    const std::uint64_t key = KeyOf(position, &sym);
    const std::size_t pair = (key >> 1) & mask_;
    const int size = position.size();
    for (std::size_t i = pair * 2; i < pair * 2 + 2; ++i) {
      const Slot& e = slots_[i];
      if (e.key != key || e.size != size) continue;
      out.win = e.output.win;
      out.draw = e.output.draw;
      out.loss = e.output.loss;
      out.has_aux = e.output.has_aux;
      out.disc_difference = e.output.disc_difference;
      for (int sq = 0; sq < size * size; ++sq) {
        const int stored = core::TransformSquare(sq, size, sym);
        out.policy[sq] = e.policy[stored] / 65535.0f;
        out.ownership[sq] = e.ownership[stored] / 127.0f;
      }
      out.policy[size * size] = e.policy[size * size] / 65535.0f;
      ++hits;
      return true;
    }
    ++misses;
    return false;
  }
  void Insert(const Position& position, const EvalOutput& output) {
    int sym;
    const std::uint64_t key = KeyOf(position, &sym);
    const std::size_t pair = (key >> 1) & mask_;
    const int size = position.size();
    Slot fresh;
    fresh.key = key;
    fresh.age = clock_++;
    fresh.size = size;
    fresh.output = output;
    for (int sq = 0; sq < size * size; ++sq) {
      const int stored = core::TransformSquare(sq, size, sym);
      fresh.policy[stored] = static_cast<std::uint16_t>(
          std::lround(std::clamp(output.policy[sq], 0.0f, 1.0f) * 65535));
      fresh.ownership[stored] = static_cast<std::int8_t>(
          std::lround(std::clamp(output.ownership[sq], -1.0f, 1.0f) * 127));
    }
    fresh.policy[size * size] = static_cast<std::uint16_t>(
        std::lround(std::clamp(output.policy[size * size], 0.0f, 1.0f) * 65535));
    Slot* a = &slots_[pair * 2];
    Slot* b = a + 1;
    Slot* target = a->key == key ? a : b->key == key ? b : (a->age <= b->age ? a : b);
    *target = fresh;
  }
  std::uint64_t hits = 0, misses = 0;

 private:
  struct Slot {
    std::uint64_t key = 0, age = 0;
    int size = 0;
    EvalOutput output;  // its win, draw, loss, has_aux and disc_difference are kept
    std::array<std::uint16_t, core::kMaxSquares + 1> policy{};
    std::array<std::int8_t, core::kMaxSquares> ownership{};
  };
  std::uint64_t KeyOf(const Position& position, int* symmetry) const {
    *symmetry = 0;
    std::uint64_t key = position.Hash();
    for (int s = 1; canonical_ && s < core::kNumSymmetries; ++s) {
      const std::uint64_t k = core::TransformPosition(position, s).Hash();
      if (k < key) {
        key = k;
        *symmetry = s;
      }
    }
    return key | 1;
  }
  bool canonical_;
  std::size_t mask_;
  std::vector<Slot> slots_;
  std::uint64_t clock_ = 0;
};

// Outputs with every field set, ownership and policy off the quantisation grid, some
// out of range, some exactly half a step (rounding ties).
EvalOutput Scrambled(const Position& position, core::Rng& rng) {
  EvalOutput out;
  const int n = position.squares();
  for (int a = 0; a <= n; ++a) out.policy[a] = static_cast<float>(rng.Below(70000)) / 65535.0f;
  out.policy[rng.Below(n)] = 0.5f / 65535.0f * static_cast<float>(2 * rng.Below(100) + 1);
  out.policy[rng.Below(n)] = -0.25f;
  for (int sq = 0; sq < n; ++sq) {
    out.ownership[sq] = static_cast<float>(static_cast<int>(rng.Below(300)) - 150) / 137.0f;
  }
  out.ownership[rng.Below(n)] = 2.5f / 127.0f;
  out.ownership[rng.Below(n)] = -2.5f / 127.0f;
  out.win = static_cast<float>(rng.Below(1000)) / 1000.0f;
  out.loss = 1.0f - out.win;
  out.has_aux = rng.Below(2) == 1;
  out.disc_difference = static_cast<float>(rng.Below(129)) - 64.0f;
  return out;
}

bool SameBits(const EvalOutput& a, const EvalOutput& b, int size) {
  auto same = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  bool ok = same(a.win, b.win) && same(a.draw, b.draw) && same(a.loss, b.loss) &&
            a.has_aux == b.has_aux && same(a.disc_difference, b.disc_difference);
  for (int a_ = 0; a_ <= size * size; ++a_) ok = ok && same(a.policy[a_], b.policy[a_]);
  for (int sq = 0; sq < size * size; ++sq) ok = ok && same(a.ownership[sq], b.ownership[sq]);
  return ok;
}

// A fixed sequence of lookups and inserts (random games on 6x6, 8x8 and 10x10 and
// their symmetric forms, a table small enough to evict): the cache returns what the
// square-by-square reference returns, hit for hit and bit for bit, in both modes.
TEST(EvalCache, MatchesTheReferenceBitForBit) {
  for (const bool canonical : {false, true}) {
    EvalCache cache(256, canonical);
    ReferenceCache reference(256, canonical);
    core::Rng rng(canonical ? 5 : 6);
    std::vector<Position> positions = RandomPositions(300, 8, 21);
    for (const int size : {6, 10}) {
      const std::vector<Position> more = RandomPositions(150, size, 22 + size);
      positions.insert(positions.end(), more.begin(), more.end());
    }
    int hits = 0;
    for (int step = 0; step < 6000; ++step) {
      Position pos = positions[rng.Below(static_cast<std::uint32_t>(positions.size()))];
      pos = core::TransformPosition(pos, static_cast<int>(rng.Below(8)));
      EvalOutput got = Scrambled(pos, rng), want = got;  // untouched parts alike
      const bool hit = cache.Lookup(pos, got);
      ASSERT_EQ(hit, reference.Lookup(pos, want)) << "step " << step;
      if (hit) {
        ++hits;
        ASSERT_TRUE(SameBits(got, want, pos.size())) << "step " << step;
      } else {
        const EvalOutput output = Scrambled(pos, rng);
        cache.Insert(pos, output);
        reference.Insert(pos, output);
      }
    }
    EXPECT_EQ(cache.hits(), reference.hits);
    EXPECT_EQ(cache.misses(), reference.misses);
    EXPECT_EQ(hits, canonical ? 2498 : 320) << "canonical " << canonical;  // as first measured
  }
}

TEST(RolloutEvaluator, ValueReflectsTheGame) {
  // Black has a won endgame whatever happens: one empty square, black far ahead.
  const Position pos = *core::ParseBoardString(std::string(62, 'X') + "O- X");
  RolloutEvaluator eval(8, false, 1);
  EvalBatch batch;
  batch.Add(pos);
  eval.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.output(0).win, 1.0f);
  RolloutEvaluator anti(8, /*anti=*/true, 1);
  anti.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.output(0).loss, 1.0f);
}

}  // namespace
}  // namespace othello::mcts
