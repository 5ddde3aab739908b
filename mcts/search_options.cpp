#include "mcts/search_options.h"

#include <cmath>
#include <sstream>

namespace othello::mcts {

namespace {

using T = SearchOption::Type;
constexpr unsigned kConfig = SearchOption::kInConfig;
constexpr unsigned kPlayer = SearchOption::kInPlayer;
constexpr unsigned kBoth = kConfig | kPlayer;

SearchOption Float(const char* name, const char* spec_key, unsigned where, double low,
                   double high, float SearchParams::*field, const char* help) {
  SearchOption o{name, spec_key, where, T::kFloat, low, high, help};
  o.float_field = field;
  return o;
}

SearchOption Int(const char* name, const char* spec_key, unsigned where, double low, double high,
                 int SearchParams::*field, const char* help) {
  SearchOption o{name, spec_key, where, T::kInt, low, high, help};
  o.int_field = field;
  return o;
}

SearchOption Flag(const char* name, bool SearchParams::*field, const char* help) {
  SearchOption o{name, nullptr, kConfig, T::kBool, 0, 1, help};
  o.bool_field = field;
  return o;
}

SearchOption Count(const char* name, double low, double high,
                   std::uint64_t SearchParams::*field, const char* help) {
  SearchOption o{name, nullptr, kConfig, T::kCount, low, high, help};
  o.count_field = field;
  return o;
}

std::string Number(double v) {
  std::ostringstream text;
  text.precision(15);
  text << v;
  return text.str();
}

std::vector<SearchOption> MakeOptions() {
  using P = SearchParams;
  return {
      Float("c_puct", "cpuct", kBoth, 0.01, 100, &P::c_puct, "PUCT exploration constant"),
      Float("cpuct_stdev_scale", "cpuctstdev", kBoth, 0, 10, &P::cpuct_stdev_scale,
            "c_puct times 1 + this x (stdev / 0.4 - 1), stdev: the spread of the values below "
            "the node (KataGo: 0.85; 0: off)"),
      Float("fpu_reduction", "fpu", kBoth, 0, 2, &P::fpu_reduction,
            "first-play urgency: an unvisited child's value is the parent's minus this x "
            "sqrt(visited prior)"),
      Float("root_fpu_reduction", "rootfpu", kBoth, 0, 2, &P::root_fpu_reduction,
            "the same at the root"),
      Float("score_utility", "score", kBoth, 0, 4, &P::score_utility,
            "the score utility: a child's value in the search is P(win) - P(loss) plus this x "
            "its expected final margin / the board's area (the disc-difference head; the "
            "solver's exact margins), so that among equal values the larger margin is "
            "preferred (0: win/draw/loss alone)"),
      Int("solver_empties", "solver", kBoth, 0, kMaxSolverEmpties, &P::solver_empties,
          "leaves with at most this many empties are solved exactly (0: never)"),
      Count("full_visits", 1, 1 << 20, &P::full_visits,
            "playouts of a full search (noise, policy target)"),
      Count("fast_visits", 1, 1 << 20, &P::fast_visits,
            "playouts of a fast search (no policy target): playout cap randomisation"),
      Float("full_search_probability", nullptr, kConfig, 0, 1, &P::full_search_probability,
            "share of moves searched fully"),
      Flag("dirichlet_noise", &P::dirichlet_noise,
           "Dirichlet noise on the root priors of full searches"),
      Float("dirichlet_total", nullptr, kConfig, 0.01, 1000, &P::dirichlet_total,
            "noise concentration: alpha = total / legal moves"),
      Float("dirichlet_fraction", nullptr, kConfig, 0, 1, &P::dirichlet_fraction,
            "share of the noise in the root priors"),
      Flag("forced_playouts", &P::forced_playouts,
           "KataGo's forced playouts at the root, with policy-target pruning; self-play picks "
           "its move from the pruned visits too"),
      Flag("gumbel", &P::gumbel,
           "Gumbel root selection with sequential halving (instead of PUCT and noise at the "
           "root)"),
      Int("gumbel_actions", nullptr, kConfig, 1, 128, &P::gumbel_actions,
          "Gumbel: actions sampled at the root"),
      Float("temperature_start", nullptr, kConfig, 0, 10, &P::temperature_start,
            "move choice temperature at the first ply (0: most visits)"),
      Float("temperature_end", nullptr, kConfig, 0, 10, &P::temperature_end,
            "... falling towards this"),
      Float("temperature_halflife", nullptr, kConfig, 0.1, 1000, &P::temperature_halflife,
            "... halving the distance every this many plies"),
      Float("root_policy_temperature", nullptr, kConfig, 0.1, 10, &P::root_policy_temperature,
            "a full search's root priors become p^(1/T), renormalised, before the noise "
            "(KataGo's root policy temperature, 1.1 to 1.25 in its self-play); the policy "
            "target and the recorded priors are unchanged"),
      Float("lcb_stdevs", "lcb", kPlayer, 0, 10, &P::lcb_stdevs,
            "the final move by the value's lower confidence bound, this many standard errors "
            "below the mean (0: the most visits)"),
      Float("value_bias", "valuebias", kPlayer, 0, 1, &P::value_bias,
            "KataGo's subtree value-bias correction: a new leaf's value moves by this "
            "fraction of its move's local context's mean error (0: off; KataGo: 0.35)"),
      Int("threads", "threads", kPlayer, 1, 256, &P::threads, "threads on one search tree"),
  };
}

}  // namespace

double SearchOption::Get(const SearchParams& params) const {
  switch (type) {
    case Type::kFloat: return params.*float_field;
    case Type::kInt: return params.*int_field;
    case Type::kBool: return params.*bool_field ? 1 : 0;
    case Type::kCount: return static_cast<double>(params.*count_field);
  }
  return 0;
}

void SearchOption::Set(SearchParams& params, double value) const {
  switch (type) {
    case Type::kFloat: params.*float_field = static_cast<float>(value); break;
    case Type::kInt: params.*int_field = static_cast<int>(value); break;
    case Type::kBool: params.*bool_field = value != 0; break;
    case Type::kCount: params.*count_field = static_cast<std::uint64_t>(value); break;
  }
}

std::string SearchOption::Check(double value) const {
  if (!std::isfinite(value) || value < low || value > high) {
    return "is not a number in [" + Number(low) + ", " + Number(high) + "]";
  }
  if (type != Type::kFloat && value != std::floor(value)) return "is not a whole number";
  return "";
}

std::string SearchOption::RangeText() const {
  if (type == Type::kBool) return "true, false";
  return Number(low) + ".." + Number(high);
}

const std::vector<SearchOption>& SearchOptions() {
  static const std::vector<SearchOption> options = MakeOptions();
  return options;
}

const SearchOption* SearchOptionForSpecKey(std::string_view key) {
  for (const SearchOption& o : SearchOptions()) {
    if (o.spec_key && key == o.spec_key) return &o;
  }
  return nullptr;
}

const SearchOption* FindSearchOption(std::string_view name) {
  for (const SearchOption& o : SearchOptions()) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

}  // namespace othello::mcts
