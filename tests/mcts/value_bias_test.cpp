// The subtree value-bias correction (mcts/value_bias.h): its key, its table, a node's
// error, and the search that learns and applies them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/notation.h"
#include "mcts/search.h"
#include "mcts/value_bias.h"
#include "tests/mcts/hashed_evaluator.h"

namespace othello::mcts {
namespace {

using core::Bit;
using core::Position;

core::Square Sq(const char* name) {
  const auto sq = core::ParseSquare(name, 8);
  EXPECT_TRUE(sq.ok()) << name;
  return *sq;
}

std::int64_t Fixed(float p) { return std::llround(static_cast<double>(p) * kValueScale); }

TEST(ValueBias, KeyIsTheMoverTheSquareAndItsNeighbours) {
  // Black's f5 from the start flips e5: of f5's neighbours e4 and e5 are black's.
  const Position after = Position::Standard(8).Play(Sq("f5"));
  const std::uint32_t f5 = static_cast<std::uint32_t>(Sq("f5"));
  // The mover (black 0, white 1) in bit 23, 1 + the square in bits 16-22, and the
  // neighbours (-1,-1) (-1,0) (-1,1) (0,-1) (0,1) (1,-1) (1,0) (1,1) from bit 0, two
  // bits each: 0 empty, 1 the mover's, 2 the opponent's, 3 off the board.
  const std::uint32_t pattern = 1 | 1 << 6;
  EXPECT_EQ(ValueBiasKey(after, Sq("f5")), 8u << 24 | 0u << 23 | (f5 + 1) << 16 | pattern);
  // A pass: the mover alone.
  const Position passed(8, after.opponent(), after.player(), core::Color::kBlack);
  EXPECT_EQ(ValueBiasKey(passed, core::kPass), 8u << 24 | 1u << 23);  // white passed

  // a1 by white in the corner: five neighbours off the board.
  const core::Bitboard white = Bit(Sq("a1")) | Bit(Sq("b1")), black = Bit(Sq("b2"));
  const Position corner(8, black, white, core::Color::kBlack);  // black to move: white moved
  const std::uint32_t corner_pattern = 3 | 3 << 2 | 3 << 4 | 3 << 6 | 1 << 8 | 3 << 10 | 0 << 12 |
                                       2 << 14;
  EXPECT_EQ(ValueBiasKey(corner, Sq("a1")),
            8u << 24 | 1u << 23 | static_cast<std::uint32_t>(Sq("a1") + 1) << 16 | corner_pattern);
  // Discs away from the neighbourhood do not change the key; a neighbour or the mover does.
  const Position far(8, black | Bit(Sq("h8")), white | Bit(Sq("e5")), core::Color::kBlack);
  EXPECT_EQ(ValueBiasKey(far, Sq("a1")), ValueBiasKey(corner, Sq("a1")));
  const Position near(8, black | Bit(Sq("a2")), white, core::Color::kBlack);
  EXPECT_NE(ValueBiasKey(near, Sq("a1")), ValueBiasKey(corner, Sq("a1")));
  const Position other_mover(8, white, black, core::Color::kWhite);
  EXPECT_NE(ValueBiasKey(other_mover, Sq("a1")), ValueBiasKey(corner, Sq("a1")));
}

TEST(ValueBias, TableKeepsTheWeightedMeanOfItsNodesLatestErrors) {
  ValueBiasTable table(100);
  EXPECT_EQ(table.slots(), 128u);
  const std::uint32_t a = table.Find(7), b = table.Find(9);
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(table.Find(7), a);
  EXPECT_EQ(table.key(a), 7u);
  EXPECT_EQ(table.Bias(a), 0.0);  // no weight yet
  {
    core::MutexLock lock(table.Shard(a));
    table.Replace(a, {}, {-1.0, 2.0});  // one node: error -0.5, weight 2
    table.Replace(a, {}, {0.5, 1.0});   // another: error 0.5, weight 1
  }
  EXPECT_DOUBLE_EQ(table.Bias(a), -0.5 / 3);
  {
    core::MutexLock lock(table.Shard(a));
    table.Replace(a, {-1.0, 2.0}, {-4.0, 4.0});  // the first node's error is now -1, weight 4
  }
  EXPECT_DOUBLE_EQ(table.Bias(a), -3.5 / 5);
  EXPECT_EQ(table.Bias(b), 0.0);
  table.Clear();
  EXPECT_EQ(table.key(a), 0u);
  EXPECT_EQ(table.Bias(a), 0.0);

  // A full table gives no slot: 65 keys cannot all find one among 64.
  ValueBiasTable small(64);
  std::map<std::uint32_t, std::uint32_t> slots;
  int none = 0;
  for (std::uint32_t key = 1; key <= 65; ++key) {
    const std::uint32_t slot = small.Find(key);
    if (slot == 0) {
      ++none;
    } else {
      EXPECT_TRUE(slots.emplace(slot, key).second) << "slot " << slot << " given twice";
    }
  }
  EXPECT_GE(none, 1);
}

TEST(ValueBias, ANodesErrorIsItsOtherValuesMeanLessTheEvaluators) {
  Node node;
  NodeBias bias;
  bias.nn_value = 0.4f;
  bias.own_value = static_cast<std::int32_t>(Fixed(0.75f) - Fixed(0.25f));  // 0.5 backed up
  node.FinishPlayout(Fixed(0.75f), Fixed(0.25f), 0, /*shared=*/false);
  EXPECT_EQ(NodeContribution(node, bias, 0.8f).weight, 0.0);  // its own value alone
  node.FinishPlayout(Fixed(0.55f), Fixed(0.45f), 0, false);   // 0.1
  node.FinishPlayout(Fixed(0.35f), Fixed(0.65f), 0, false);   // -0.3
  const BiasContribution c = NodeContribution(node, bias, 0.8f);
  const double weight = std::pow(2.0, static_cast<double>(0.8f));
  EXPECT_DOUBLE_EQ(c.weight, weight);
  // Mean of 0.1 and -0.3 less 0.4 (the fixed point rounds the values to 2^-20).
  EXPECT_NEAR(c.weighted_error, weight * (-0.1 - 0.4), 1e-5);
}

// Recomputes every bucket from the tree as value_bias.h defines it: the weighted mean,
// over the nodes of a bucket, of the mean of their values other than their own
// evaluation's less their evaluator's value. Also checks that a node's own value is
// what its value sum holds beyond its children's (unproven nodes: a proven one also
// holds the proven results backed up through it).
void ExpectTableMatchesTheTree(const Tree& tree, float exponent) {
  const ValueBiasTable& table = *tree.value_bias();
  const NodeBias* bias = tree.bias_nodes();
  std::map<std::uint32_t, BiasContribution> expected;
  std::vector<std::uint32_t> queue{tree.root_index()};
  int with_weight = 0;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Node& node = tree.node(queue[q]);
    std::int64_t children_sum = 0;  // for the mover into `node`
    std::uint32_t children_visits = 0;
    if (node.state.load() == NodeState::kExpanded) {
      for (int i = 0; i < node.num_children; ++i) {
        const Node& child = tree.node(node.first_child + i);
        children_sum -= child.ValueSum();
        children_visits += child.Visits();
        queue.push_back(node.first_child + i);
      }
    }
    const NodeBias& b = bias[queue[q]];
    if (q == 0 || b.slot == 0) continue;
    if (node.proven.load() == Proven::kUnknown) {
      EXPECT_EQ(node.Visits(), children_visits + 1);
      EXPECT_EQ(node.ValueSum(), children_sum + b.own_value);
    }
    if (node.Visits() < 2) continue;
    const double others = node.Visits() - 1.0;
    const double weight = std::pow(others, static_cast<double>(exponent));
    const double mean = static_cast<double>(node.ValueSum() - b.own_value) /
                        (static_cast<double>(kValueScale) * others);
    expected[b.slot].weighted_error += weight * (mean - b.nn_value);
    expected[b.slot].weight += weight;
    ++with_weight;
  }
  EXPECT_GT(with_weight, 10);
  for (std::uint32_t slot = 1; slot <= table.slots(); ++slot) {
    const BiasContribution got = table.sums(slot);
    const BiasContribution want = expected.count(slot) ? expected[slot] : BiasContribution{};
    EXPECT_NEAR(got.weight, want.weight, 1e-9 * (1 + want.weight)) << "slot " << slot;
    EXPECT_NEAR(got.weighted_error, want.weighted_error, 1e-9 * (1 + want.weight))
        << "slot " << slot;
  }
}

// A stand-in network: a uniform policy and no draws; the value is 0 for every position
// but those the caller marks, where the mover into the position is `bias` better off.
class MarkedBiasEvaluator : public Evaluator {
 public:
  explicit MarkedBiasEvaluator(float bias) : bias_(bias) {}
  void Submit(EvalBatch& batch) override {
    batch.Restart();
    batch.outputs().resize(batch.size());
    for (int i = 0; i < batch.size(); ++i) {
      EvalOutput& out = batch.outputs()[i];
      SetUniformPolicy(batch.positions()[i], out);
      const float value = marked ? -bias_ : 0.0f;  // for the side to move
      out.win = (1 + value) / 2;
      out.loss = (1 - value) / 2;
      out.draw = 0;
    }
    batch.MarkDone();
  }
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }
  bool marked = false;  // the next batch's value is biased

