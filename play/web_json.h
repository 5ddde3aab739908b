#pragma once
// Internal to play/web_api*.cpp: reading a request's JSON body and writing replies.
// Fields are typed strictly: a value of another type (1.5 or 1e300 for an integer, "3"
// for a number) is a bad request naming the field, never converted.
#include <string>

#include <nlohmann/json.hpp>

#include "play/play_settings.h"
#include "play/web_api.h"

namespace othello::play::web {

using nlohmann::json;

// A bad request: answered with status 400 and {"error": message}.
struct BadRequest {
  std::string message;
};

// The body as a JSON object (an empty body is {}); throws BadRequest.
json ParseBody(const std::string& body);

int IntField(const json& j, const char* key, int fallback, int min, int max);
double NumberField(const json& j, const char* key, double fallback, double min, double max);
std::string StringField(const json& j, const char* key, const std::string& fallback);
bool BoolField(const json& j, const char* key, bool fallback);
// A play setting's field (play/play_settings.h): its key, its range.
int SettingField(const json& j, const Setting<int>& setting, int fallback);
std::uint64_t SettingField(const json& j, const Setting<std::uint64_t>& setting,
                           std::uint64_t fallback);

// "X", "O" and "-" for the squares, a1 first (the page's board strings).
std::string BoardText(const core::Position& position);

// JSON text; bytes that are not UTF-8 (an error quoting the request) become U+FFFD.
std::string Dump(const json& reply);
HttpReply Error(int status, const std::string& message);
HttpReply JsonReply(const json& reply);

}  // namespace othello::play::web

namespace othello::play {
struct WebApi::Request {
  web::json body;
};
}  // namespace othello::play
