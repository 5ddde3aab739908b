// othello-zero elo: ratings fitted to every recorded game (arena/elo.h).
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "core/file_io.h"
#include "arena/elo.h"

namespace othello::cli {
namespace {

struct EloCommandOptions {
  std::vector<std::string> paths;
  std::string anchor;
  std::string fixed;
  std::string csv;
  double prior = 1.0;
};

void RunElo(const EloCommandOptions& opt) {
  const auto records = arena::ReadGgfGames(opt.paths);
  arena::EloOptions options;
  options.anchor = opt.anchor;
  if (!opt.fixed.empty()) options.fixed = arena::ReadLadderCsv(opt.fixed);
  options.prior_draws = opt.prior;
  const auto ratings = arena::FitElo(arena::ScoredGames(records), options);
  std::cout << records.size() << " games\n" << arena::FormatLadder(ratings);
  std::string csv = opt.csv;
  if (csv.empty()) {
    const std::filesystem::path first(opt.paths.front());
    csv = ((std::filesystem::is_directory(first) ? first : first.parent_path()) / "elo.csv").string();
  }
  core::WriteFileAtomically(csv, arena::LadderCsv(ratings), "ladder");
  std::cout << "ladder written to " << csv << "\n";
}

}  // namespace

void RegisterElo(CLI::App& app) {
  auto opt = std::make_shared<EloCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "elo", "Elo ratings (Bradley-Terry, maximum likelihood) from every game recorded in GGF files");
  cmd->add_option("paths", opt->paths, "Directories (searched for *.ggf) or GGF files")
      ->required();
  cmd->add_option("--anchor", opt->anchor, "Player rated 0 (default: random if present, else the first)");
  cmd->add_option("--fixed", opt->fixed,
                  "A ladder CSV (as --csv writes) whose players keep their ratings: only the "
                  "others are fitted, on that scale")
      ->excludes(cmd->get_option("--anchor"));
  cmd->add_option("--csv", opt->csv, "Where to write the ladder (default: FIRST_DIR/elo.csv)");
  cmd->add_option("--prior", opt->prior, "Virtual draws between every pair that met")
      ->check(CLI::Range(0.0, 100.0));
  cmd->callback([opt] { RunElo(*opt); });
}

}  // namespace othello::cli
