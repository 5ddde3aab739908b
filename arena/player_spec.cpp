#include "arena/player_spec.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <type_traits>
#include <vector>

#include "arena/run_layout.h"
#include "play/basic_players.h"
#include "play/engine_players.h"
#include "mcts/search_options.h"
#include "play/play_settings.h"
#include "play/search_player.h"

namespace othello::arena {

namespace {

[[noreturn]] void Fail(const std::string& spec, const std::string& why) {
  throw core::InputError("player '" + spec + "': " + why);
}

double Number(const std::string& spec, const std::string& key, const std::string& value,
              double low, double high) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !std::isfinite(v) || v < low || v > high) {
    std::ostringstream range;  // "[0, 2]", not to_string's "[0.000000, 2.000000]"
    range.precision(15);       // "1000000", not "1e+06"
    range << "[" << low << ", " << high << "]";
    Fail(spec, key + "=" + value + " is not a number in " + range.str());
  }
  return v;
}

// `value` of a play setting's key: a number in its range, whole for a whole-number one.
template <typename T>
T SettingValue(const std::string& spec, const play::Setting<T>& setting,
               const std::string& value) {
  const double v = Number(spec, setting.key, value, static_cast<double>(setting.low),
                          static_cast<double>(setting.high));
  if (std::is_integral_v<T> && v != std::floor(v)) {
    Fail(spec, std::string(setting.key) + "=" + value + " is not a whole number");
  }
  return static_cast<T>(v);
}

// `value` of a search setting's key, set in `params`.
void SetSearchOption(const std::string& spec, const mcts::SearchOption& option,
                     const std::string& value, mcts::SearchParams& params) {
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  const double v = value.empty() || *end ? std::nan("") : parsed;  // NaN: "not a number in"
  const std::string why = option.Check(v);
  if (!why.empty()) Fail(spec, std::string(option.spec_key) + "=" + value + " " + why);
  option.Set(params, v);
}

// "a=1,b=2" into a map; every key must be known.
std::map<std::string, std::string> Options(const std::string& spec, const std::string& text,
                                           const std::vector<std::string>& known) {
  std::map<std::string, std::string> options;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) Fail(spec, "option '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      Fail(spec, "unknown option '" + key + "' (known: " + list + ")");
    }
    options[key] = item.substr(eq + 1);
    begin = end + 1;
  }
  return options;
}

std::string EngineName(const std::string& command) {
  const std::size_t space = command.find(' ');
  const std::string program = command.substr(0, space);
  return std::filesystem::path(program).filename().string() +
         (space == std::string::npos ? "" : command.substr(space));
}

// `label` stands for the file in the default name (ModelLabels).
ArenaPlayer ModelPlayer(const std::string& spec, const std::string& path,
                        const std::string& option_text, const PlayerDefaults& defaults,
                        const std::string& label) {
  const auto options = Options(spec, option_text, ModelPlayerKeys());
  std::uint64_t visits = defaults.visits;
  double seconds = play::kMoveSeconds.value;
  for (const auto& [key, value] : options) {
    if (key == play::kArenaVisits.key) visits = SettingValue(spec, play::kArenaVisits, value);
    if (key == play::kMoveSeconds.key) seconds = SettingValue(spec, play::kMoveSeconds, value);
  }
  if (!play::HasLimit(visits, seconds)) {
    Fail(spec, "give visits=N or time=SECONDS (a search needs a limit)");
  }
  play::SearchPlayerOptions search = play::PlaySearch(visits, seconds);
  std::string device = defaults.device;
  for (const auto& [key, value] : options) {
    if (const mcts::SearchOption* option = mcts::SearchOptionForSpecKey(key)) {
      SetSearchOption(spec, *option, value, search.params);
    }
    if (key == play::kRootSolve.key) {
      search.root_solve_empties = SettingValue(spec, play::kRootSolve, value);
    }
    if (key == "device") device = value;
  }
  if (search.visits == 1) {  // the raw policy
    search.params.solver_empties = 0;
    search.root_solve_empties = 0;
  }
  if (!defaults.load_model) Fail(spec, "this program cannot load models");
  nn::EvaluatorOptions model_options;
  model_options.device = device;
  nn::LoadedModel model;
  try {
    model = defaults.load_model(path, model_options);
  } catch (const core::InputError& e) {
    Fail(spec, e.what());
  }
  const std::string name = label +
                           (search.visits ? "/v" + std::to_string(search.visits) : "") +
                           (search.seconds_per_move > 0 ? "/" + options.at("time") + "s" : "");
  ArenaPlayer player = SearchArenaPlayer(name, model.evaluator, search);
  player.trained = model.rules;
  return player;
}