 private:
  float bias_;
};

// The network overrates one context by 0.4: whenever black plays the context's move
// with its neighbourhood (found where it first occurs in the search), its value is 0.4
// too high for black, and every other value is exact (0). One playout at a time, the
// test reads the bucket's bias before each leaf is evaluated and checks the value the
// leaf backs up: the network's value moved by lambda times that bias, exactly. The
// bucket's bias itself is the weighted mean of its nodes' errors, recomputed from the
// tree, and comes to -0.4.
TEST(ValueBias, TheSearchLearnsAContextsBiasAndCorrectsItsLeaves) {
  constexpr float kBias = 0.4f, kLambda = 0.35f;
  SearchParams params;
  params.solver_empties = 0;
  params.value_bias = kLambda;
  MarkedBiasEvaluator eval(kBias);
  Tree tree(Position::Standard(8), 1 << 16);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 1500;
  search.Begin(limits);
  search.SetOneThread();
  ASSERT_NE(tree.value_bias(), nullptr);
  ValueBiasTable& table = *tree.value_bias();
  // The context: that of the first black move to c4 at the search's third ply.
  std::uint32_t context = 0;
  EvalBatch batch;
  LeafBuffer leaves;
  int context_nodes = 0, corrected = 0;
  while (!search.Done()) {
    batch.Clear();
    leaves.Clear();
    search.Gather(batch, leaves, 1);
    ASSERT_EQ(leaves.size(), 1u);
    const PendingLeaf& leaf = leaves[0];
    const std::uint32_t index = leaf.path.back();
    const core::Square move = tree.node(index).move;
    const std::uint32_t key = ValueBiasKey(leaf.position, move);
    if (context == 0 && leaf.path.size() == 4 && move == Sq("c4")) context = key;
    eval.marked = context != 0 && key == context;
    eval.Evaluate(batch);
    const std::uint32_t slot = table.Find(key);
    const double bucket_bias = table.Bias(slot);
    search.Apply(batch, 0, leaves);
    const NodeBias& b = tree.bias_nodes()[index];
    ASSERT_EQ(b.slot, slot);
    // The network's value for the mover into the leaf (0.4 or 0), and the value it backs
    // up: moved by lambda times the bucket's bias, the draw probability (0) kept.
    const EvalOutput& out = batch.output(0);
    const float nn = out.loss - out.win;
    EXPECT_NEAR(nn, eval.marked ? kBias : 0.0f, 1e-6);
    EXPECT_EQ(b.nn_value, nn);
    const float decisive = out.loss + out.win;
    const float value =
        std::clamp(nn + kLambda * static_cast<float>(bucket_bias), -decisive, decisive);
    EXPECT_EQ(b.own_value, Fixed((decisive + value) / 2) - Fixed((decisive - value) / 2));
    EXPECT_EQ(tree.node(index).ValueSum(), b.own_value);
    if (eval.marked) {
      ++context_nodes;
      corrected += bucket_bias < 0;
    }
  }
  search.Finish(0);
  ExpectTableMatchesTheTree(tree, params.value_bias_exponent);
  ASSERT_NE(context, 0u);
  const std::uint32_t slot = table.Find(context);
  const double learnt = table.Bias(slot);
  std::printf("context nodes %d, corrected %d, learnt bias %.4f\n", context_nodes, corrected,
              learnt);
  EXPECT_GE(context_nodes, 5);
  // All but those expanded before any of the context's nodes had a child visited.
  EXPECT_GE(corrected, context_nodes - 2);
  // Its nodes' subtrees hold exact values (0, and no move of the context: its square is
  // taken), so each node's error, and the bucket's mean, is -0.4.
  EXPECT_NEAR(learnt, -kBias, 0.02);
}

