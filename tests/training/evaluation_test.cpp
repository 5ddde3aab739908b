#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "arena/player_spec.h"
#include "nn/checkpoint.h"
#include "nn/model_loader.h"
#include "training/evaluation.h"
#include "training/run_dir.h"

namespace othello::training {
namespace {

TEST(Evaluation, ASearchingPlayerBeatsTheRandomPlayerInTheArena) {
  TrainingConfig config = ParseTrainingConfig("game: {size: 6}\nsearch: {solver_empties: 8}\n",
                                              "test.yaml");
  auto rollouts = std::make_shared<mcts::RolloutEvaluator>(/*rollouts=*/4, false, 1);
  const play::SearchPlayerOptions search = EvaluationSearch(config, 64);
  EXPECT_FALSE(search.params.dirichlet_noise);
  EXPECT_EQ(search.params.temperature_start, 0);
  EXPECT_EQ(EvaluationSearch(config, 1).params.solver_empties, 0);  // the raw policy
  // Play's settings, not self-play's: the solver as play's, whatever search.solver_empties.
  EXPECT_EQ(search.params.solver_empties, play::PlaySearch(64).params.solver_empties);
  EXPECT_EQ(search.params.rules.size, 6);
  // Self-play explores with its own c_puct; evaluations search as play does.
  EXPECT_FLOAT_EQ(config.search.c_puct, 1.5f);
  EXPECT_FLOAT_EQ(search.params.c_puct, mcts::SearchParams{}.c_puct);
  EXPECT_LT(search.params.c_puct, config.search.c_puct);
  arena::ArenaOptions options;
  options.rules = config.rules;
  options.games = 10;
  options.gauntlet = true;
  std::ostringstream log;
  const arena::ArenaSummary summary = arena::RunArena(
      {arena::SearchArenaPlayer("search", rollouts, search), arena::MakeArenaPlayer("random")}, options, log);
  ASSERT_EQ(summary.pairs.size(), 1u);
  EXPECT_EQ(summary.pairs[0].games(), 10);
  EXPECT_GT(summary.pairs[0].Score(), 0.6);
  EXPECT_EQ(StepName(1200), "step-00001200");
}

// Training's evaluations (and the CLI of a LibTorch build) read checkpoints as model players.
TEST(Evaluation, ACheckpointPlaysInTheArenaWithTheRulesItWasTrainedFor) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "oz_eval_ckpt";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  nn::NetConfig tiny;
  tiny.blocks = 1;
  tiny.channels = 8;
  tiny.head_channels = 4;
  tiny.value_hidden = 8;
  nn::OthelloNet net(tiny);
  core::Rules six;
  six.size = 6;
  const std::string path = (dir / "six.ckpt").string();
  nn::SaveCheckpoint(path, net, 3, nullptr, six);
  arena::PlayerDefaults defaults;
  defaults.load_model = nn::LoadModel;
  const arena::ArenaPlayer model = arena::MakeArenaPlayer("model:" + path + ",visits=2", defaults);
  ASSERT_TRUE(model.trained.has_value());
  EXPECT_EQ(model.trained->size, 6);
  arena::ArenaOptions options;  // the arena refuses other boards (tests/arena/arena_test.cpp)
  options.rules.size = 6;
  std::ostringstream log;
  EXPECT_EQ(arena::RunArena({model, arena::MakeArenaPlayer("random")}, options, log).games.size(),
            2u);
  std::filesystem::remove_all(dir);
}

TEST(Evaluation, BadOpponentsAreNamed) {
  TrainingConfig config =
      ParseTrainingConfig("eval: {opponents: [random, 'ab:x']}\n", "test.yaml");
  try {
    CheckpointEvaluation evaluation(config, RunDir("/tmp/unused"));
    FAIL() << "a bad opponent was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("eval.opponents: player 'ab:x'"), std::string::npos)
        << e.what();
  }
}

// eval.ladder: the fixed opponents keep the ladder's ratings and the checkpoint is placed
// among them; the report carries its rating and interval.
TEST(Evaluation, ACheckpointIsPlacedOnTheFixedLadder) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "oz_eval_ladder";
  std::filesystem::remove_all(dir);
  const RunDir run((dir / "run").string());
  std::filesystem::create_directories(run.checkpoints());
  {
    std::ofstream csv(dir / "ladder.csv");
    csv << "player,elo,ci95,games,score\nrandom,0,0,8,0.2\ngreedy,90,0,8,0.8\nunplayed,500,0,8,0.5\n";
  }
  const std::string yaml = "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
                           "eval: {opponents: [random, greedy], games: 4, visits: 1, previous: 0,"
                           " ladder: " + (dir / "ladder.csv").string() + "}\n";
  const TrainingConfig config = ParseTrainingConfig(yaml, "test.yaml");
  nn::OthelloNet net(config.net);
  CheckpointEvaluation evaluation(config, run);
  const EvaluationReport report = evaluation.Evaluate(net, 200, nullptr, 0);
  ASSERT_TRUE(report.json.contains("elo")) << report.json.dump();
  EXPECT_GT(report.json["elo_ci95"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(report.json["ratings"]["random"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(report.json["ratings"]["greedy"].get<double>(), 90);
  EXPECT_FALSE(report.json["ratings"].contains("unplayed"));
  EXPECT_NE(report.text.find("Elo "), std::string::npos) << report.text;
  std::filesystem::remove_all(dir);
}

TEST(Evaluation, TheLadderOpponentsAndTheLadderFile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "oz_eval_config";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "configs");
  {
    std::ofstream yaml(dir / "configs" / "run.yaml");
    yaml << "eval: {opponents: [ladder, random], ladder: ../ladder/ladder.csv}\n";
  }
  const TrainingConfig config = LoadTrainingConfig((dir / "configs" / "run.yaml").string());
  // Relative to the config file's folder.
  EXPECT_EQ(config.eval_ladder, (dir / "ladder" / "ladder.csv").string());
  // The config keeps "ladder" as written: it is expanded when an evaluation starts, so
  // a parsed config does not depend on what this machine has installed.
  EXPECT_EQ(config.eval_opponents, (std::vector<std::string>{"ladder", "random"}));
  std::vector<std::string> expected = LadderOpponents(8, "/x/gtp-rhino");
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(expected.begin(), expected.begin() + 3),
            (std::vector<std::string>{"ab:2", "ab:4", "ab:6"}));
  EXPECT_EQ(expected[3], "rhino1@gtp:/x/gtp-rhino -l 1");
  EXPECT_EQ(LadderOpponents(8, ""), (std::vector<std::string>{"ab:2", "ab:4", "ab:6"}));
  expected = LadderOpponents(8, std::filesystem::exists(kGRhinoPath) ? kGRhinoPath : "");
  expected.push_back("random");
  EXPECT_EQ(EvaluationOpponents(config), expected);
  EXPECT_EQ(LadderOpponents(6, kGRhinoPath),
            (std::vector<std::string>{"random", "greedy", "ab:2", "ab:4"}));
  // The ladder rates 8x8 players only; a missing file is named when evaluation starts.
  EXPECT_THROW(ParseTrainingConfig("game: {size: 6}\neval: {ladder: x.csv}\n", "t.yaml"),
               core::InputError);
  try {
    CheckpointEvaluation evaluation(config, RunDir((dir / "run").string()));
    FAIL() << "a missing ladder file was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("eval.ladder: ladder " + config.eval_ladder),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Evaluation, TheBudgetKeepsEvaluationsWithinTheirShareOfTheRun) {
  EvaluationBudget budget(0.10);
  EXPECT_DOUBLE_EQ(budget.Allowance(50), 5);  // a tenth of the run, from the first one
  EXPECT_TRUE(budget.Allows(50));
  budget.Spent(4, 2);                         // 2 games in 4 s: 2 s a game
  EXPECT_DOUBLE_EQ(budget.Allowance(50), 1);
  EXPECT_FALSE(budget.Allows(50));            // 1 s left: less than a game
  EXPECT_FALSE(budget.Allows(59));            // 1.9 s
  EXPECT_TRUE(budget.Allows(60));             // 2 s: a game's time
  EXPECT_DOUBLE_EQ(budget.Allowance(100), 6);
  budget.Spent(6, 3);
  EXPECT_NEAR(budget.Share(100), 0.10, 1e-12);
  EXPECT_NEAR(budget.Allowance(100), 0, 1e-9);
  EXPECT_FALSE(budget.Allows(100));
  EXPECT_EQ(budget.skipped(), 3);
  EvaluationBudget unlimited(0);
  unlimited.Spent(1e6, 1);
  EXPECT_TRUE(unlimited.Allows(1));
}

}  // namespace
}  // namespace othello::training
