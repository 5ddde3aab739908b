#pragma once
// The one JSON form of the game rules, stored in model files and checkpoints:
//   {"size": 8, "start": "standard", "random_moves": 0, "handicap": 0,
//    "handicap_side": "black", "anti": false, "empties_to_winner": true}
// Reading requires size, start and anti; the other keys default as in core::Rules
// (files written before they existed lack them). Unknown keys and invalid rules are
// errors naming `where` and the key.
// Thread safety: pure functions.
#include <string>

#include <nlohmann/json.hpp>

#include "core/rules.h"

namespace othello::nn {

nlohmann::json RulesToJson(const core::Rules& rules);
core::Rules RulesFromJson(const nlohmann::json& json, const std::string& where);


}  // namespace othello::nn