// A spec taken apart: [NAME@]KIND[:ARG][,OPTIONS] (for gtp and nboard the whole `tail`
// after the colon is the command line).
struct ParsedSpec {
  std::string text;         // the spec as given, for messages
  std::string name;         // "": the default name
  std::string kind;
  bool has_arg = false;
  std::string arg;          // e.g. model:PATH's path
  std::string option_text;  // "a=1,b=2"
  std::string tail;         // everything after the kind's ':' or ','
};

ParsedSpec ParseSpec(const std::string& spec) {
  ParsedSpec parsed;
  parsed.text = spec;
  std::string rest = spec;
  const std::size_t at = spec.find('@'), colon = spec.find(':');
  if (at != std::string::npos && (colon == std::string::npos || at < colon)) {
    parsed.name = spec.substr(0, at);
    rest = spec.substr(at + 1);
    if (parsed.name.empty()) Fail(spec, "the name before '@' is empty");
  }
  const std::size_t kind_end = rest.find_first_of(":,");
  parsed.kind = rest.substr(0, kind_end);
  parsed.tail = kind_end == std::string::npos ? "" : rest.substr(kind_end + 1);
  parsed.has_arg = kind_end != std::string::npos && rest[kind_end] == ':';
  const std::size_t comma = parsed.tail.find(',');
  parsed.arg = parsed.has_arg ? parsed.tail.substr(0, comma) : "";
  parsed.option_text = !parsed.has_arg              ? parsed.tail
                       : comma == std::string::npos ? ""
                                                    : parsed.tail.substr(comma + 1);
  return parsed;
}

bool IsDefaultNamedModel(const ParsedSpec& spec) {
  return spec.kind == "model" && spec.name.empty() && !spec.arg.empty();
}

// The folders and the stem of `path`, made absolute, less a "checkpoints" folder holding
// the file (a run's checkpoints are then known by the run's folder).
std::vector<std::string> PathParts(const std::string& path) {
  const std::filesystem::path full = std::filesystem::absolute(path).lexically_normal();
  std::vector<std::string> parts;
  for (const std::filesystem::path& part : full.parent_path().relative_path()) {
    if (!part.empty()) parts.push_back(part.string());
  }
  if (!parts.empty() && parts.back() == run_layout::kCheckpoints) parts.pop_back();
  parts.push_back(full.stem().string());
  return parts;
}

// The last `count` of `parts`, joined with '/'.
std::string Tail(const std::vector<std::string>& parts, std::size_t count) {
  std::string tail;
  for (std::size_t i = parts.size() - std::min(count, parts.size()); i < parts.size(); ++i) {
    tail += (tail.empty() ? "" : "/") + parts[i];
  }
  return tail;
}

// Refuses two players of one name: results, game records and ratings are kept by name.
void CheckDistinctNames(const std::vector<std::string>& specs,
                        const std::vector<ArenaPlayer>& players) {
  for (std::size_t i = 0; i < players.size(); ++i) {
    for (std::size_t j = i + 1; j < players.size(); ++j) {
      if (players[i].name != players[j].name) continue;
      throw core::InputError("players '" + specs[i] + "' and '" + specs[j] +
                             "' are both named '" + players[i].name +
                             "': give them different names with NAME@SPEC (e.g. 'first@" +
                             specs[i] + "' and 'second@" + specs[j] + "')");
    }
  }
}

