#pragma once
// Typed reads of the JSON headers inside the project's files (model files, checkpoint
// metadata): a missing key, a value of the wrong type or one out of range throws
// core::InputError naming `where` and the key ("model file m.ozm: network.blocks: ...").
// Integers must be JSON integers (1e9 or 2.5 are refused, never cast), so no value
// from a file is converted with undefined behaviour.
// Thread safety: pure functions.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace othello::nn {

// The object at `key` of `object` (which must itself be an object).
const nlohmann::json& JsonObject(const nlohmann::json& object, const std::string& key,
                                 const std::string& where);
std::int64_t JsonInteger(const nlohmann::json& object, const std::string& key, std::int64_t lo,
                         std::int64_t hi, const std::string& where);
bool JsonBool(const nlohmann::json& object, const std::string& key, const std::string& where);
std::string JsonString(const nlohmann::json& object, const std::string& key,
                       const std::string& where);

}  // namespace othello::nn
