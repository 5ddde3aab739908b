// othello-zero verify: the perfect-play check of a player (arena/perfect_play.h): from
// the first ply the exact solver proves, does every move the player makes, as either
// colour against any reply, keep the game's value?
#include <iostream>

#include "arena/perfect_play.h"
#include "arena/player_spec.h"
#include "cli/commands.h"
#include "cli/play_model.h"
#include "core/file_io.h"
#include "core/notation.h"

#include <nlohmann/json.hpp>

namespace othello::cli {
namespace {

struct VerifyOptions {
  std::string player;
  int size = 0;  // 0: the model's (8 without a model)
  double prove_seconds = 10;
  int start_ply = -1;
  std::uint64_t max_positions = 1000000;
  std::string replies = "all";
  std::string value = "wld";
  std::size_t hash_mb = 256;
  std::uint64_t visits = play::kArenaVisits.value;
  std::string json;
};

std::string JsonReport(const arena::PerfectPlayReport& report, const std::string& player) {
  nlohmann::json colours = nlohmann::json::array();
  for (const arena::PerfectPlayColour& c : report.colours) {
    colours.push_back({{"colour", std::string(core::ColorName(c.colour))},
                       {"checked", c.checked},
                       {"mistakes", c.mistakes},
                       {"unproven", c.unproven},
                       {"complete", c.complete}});
  }
  nlohmann::json mistakes = nlohmann::json::array();
  for (const arena::PerfectPlayMistake& m : report.mistakes) {
    mistakes.push_back({{"colour", std::string(core::ColorName(m.colour))},
                        {"after", m.transcript},
                        {"move", m.move},
                        {"before", m.before},
                        {"after_value", m.after}});
  }
  return nlohmann::json{{"player", player},
                        {"start_ply", report.start_ply},
                        {"start_empties", report.start_empties},
                        {"start_line", report.start_line},
                        {"start_value_black", report.start_value},
                        {"replies", report.optimal_replies ? "optimal" : "all"},
                        {"value", report.exact_score ? "score" : "wld"},
                        {"colours", colours},
                        {"mistakes", mistakes},
                        {"perfect", report.Perfect()}}
      .dump(2);
}

void RunVerify(const VerifyOptions& opt) {
  arena::PlayerDefaults defaults;
  defaults.load_model = BuildModelLoader();
  defaults.visits = opt.visits;
  const arena::ArenaPlayer player = arena::MakeArenaPlayer(opt.player, defaults);
  arena::PerfectPlayOptions options;
  if (player.trained) {
    options.rules.size = player.trained->size;
    options.rules.anti = player.trained->anti;
  }
  if (opt.size) {
    if (player.trained && player.trained->size != opt.size) {
      throw CliError("--size " + std::to_string(opt.size) + ": the model plays " +
                     std::to_string(player.trained->size) + "x" +
                     std::to_string(player.trained->size));
    }
    options.rules.size = opt.size;
  }
  options.prove_seconds = opt.prove_seconds;
  if (opt.start_ply >= 0) options.start_ply = opt.start_ply;
  options.max_positions = opt.max_positions;
  options.optimal_replies = opt.replies == "optimal";
  options.exact_score = opt.value == "score";
  options.solver_megabytes = opt.hash_mb;
  const arena::PerfectPlayReport report = arena::CheckPerfectPlay(player, options, &std::cerr);
  std::cout << arena::FormatPerfectPlay(report);
  if (!opt.json.empty()) {
    core::WriteFileAtomically(opt.json, JsonReport(report, player.name) + "\n", "--json");
  }
  if (!report.Perfect()) throw CliError("the player's play was not shown perfect (see above)");
}

}  // namespace

void RegisterVerify(CLI::App& app) {
  auto opt = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Perfect-play check: from the first ply the exact solver proves, every move the player "
      "makes, as either colour against any reply, must keep the game's value");
  cmd->add_option("--player", opt->player,
                  "The player (an arena player spec: model:FILE[,visits=N], ab:D, ...)")
      ->required();
  cmd->add_option("--size", opt->size, "Board size (default: the model's; 8 otherwise)")
      ->check(CLI::IsMember({4, 6, 8, 10}));
  cmd->add_option("--prove-seconds", opt->prove_seconds,
                  "Seconds per solver call; the start is the first ply of the player's own "
                  "game proven within them")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--start-ply", opt->start_ply, "Start at this ply instead")
      ->check(CLI::Range(0, 200));
  cmd->add_option("--max-positions", opt->max_positions,
                  "The player's positions walked per colour at most")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  cmd->add_option("--replies", opt->replies,
                  "The other side's replies walked: all (every legal reply), or optimal "
                  "(only those keeping its value: the check against any perfect opponent)")
      ->check(CLI::IsMember({"all", "optimal"}));
  cmd->add_option("--value", opt->value,
                  "The value each move must keep: wld (win/draw/loss) or score (the exact "
                  "final disc margin; the optimal replies then keep the other side's margin)")
      ->check(CLI::IsMember({"wld", "score"}));
  cmd->add_option("--hash-mb", opt->hash_mb, "Solver transposition table (MiB)")
      ->check(CLI::Range(1, 1 << 16));
  AddSetting(*cmd, play::kArenaVisits, opt->visits);
  cmd->add_option("--json", opt->json, "Write the report as JSON to this file");
  cmd->callback([opt] { RunVerify(*opt); });
}

}  // namespace othello::cli