ArenaPlayer BasicPlayer(const ParsedSpec& parsed) {
  const std::string kind = parsed.kind;
  if (parsed.has_arg || !parsed.option_text.empty()) {
    Fail(parsed.text, kind + " takes no argument or options");
  }
  ArenaPlayer player;
  player.name = kind;
  player.make = [kind](std::uint64_t seed) -> std::unique_ptr<play::Player> {
    if (kind == "random") return std::make_unique<play::RandomPlayer>(seed);
    return std::make_unique<play::GreedyPlayer>(seed);
  };
  return player;
}

ArenaPlayer AlphaBetaSpecPlayer(const ParsedSpec& parsed) {
  const std::string& spec = parsed.text;
  const double number = Number(spec, "depth", parsed.arg, 1, 12);
  const int depth = static_cast<int>(number);
  if (depth != number) Fail(spec, "the depth must be a whole number");
  int solve_empties = 0;
  const mcts::SearchOption& solver = *mcts::FindSearchOption("solver_empties");
  for (const auto& [key, value] : Options(spec, parsed.option_text, {solver.spec_key})) {
    mcts::SearchParams params;  // the row's range and check, as a model player's solver=
    SetSearchOption(spec, solver, value, params);
    solve_empties = params.solver_empties;
  }
  ArenaPlayer player;
  player.name = play::AlphaBetaPlayer::AlphaBetaName(depth, solve_empties);
  player.make = [depth, solve_empties](std::uint64_t seed) {
    return std::make_unique<play::AlphaBetaPlayer>(depth, seed, solve_empties);
  };
  return player;
}

bool IsExecutableFile(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

// Why the program the engine's command line starts with cannot be run ("" when it can,
// or when the line starts with shell syntax, left to the shell).
std::string MissingProgram(const std::string& command) {
  const std::size_t begin = command.find_first_not_of(' ');
  const std::string program = command.substr(begin, command.find(' ', begin) - begin);
  if (program.find_first_of("=\"'$`\\~") != std::string::npos) return "";
  if (program.find('/') != std::string::npos) {
    return IsExecutableFile(program) ? "" : "'" + program + "' is not an executable file";
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (IsExecutableFile(dir + "/" + program)) return "";
    start = end + 1;
  }
  return "'" + program + "' is not on PATH (give its path)";
}

ArenaPlayer EngineSpecPlayer(const ParsedSpec& parsed, const PlayerDefaults& defaults) {
  const std::string command = parsed.has_arg ? parsed.tail : "";
  if (command.find_first_not_of(' ') == std::string::npos) {
    Fail(parsed.text, parsed.kind + " needs the engine's command line: " + parsed.kind + ":COMMAND");
  }
  const std::string missing = MissingProgram(command);
  if (!missing.empty()) Fail(parsed.text, "the engine's program " + missing);
  play::EngineOptions engine;
  engine.name = EngineName(command);
  engine.move_timeout_seconds = defaults.engine_timeout_seconds;
  engine.nboard_depth = defaults.nboard_depth;
  ArenaPlayer player;
  player.name = engine.name;
  const bool gtp = parsed.kind == "gtp";
  player.make = [gtp, command, engine](std::uint64_t) -> std::unique_ptr<play::Player> {
    if (gtp) return std::make_unique<play::GtpPlayer>(command, engine);
    return std::make_unique<play::NBoardPlayer>(command, engine);
  };
  return player;
}

// `player` under `name` (engines and searches record the name they are given).
ArenaPlayer Renamed(ArenaPlayer player, const std::string& name) {
  player.name = name;
  auto make = player.make;
  player.make = [make, name](std::uint64_t seed) {
    return std::unique_ptr<play::Player>(new play::NamedPlayer(make(seed), name));
  };
  return player;
}

// The player `parsed` describes; a model player is named `model_label` and its limits
// unless the spec names it.
ArenaPlayer BuildPlayer(const ParsedSpec& parsed, const PlayerDefaults& defaults,
                        const std::string& model_label) {
  const std::string& kind = parsed.kind;
  ArenaPlayer player;
  if (kind == "random" || kind == "greedy") {
    player = BasicPlayer(parsed);
  } else if (kind == "alphabeta" || kind == "ab") {
    player = AlphaBetaSpecPlayer(parsed);
  } else if (kind == "model") {
    if (parsed.arg.empty()) {
      Fail(parsed.text, "model needs a model file or checkpoint: model:PATH[,visits=N]");
    }
    player = ModelPlayer(parsed.text, parsed.arg, parsed.option_text, defaults, model_label);
  } else if (kind == "gtp" || kind == "nboard") {
    player = EngineSpecPlayer(parsed, defaults);
  } else {
    Fail(parsed.text, "unknown player kind '" + kind +
                          "' (use random, greedy, alphabeta:D, model:PATH, gtp:COMMAND or "
                          "nboard:COMMAND)");
  }
  return parsed.name.empty() ? player : Renamed(std::move(player), parsed.name);
}

}  // namespace