// Its state survives tree reuse unchanged, node by node; Reset() (a new game) clears it.
TEST(ValueBias, TreeReuseKeepsTheNodesStateAndResetClearsTheTable) {
  SearchParams params;
  params.solver_empties = 0;
  params.value_bias = 0.35f;
  HashedEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 16);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 800;
  const SearchResult r = RunSearch(search, eval, limits);
  ExpectTableMatchesTheTree(tree, params.value_bias_exponent);
  // The chosen child's subtree, by move sequence.
  std::map<std::vector<int>, NodeBias> before;
  auto walk = [&](auto&& self, std::uint32_t index, std::vector<int> moves,
                  std::map<std::vector<int>, NodeBias>& out) -> void {
    const Node& node = tree.node(index);
    const NodeBias& b = tree.bias_nodes()[index];
    out[moves] = b;
    if (node.state.load() != NodeState::kExpanded) return;
    for (int i = 0; i < node.num_children; ++i) {
      std::vector<int> next = moves;
      next.push_back(tree.node(node.first_child + i).move);
      self(self, node.first_child + i, next, out);
    }
  };
  const Node& root = tree.root();
  std::uint32_t chosen = 0;
  for (int i = 0; i < root.num_children; ++i) {
    if (tree.node(root.first_child + i).move == r.move) chosen = root.first_child + i;
  }
  ASSERT_NE(chosen, 0u);
  walk(walk, chosen, {}, before);
  ASSERT_NE(tree.bias_nodes()[chosen].slot, 0u);
  const BiasContribution sums = tree.value_bias()->sums(tree.bias_nodes()[chosen].slot);
  tree.Advance(r.move);
  std::map<std::vector<int>, NodeBias> after;
  walk(walk, tree.root_index(), {}, after);
  ASSERT_EQ(before.size(), after.size());
  int with_bucket = 0;
  for (const auto& [moves, b] : before) {
    const NodeBias& a = after.at(moves);
    EXPECT_EQ(a.slot, b.slot);
    EXPECT_EQ(a.nn_value, b.nn_value);
    EXPECT_EQ(a.own_value, b.own_value);
    with_bucket += b.slot != 0;
  }
  EXPECT_GT(with_bucket, 20);
  EXPECT_EQ(tree.value_bias()->sums(tree.bias_nodes()[tree.root_index()].slot).weight,
            sums.weight);
  RunSearch(search, eval, limits, 1);  // the reused tree searches on
  tree.Reset(Position::Standard(8));
  for (std::uint32_t slot = 1; slot <= tree.value_bias()->slots(); ++slot) {
    ASSERT_EQ(tree.value_bias()->key(slot), 0u);
    ASSERT_EQ(tree.value_bias()->sums(slot).weight, 0.0);
  }
}

