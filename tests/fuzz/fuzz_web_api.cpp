// The web page's API (play/web_api.h), without HTTP: requests of the form
// "METHOD PATH\nBODY", separated by a line "---". Every reply has a known status and
// a JSON body (the page for GET /), and the API keeps answering.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "mcts/evaluator.h"
#include "play/web_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  static mcts::UniformEvaluator evaluator;
  core::Rules rules;
  play::WebApi api(evaluator, rules, /*level=*/2, /*seed=*/1, rules);
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::size_t begin = 0;
  while (begin < input.size()) {
    std::size_t end = input.find("\n---\n", begin);
    if (end == std::string::npos) end = input.size();
    const std::string request = input.substr(begin, end - begin);
    begin = end + 5;
    const std::size_t space = request.find(' '), newline = request.find('\n');
    const std::string method = request.substr(0, std::min(space, newline));
    const std::string path =
        space < newline ? request.substr(space + 1, newline - space - 1) : std::string("/");
    const std::string body = newline == std::string::npos ? "" : request.substr(newline + 1);
    const play::HttpReply reply = api.Handle(method, path, body);
    if (reply.status != 200 && reply.status != 400 && reply.status != 404 && reply.status != 405) {
      std::abort();
    }
    if (reply.content_type == "application/json" && !nlohmann::json::accept(reply.body)) std::abort();
  }
  return 0;
}
