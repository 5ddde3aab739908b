#include "nn/json_fields.h"

#include "core/error.h"

namespace othello::nn {
namespace {

const nlohmann::json& Field(const nlohmann::json& object, const std::string& key,
                            const std::string& where) {
  if (!object.is_object()) throw core::InputError(where + ": expected a JSON object");
  const auto it = object.find(key);
  if (it == object.end()) throw core::InputError(where + ": " + key + " is missing");
  return *it;
}

[[noreturn]] void Wrong(const std::string& key, const std::string& expected,
                        const std::string& where) {
  throw core::InputError(where + ": " + key + " must be " + expected);
}

}  // namespace

const nlohmann::json& JsonObject(const nlohmann::json& object, const std::string& key,
                                 const std::string& where) {
  const nlohmann::json& value = Field(object, key, where);
  if (!value.is_object()) Wrong(key, "an object", where);
  return value;
}

std::int64_t JsonInteger(const nlohmann::json& object, const std::string& key, std::int64_t lo,
                         std::int64_t hi, const std::string& where) {
  const nlohmann::json& value = Field(object, key, where);
  const std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (hi < 0 || v > static_cast<std::uint64_t>(hi)) Wrong(key, range, where);
    const auto s = static_cast<std::int64_t>(v);
    if (s < lo) Wrong(key, range, where);
    return s;
  }
  if (!value.is_number_integer()) Wrong(key, range, where);
  const auto v = value.get<std::int64_t>();
  if (v < lo || v > hi) Wrong(key, range, where);
  return v;
}

bool JsonBool(const nlohmann::json& object, const std::string& key, const std::string& where) {
  const nlohmann::json& value = Field(object, key, where);
  if (!value.is_boolean()) Wrong(key, "true or false", where);
  return value.get<bool>();
}

std::string JsonString(const nlohmann::json& object, const std::string& key,
                       const std::string& where) {
  const nlohmann::json& value = Field(object, key, where);
  if (!value.is_string()) Wrong(key, "a string", where);
  return value.get<std::string>();
}

}  // namespace othello::nn
