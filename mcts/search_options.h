#pragma once
// Each search setting a user may give, declared once (as lc0's OptionId): its name, its
// type, its range and one line of help, and the SearchParams field it sets. The default
// is SearchParams{}' (play's); self-play's are training::SelfPlaySearchDefaults().
// Front ends read these rows and copy nothing: training's YAML keys (search.NAME, where
// kInConfig), the arena's player specs (model:PATH,KEY=V, where a spec key is given),
// `othello-zero config` and docs/configuration.md (checked against the rows by
// tests/training/config_test.cpp).
// Thread safety: the table is immutable.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mcts/search.h"

namespace othello::mcts {

struct SearchOption {
  enum class Type { kFloat, kInt, kBool, kCount };
  // Where the setting may be given.
  static constexpr unsigned kInConfig = 1;  // training's YAML: search.NAME
  static constexpr unsigned kInPlayer = 2;  // an arena model player's spec: KEY=V

  const char* name;      // "c_puct"
  const char* spec_key;  // "cpuct": the arena player's key; nullptr: none
  unsigned where;
  Type type;
  double low;
  double high;
  const char* help;
  // The field set, one of these by type.
  float SearchParams::*float_field = nullptr;
  int SearchParams::*int_field = nullptr;
  bool SearchParams::*bool_field = nullptr;
  std::uint64_t SearchParams::*count_field = nullptr;

  double Get(const SearchParams& params) const;
  // Sets the field to `value`, which Check() accepted.
  void Set(SearchParams& params, double value) const;
  // "" when `value` is in range (and whole for an integer, 0 or 1 for a flag), else why
  // not ("is not a number in [0.01, 100]").
  std::string Check(double value) const;
  // "0.01..100", "true, false": the range as the configuration reference writes it.
  std::string RangeText() const;
};

// Every row, in the order the configuration reference lists them.
const std::vector<SearchOption>& SearchOptions();
// The row of an arena player's key, or nullptr.
const SearchOption* SearchOptionForSpecKey(std::string_view key);
// The row named `name`, or nullptr.
const SearchOption* FindSearchOption(std::string_view name);

}  // namespace othello::mcts
