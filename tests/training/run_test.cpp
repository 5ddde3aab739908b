#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/fault.h"
#include "nn/checkpoint.h"
#include "training/progress_line.h"
#include "training/run.h"
#include "training/run_dir.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

// A tiny 6x6 run that trains a few steps in seconds.
TrainingConfig Tiny(int steps) {
  return ParseTrainingConfig(
      "game: {size: 6}\n"
      "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
      "selfplay: {threads: 1, games_per_thread: 8, leaves_per_game: 2}\n"
      "search: {full_visits: 8, fast_visits: 4, full_search_probability: 0.5, "
      "solver_empties: 4, tree_nodes: 4000}\n"
      "train: {batch_size: 32, min_positions: 64, publish_every: 3, checkpoint_every: 5, "
      "samples_per_position: 4, warmup_steps: 2}\n"
      "replay: {window_min: 500, window_max: 2000, shard_positions: 100}\n"
      "inference: {device: cpu, max_wait_us: 100, cache_entries: 0}\n"
      "eval: {games: 2, visits: 2, opponents: [random, greedy], max_share: 0}\n"
      "run: {steps: " + std::to_string(steps) + "}\n",
      "tiny.yaml");
}

// A run directory under the temporary directory, with nothing there yet.
RunDir AbsentRun(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("oz_run_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  return RunDir(dir.string());
}

int Lines(const fs::path& file) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

TEST(TrainingRun, TrainsEndToEndAndResumes) {
  const RunDir run = AbsentRun("resume");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  const RunSummary first = RunTraining(Tiny(10), run, stop, log, false);
  EXPECT_EQ(first.step, 10);
  EXPECT_GT(first.games, 0u);
  EXPECT_TRUE(fs::exists(run.latest_checkpoint()));
  EXPECT_TRUE(fs::exists(run.checkpoint(10)));
  EXPECT_TRUE(fs::exists(run.checkpoint(5)));
  EXPECT_GE(Lines(run.metrics()), 1);
  // Each checkpoint played random, greedy and the previous checkpoint, with ratings.
  EXPECT_THAT(log.str(), ::testing::HasSubstr("step 10 scores | random"));
  EXPECT_THAT(log.str(), ::testing::HasSubstr("| step-00000005 "));
  EXPECT_THAT(log.str(), ::testing::HasSubstr("| Elo "));
  EXPECT_TRUE(fs::exists(run.eval_games()));
  {
    std::ifstream metrics(run.metrics());
    std::stringstream text;
    text << metrics.rdbuf();
    EXPECT_THAT(text.str(), ::testing::HasSubstr("\"ratings\":{"));
  }
  const nn::Checkpoint saved =
      nn::LoadCheckpoint(run.latest_checkpoint());
  EXPECT_EQ(saved.step, 10);
  EXPECT_TRUE(saved.metadata.contains("rng"));  // the trainer's random state
  EXPECT_GT(saved.metadata.value("seconds", 0.0), 0.0);  // run.minutes counts across resumes
  ASSERT_TRUE(saved.rules.has_value());           // the rules, for export and play
  EXPECT_EQ(saved.rules->size, 6);

  // Started again: the same step count, buffer and games carry on.
  const RunSummary second = RunTraining(Tiny(15), run, stop, log, false);
  EXPECT_EQ(second.step, 15);
  EXPECT_GE(second.games, first.games);
  EXPECT_GE(second.positions, first.positions);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("from step 10"));
  // metrics.jsonl's seconds are the run's time: the resumed session goes on from its
  // checkpoint's, so a curve over minutes spans sessions.
  {
    std::ifstream metrics(run.metrics());
    std::string line, last;
    while (std::getline(metrics, line)) {
      if (!line.empty()) last = line;
    }
    EXPECT_GT(nlohmann::json::parse(last).at("seconds").get<double>(),
              saved.metadata.value("seconds", 0.0));
  }
  fs::remove_all(run.root());
}

