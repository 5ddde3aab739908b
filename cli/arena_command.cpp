// othello-zero arena: round-robin matches between players (arena/arena.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "core/file_io.h"
#include "core/rules.h"
#include "arena/arena.h"
#include "arena/player_spec.h"
#include "play/search_player.h"

namespace othello::cli {
namespace {

// "visits, time, ...": a model player's keys.
std::string ModelKeysText() {
  std::string text;
  for (const std::string& key : arena::ModelPlayerKeys()) text += (text.empty() ? "" : ", ") + key;
  return text;
}

// The defaults are the arena's and the player specs' own (arena/arena.h, player_spec.h).
struct ArenaCommandOptions {
  std::vector<std::string> players;
  int games = arena::ArenaOptions{}.games;
  std::string openings = arena::ArenaOptions{}.openings;
  int size = 0;  // 0: the model players' (8 without models)
  bool anti = false;
  int parallel = arena::ArenaOptions{}.parallel;
  bool gauntlet = false;
  std::string time;
  std::string out_dir;
  std::string json;
  std::uint64_t visits = arena::PlayerDefaults{}.visits;
  std::string device = arena::PlayerDefaults{}.device;
  double engine_timeout = arena::PlayerDefaults{}.engine_timeout_seconds;
  int nboard_depth = arena::PlayerDefaults{}.nboard_depth;
  std::uint64_t seed = arena::ArenaOptions{}.seed;
};

void RunArenaCommand(const ArenaCommandOptions& opt) {
  arena::PlayerDefaults defaults;
  defaults.load_model = BuildModelLoader();
  defaults.visits = opt.visits;
  defaults.device = opt.device;
  defaults.engine_timeout_seconds = opt.engine_timeout;
  defaults.nboard_depth = opt.nboard_depth;
  const std::vector<arena::ArenaPlayer> players = arena::MakeArenaPlayers(opt.players, defaults);
  arena::ArenaOptions options;
  // The game the models were trained for, unless given (RunArena refuses a mismatch).
  for (const arena::ArenaPlayer& player : players) {
    if (player.trained) {
      options.rules.size = player.trained->size;
      options.rules.anti = player.trained->anti;
      break;
    }
  }
  if (opt.size) options.rules.size = opt.size;
  if (opt.anti) options.rules.anti = true;
  options.games = opt.games;
  options.openings = opt.openings;
  options.parallel = opt.parallel;
  options.gauntlet = opt.gauntlet;
  options.out_dir = opt.out_dir;
  options.seed = opt.seed;
  if (!opt.time.empty()) {
    auto time = play::ParseTimeControl(opt.time);
    if (!time) throw CliError("--time: " + time.error());
    options.time = *time;
  }
  const arena::ArenaSummary summary = arena::RunArena(players, options, std::cerr);
  std::cout << arena::FormatArenaTable(summary);
  if (!opt.json.empty()) {
    core::WriteFileAtomically(opt.json, arena::ArenaJson(summary, options) + "\n", "--json");
  }
  if (!opt.out_dir.empty()) std::cout << "games appended to " << arena::GamesFile(opt.out_dir) << "\n";
}

}  // namespace

void RegisterArena(CLI::App& app) {
  auto opt = std::make_shared<ArenaCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "arena",
      "Round-robin matches between players; every opening is played twice with colours swapped");
  cmd->add_option("--player", opt->players,
                  "A player (repeat, at least two): random, greedy, alphabeta:D[,solver=E], "
                  "model:FILE[,KEY=V...] (KEY: " + ModelKeysText() +
                      "; docs/evaluation.md; FILE: an exported model, or a checkpoint in a "
                      "LibTorch build), "
                  "gtp:COMMAND, nboard:COMMAND; NAME@ in front names it (two players may not share a "
                  "name; models with the same file name are told apart by their folders)")
      ->required();
  cmd->add_option("--games", opt->games, "Games per pair (rounded up to even)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--openings", opt->openings,
                  "random:K (K random plies) or a file with one transcript per line")
      ->capture_default_str();
  cmd->add_option("--size", opt->size,
                  "Board size (6, 8 or 10; default: the models', else 8; GTP engines need the "
                  "standard start)");
  cmd->add_flag("--anti", opt->anti, "Anti-Othello scoring (fewest discs wins; default: the models')");
  cmd->add_option("--parallel", opt->parallel, "Games played at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--gauntlet", opt->gauntlet,
               "Only the first player against each of the others (not a round robin)");
  cmd->add_option("--time", opt->time,
                  "Time control MAIN+INC in seconds per player (e.g. 60+1; default: untimed)");
  cmd->add_option("--out", opt->out_dir, "Directory for the games (GGF, appended to games.ggf)");
  cmd->add_option("--json", opt->json, "Write the results as JSON to this file");
  AddSetting(*cmd, play::kArenaVisits, opt->visits);
  AddDeviceOption(*cmd, opt->device, "Default device of model players");
  cmd->add_option("--engine-timeout", opt->engine_timeout,
                  "Untimed games: seconds an outside engine may take for one move")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1e6));
  cmd->add_option("--nboard-depth", opt->nboard_depth, "Search depth sent to NBoard engines")
      ->capture_default_str()
      ->check(CLI::Range(1, 60));
  cmd->add_option("--seed", opt->seed, "Seed of the openings and the players")
      ->capture_default_str();
  cmd->callback([opt] { RunArenaCommand(*opt); });
}

}  // namespace othello::cli