// Off (0, the default), a search makes no table and grows the same tree as with the
// defaults; the bit-for-bit check against the recorded search is
// Search.OneThreadSignatureIsUnchanged (search_test.cpp), which runs with it off.
TEST(ValueBias, OffChangesNothing) {
  std::vector<std::vector<std::int64_t>> trees;
  for (float exponent : {0.8f, 0.5f}) {
    SearchParams params;
    params.value_bias = 0;
    params.value_bias_exponent = exponent;
    HashedEvaluator eval;
    Tree tree(Position::Standard(8), 1 << 16);
    TreeSearch search(tree, eval, params, 3);
    SearchLimits limits;
    limits.playouts = 1000;
    RunSearch(search, eval, limits);
    EXPECT_EQ(tree.value_bias(), nullptr);
    EXPECT_EQ(tree.bias_nodes(), nullptr);
    std::vector<std::int64_t> stats;
    for (std::size_t i = 0; i < tree.pool().used(); ++i) {
      stats.push_back(tree.node(i).Visits());
      stats.push_back(tree.node(i).ValueSum());
    }
    trees.push_back(stats);
  }
  EXPECT_EQ(trees[0], trees[1]);
}

// Several threads on one tree with it on: every playout counted, visits add up, and the
// table still holds exactly its nodes' latest errors (the shard locks at work).
TEST(ValueBias, SeveralThreadsKeepTheCountsAndTheTable) {
  SearchParams params;
  params.threads = 4;
  params.leaves_per_batch = 4;
  params.solver_empties = 8;
  params.value_bias = 0.35f;
  HashedEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 20);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 20000;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_EQ(r.playouts, 20000u);
  std::uint32_t root_visits = 0;
  const Node& root = tree.root();
  for (int i = 0; i < root.num_children; ++i) root_visits += tree.node(root.first_child + i).Visits();
  EXPECT_EQ(root_visits, 20000u);
  ExpectTableMatchesTheTree(tree, params.value_bias_exponent);
}

}  // namespace
}  // namespace othello::mcts