// run.minutes is the run's length across resumes: a finished run started again stops at
// once and says how to go on; the cosine schedule over the run's time ends at its floor.
TEST(TrainingRun, RunMinutesCountAcrossResumesAndTheScheduleFollowsThem) {
  const RunDir run = AbsentRun("minutes");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  TrainingConfig config = Tiny(0);
  config.minutes = 0.05;  // 3 seconds
  config.lr_schedule = LrSchedule::kCosine;
  config.lr_schedule_steps = 0;
  const RunSummary first = RunTraining(config, run, stop, log, false);
  EXPECT_GE(first.seconds, 3.0);
  const RunSummary second = RunTraining(config, run, stop, log, false);
  EXPECT_EQ(second.step, first.step);
  EXPECT_LT(second.seconds, 3.0);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("has trained its run.minutes (0.05)"));
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 1000, 1.0), config.learning_rate * 0.05);
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 1000, 0.0), config.learning_rate);
  EXPECT_NEAR(LearningRateAt(config, 1000, 0.5), config.learning_rate * 0.525, 1e-12);
  fs::remove_all(run.root());
}

// The progress line says where the run stands: before training, the positions still to
// generate; with run.minutes, the time left; with run.steps, the steps left.
TEST(TrainingRun, TheProgressLineSaysWhenTrainingStartsAndWhatIsLeft) {
  const RunDir run = AbsentRun("outlook");
  std::atomic<bool> stop{false};
  std::ostringstream waiting;
  TrainingConfig config = Tiny(0);
  config.min_positions = 1000000;  // never reached: the run ends before training
  config.minutes = 0.03;
  RunTraining(config, run, stop, waiting, false);
  EXPECT_THAT(waiting.str(), ::testing::ContainsRegex(
                                 "training starts after [0-9]+ more positions \\([0-9]+ of "
                                 "1000000\\), (in about [0-9hms]+|waiting for the first games)"));
  EXPECT_THAT(waiting.str(), ::testing::Not(::testing::HasSubstr("checkpoint in")));
  fs::remove_all(run.root());

  std::ostringstream timed;
  config.min_positions = 64;
  config.minutes = 0.05;
  RunTraining(config, run, stop, timed, false);
  EXPECT_THAT(timed.str(), ::testing::ContainsRegex("[0-9]+s left of 3s"));
  fs::remove_all(run.root());

  std::ostringstream counted;
  RunTraining(Tiny(4), run, stop, counted, false);
  // What matters first: what is left, the step, positions a second.
  EXPECT_THAT(counted.str(), ::testing::ContainsRegex(
                                 "\\[ *[0-9]+s\\] 0 steps left \\| step 4 \\| [0-9]+ positions/s \\| "
                                 "games [0-9]+ \\|"));
  // The loss's parts add up to it (to the 3 decimals shown).
  std::smatch loss;
  const std::string text = counted.str();
  ASSERT_TRUE(std::regex_search(
      text, loss,
      std::regex("loss ([0-9.]+) = policy ([0-9.]+) \\+ value ([0-9.]+) \\+ other (-?[0-9.]+)")))
      << text;
  EXPECT_NEAR(std::stod(loss[1]), std::stod(loss[2]) + std::stod(loss[3]) + std::stod(loss[4]),
              0.0021)
      << loss[0];
  EXPECT_GT(std::stod(loss[4]), 0) << "the ownership and disc heads' share: " << loss[0];
  fs::remove_all(run.root());
}

// On a terminal the line is cut to its width, whole fields from the end, so that a redraw
// never wraps; the first field is cut to fit when it alone is too wide.
TEST(TrainingRun, TheProgressLineFitsTheTerminal) {
  const std::vector<std::string> fields = {"43m01s left of 1h30m", "step 2228", "34 positions/s",
                                           "games 1753"};
  EXPECT_EQ(FitFields(fields, 200), "43m01s left of 1h30m | step 2228 | 34 positions/s | games 1753");
  const std::string two = "43m01s left of 1h30m | step 2228";
  EXPECT_EQ(FitFields(fields, static_cast<int>(two.size()) + 1), two);   // one column spare
  EXPECT_EQ(FitFields(fields, static_cast<int>(two.size())), "43m01s left of 1h30m");
  EXPECT_EQ(FitFields(fields, 10), "43m01s le");
  EXPECT_EQ(FitFields({}, 80), "");
  for (int columns = 1; columns < 90; ++columns) {
    EXPECT_LT(FitFields(fields, columns).size(), static_cast<std::size_t>(std::max(columns, 2)));
  }
}

TEST(TrainingRun, AKillWhileWritingACheckpointLeavesAnIntactOne) {
  const RunDir run = AbsentRun("killed");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  RunTraining(Tiny(5), run, stop, log, false);
  // A kill during the next write leaves a partial temporary file beside the intact one.
  const std::string tmp = run.latest_checkpoint() + ".tmp";
  std::ofstream(tmp) << "partial checkpoint bytes";
  const RunSummary resumed = RunTraining(Tiny(10), run, stop, log, false);
  EXPECT_EQ(resumed.step, 10);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("from step 5"));
  fs::remove_all(run.root());
}

