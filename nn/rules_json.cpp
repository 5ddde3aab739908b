#include "nn/rules_json.h"

#include "core/error.h"
#include <algorithm>

#include "nn/json_fields.h"

namespace othello::nn {

nlohmann::json RulesToJson(const core::Rules& rules) {
  return {{"size", rules.size},
          {"start", std::string(core::StartName(rules.start))},
          {"random_moves", rules.random_moves},
          {"handicap", rules.handicap},
          {"handicap_side", rules.handicap_side == core::Color::kBlack ? "black" : "white"},
          {"anti", rules.anti},
          {"empties_to_winner", rules.empties_to_winner}};
}

core::Rules RulesFromJson(const nlohmann::json& json, const std::string& where) {
  const std::string in = where + ": rules";
  if (!json.is_object()) throw core::InputError(in + ": expected a JSON object");
  for (const auto& item : json.items()) {
    static const char* const kKeys[] = {"size",          "start", "random_moves", "handicap",
                                        "handicap_side", "anti",  "empties_to_winner"};
    if (std::find(std::begin(kKeys), std::end(kKeys), item.key()) == std::end(kKeys)) {
      throw core::InputError(in + ": unknown key " + item.key());
    }
  }
  core::Rules rules;
  rules.size = static_cast<int>(JsonInteger(json, "size", 4, 10, in));
  auto start = core::ParseStartKind(JsonString(json, "start", in));
  if (!start) throw core::InputError(in + ": start: " + start.error());
  rules.start = *start;
  if (json.contains("random_moves")) {
    rules.random_moves = static_cast<int>(JsonInteger(json, "random_moves", 0, 100, in));
  }
  if (json.contains("handicap")) rules.handicap = static_cast<int>(JsonInteger(json, "handicap", 0, 4, in));
  if (json.contains("handicap_side")) {
    const std::string side = JsonString(json, "handicap_side", in);
    if (side != "black" && side != "white") {
      throw core::InputError(in + ": handicap_side must be black or white");
    }
    rules.handicap_side = side == "black" ? core::Color::kBlack : core::Color::kWhite;
  }
  rules.anti = JsonBool(json, "anti", in);
  if (json.contains("empties_to_winner")) {
    rules.empties_to_winner = JsonBool(json, "empties_to_winner", in);
  }
  if (auto error = core::ValidateRules(rules)) throw core::InputError(in + ": " + error->message);
  return rules;
}

}  // namespace othello::nn