std::vector<play::SettingText> ModelPlayerKeyTexts() {
  std::vector<play::SettingText> rows;
  for (const char* name : {play::kArenaVisits.name, play::kMoveSeconds.name, play::kRootSolve.name}) {
    for (const play::SettingText& setting : play::PlaySettingsText()) {
      if (setting.name == name) rows.push_back(setting);
    }
  }
  const mcts::SearchParams play = play::PlaySearch(play::kArenaVisits.value).params;
  for (const mcts::SearchOption& option : mcts::SearchOptions()) {
    if (!option.spec_key) continue;
    std::ostringstream default_text;
    default_text << option.Get(play);
    rows.push_back({option.name, "", option.spec_key, default_text.str(), option.RangeText(),
                    option.help});
  }
  rows.push_back({"device", "--device", "device", "auto", "auto, cpu, cuda, cuda:N",
                  "where the network runs (an exported model: the CPU only)"});
  return rows;
}

std::vector<std::string> ModelPlayerKeys() {
  std::vector<std::string> keys;
  for (const play::SettingText& row : ModelPlayerKeyTexts()) keys.push_back(row.key);
  return keys;
}

ArenaPlayer SearchArenaPlayer(const std::string& name, std::shared_ptr<mcts::Evaluator> evaluator,
                              const play::SearchPlayerOptions& options) {
  ArenaPlayer player;
  player.name = name;
  player.make = [name, evaluator, options](std::uint64_t seed) {
    play::SearchPlayerOptions o = options;
    o.name = name;
    o.seed = seed;
    return std::make_unique<play::SearchPlayer>(*evaluator, o);
  };
  return player;
}

ArenaPlayer MakeArenaPlayer(const std::string& spec, const PlayerDefaults& defaults) {
  const ParsedSpec parsed = ParseSpec(spec);
  const bool labelled = IsDefaultNamedModel(parsed);
  return BuildPlayer(parsed, defaults, labelled ? ModelLabels({parsed.arg}).front() : "");
}

std::vector<ArenaPlayer> MakeArenaPlayers(const std::vector<std::string>& specs,
                                          const PlayerDefaults& defaults) {
  std::vector<ParsedSpec> parsed;
  std::vector<std::string> model_paths;  // of the model players named by default
  for (const std::string& spec : specs) {
    parsed.push_back(ParseSpec(spec));
    if (IsDefaultNamedModel(parsed.back())) model_paths.push_back(parsed.back().arg);
  }
  const std::vector<std::string> labels = ModelLabels(model_paths);
  std::vector<ArenaPlayer> players;
  std::size_t next_label = 0;
  for (const ParsedSpec& spec : parsed) {
    const bool labelled = IsDefaultNamedModel(spec);
    players.push_back(BuildPlayer(spec, defaults, labelled ? labels[next_label++] : ""));
  }
  CheckDistinctNames(specs, players);
  return players;
}

std::vector<std::string> ModelLabels(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& path : paths) parts.push_back(PathParts(path));
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    // Tails that differ stay different when lengthened, so one pass over the others does.
    std::size_t depth = 1;
    for (std::size_t j = 0; j < parts.size(); ++j) {
      if (parts[j] == parts[i]) continue;
      while (Tail(parts[i], depth) == Tail(parts[j], depth)) ++depth;
    }
    labels.push_back(Tail(parts[i], depth));
  }
  return labels;
}

}  // namespace othello::arena