TEST(TrainingRun, AnotherNetworkOnTheSameRunIsAClearError) {
  const RunDir run = AbsentRun("mismatch");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  RunTraining(Tiny(1), run, stop, log, false);
  TrainingConfig wider = Tiny(2);
  wider.net.channels = 16;
  try {
    RunTraining(wider, run, stop, log, false);
    FAIL() << "a different network resumed";
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("latest.ckpt: network configuration differs: "
                                               "channels: 8 (expected 16)"));
  }
  fs::remove_all(run.root());
}

TEST(TrainingRun, GatingPlaysTheSelfPlayModel) {
  const RunDir run = AbsentRun("gate");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  TrainingConfig config = Tiny(10);
  config.eval_gate = 0.5;
  config.eval_previous = 0;
  RunTraining(config, run, stop, log, false);
  // The first checkpoint is gated against the step-0 model self-play started with.
  EXPECT_THAT(log.str(), ::testing::HasSubstr("step 5 scores"));
  EXPECT_THAT(log.str(), ::testing::HasSubstr("| step-00000000 "));
  EXPECT_THAT(log.str(), ::testing::ContainsRegex("gate (passed|failed)"));
  std::ifstream metrics(run.metrics());
  std::stringstream text;
  text << metrics.rdbuf();
  EXPECT_THAT(text.str(), ::testing::HasSubstr("\"gate\":{\"against\":\"step-00000000\""));
  const bool passed = text.str().find("\"passed\":true") != std::string::npos;
  EXPECT_EQ(fs::exists(run.best_checkpoint()), passed);
  fs::remove_all(run.root());
}

TEST(TrainingRun, ResignationEndsGamesAndIsChecked) {
  const RunDir run = AbsentRun("resign");
  std::atomic<bool> stop{false};
  std::ostringstream log;
  // A threshold no value can stay above: every side resigns at its first moves,
  // except in the check games.
  TrainingConfig config = Tiny(3);
  config.resign = true;
  config.resign_value = 1.0;
  config.resign_moves = 1;
  config.resign_check_fraction = 0.5;
  const RunSummary summary = RunTraining(config, run, stop, log, false);
  EXPECT_EQ(summary.step, 3);
  std::ifstream metrics(run.metrics());
  std::string last, line;
  while (std::getline(metrics, line)) {
    if (line.find("\"resigned\"") != std::string::npos) last = line;
  }
  EXPECT_THAT(last, ::testing::Not(::testing::HasSubstr("\"resigned\":0,")));
  fs::remove_all(run.root());
}

TEST(TrainingRun, StopsWhenAskedAndCheckpoints) {
  const RunDir run = AbsentRun("stop");
  std::atomic<bool> stop{true};  // already set: stop at once, still checkpointing
  std::ostringstream log;
  const RunSummary summary = RunTraining(Tiny(0), run, stop, log, false);
  EXPECT_EQ(summary.step, 0);
  EXPECT_TRUE(fs::exists(run.latest_checkpoint()));
  fs::remove_all(run.root());
}

// Runs `config` on `run` expecting a failure; returns its message.
std::string Failure(const TrainingConfig& config, const RunDir& run, std::ostream& log) {
  std::atomic<bool> stop{false};
  try {
    RunTraining(config, run, stop, log, false);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no failure";
}

std::int64_t LatestStep(const RunDir& run) {
  return nn::LoadCheckpoint(run.latest_checkpoint()).step;
}

// Every failure after self-play has started stops self-play, joins its threads (a
// joinable thread met by the unwinding error would end the process in std::terminate),
// keeps the last checkpoint, names what failed, and the same run resumes afterwards.
TEST(TrainingRun, ACheckpointThatCannotBeWrittenStopsTheRunCleanly) {
  const RunDir run = AbsentRun("unwritable");
  std::ostringstream log;
  std::atomic<bool> stop{false};
  RunTraining(Tiny(5), run, stop, log, false);
  // A folder standing where the checkpoint's temporary file must be: root cannot write
  // it either.
  const std::string blocker = run.checkpoint(10) + ".tmp";
  fs::create_directories(blocker);
  EXPECT_THAT(Failure(Tiny(12), run, log),
              ::testing::ContainsRegex("checkpoint at step 10 failed: checkpoint .*"
                                       "step-00000010.ckpt: cannot create .*step-00000010.ckpt.tmp: "
                                       "Is a directory"));
  EXPECT_EQ(LatestStep(run), 5);
  fs::remove(blocker);
  EXPECT_EQ(RunTraining(Tiny(12), run, stop, log, false).step, 12);
  fs::remove_all(run.root());
}

TEST(TrainingRun, AFullDiskDuringACheckpointKeepsTheLastOne) {
  const RunDir run = AbsentRun("full");
  std::ostringstream log;
  std::atomic<bool> stop{false};
  RunTraining(Tiny(5), run, stop, log, false);
  // The next whole-file write: the model published for actors as the run resumes, a
  // replay shard or a checkpoint.
  core::SetFaults("write@1");
  const std::string failure = Failure(Tiny(10), run, log);
  core::SetFaults("");
  EXPECT_THAT(failure, ::testing::HasSubstr("No space left on device"));
  EXPECT_THAT(failure,
              ::testing::ContainsRegex("(replay shard|checkpoint|model file) .*: cannot write"));
  // A failed checkpoint or model write keeps step 5's; after a failed shard write
  // (self-play's thread) the trainer may still reach and write step 10 before it sees
  // the failure.
  const std::int64_t latest = LatestStep(run);
  if (failure.find("checkpoint") != std::string::npos) {
    EXPECT_EQ(latest, 5);
  } else {
    EXPECT_TRUE(latest == 5 || latest == 10) << latest;
  }
  EXPECT_EQ(RunTraining(Tiny(10), run, stop, log, false).step, 10);
  fs::remove_all(run.root());
}

TEST(TrainingRun, AFailingEvaluatorStopsTheRunCleanly) {
  const RunDir run = AbsentRun("evaluator");
  std::ostringstream log;
  core::SetFaults("evaluate@20");  // during self-play, before the first training step
  const std::string failure = Failure(Tiny(5), run, log);
  core::SetFaults("");
  EXPECT_THAT(failure, ::testing::HasSubstr(
                           "self-play thread 0 failed: network evaluation failed: injected fault"));
  EXPECT_EQ(LatestStep(run), 0);
  std::atomic<bool> stop{false};
  EXPECT_EQ(RunTraining(Tiny(5), run, stop, log, false).step, 5);
  fs::remove_all(run.root());
}

TEST(TrainingRun, AFailingTrainingStepStopsTheRunCleanly) {
  const RunDir run = AbsentRun("step");
  std::ostringstream log;
  core::SetFaults("train.step@7");
  const std::string failure = Failure(Tiny(10), run, log);
  core::SetFaults("");
  EXPECT_THAT(failure, ::testing::HasSubstr("training step 7 failed: injected fault"));
  EXPECT_EQ(LatestStep(run), 5);
  std::atomic<bool> stop{false};
  EXPECT_EQ(RunTraining(Tiny(10), run, stop, log, false).step, 10);
  fs::remove_all(run.root());
}

TEST(TrainingRun, AFailingEvaluationStopsTheRunCleanly) {
  const RunDir run = AbsentRun("evaluation");
  std::ostringstream log;
  fs::create_directories(run.root());
  std::ofstream(run.eval()) << "a file standing where the eval folder must be";
  EXPECT_THAT(Failure(Tiny(5), run, log),
              ::testing::ContainsRegex("evaluation of step 5 failed: .*eval"));
  EXPECT_EQ(LatestStep(run), 5);  // written before the evaluation
  fs::remove(run.eval());
  std::atomic<bool> stop{false};
  EXPECT_EQ(RunTraining(Tiny(5), run, stop, log, false).step, 5);
  fs::remove_all(run.root());
}

TEST(TrainingRun, ATornMetricsLineIsCutOnResume) {
  const RunDir run = AbsentRun("torn");
  std::ostringstream log;
  std::atomic<bool> stop{false};
  RunTraining(Tiny(5), run, stop, log, false);
  const fs::path metrics = run.metrics();
  std::ofstream(metrics, std::ios::app) << "{\"seconds\": 1.5, \"st";  // a kill mid-append
  RunTraining(Tiny(6), run, stop, log, false);
  EXPECT_THAT(log.str(), ::testing::HasSubstr("removed an unfinished last line (20 bytes)"));
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  }
  fs::remove_all(run.root());
}

}  // namespace
}  // namespace othello::training
