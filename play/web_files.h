#pragma once
// The web page's files (play/web/: index.html, app.js, style.css), embedded in the
// binary at build time: play/CMakeLists.txt runs play/embed_files.cmake, which writes
// every file's bytes into web_files.cpp in the build folder (rewritten when a file
// changes). The bytes are the files' own, unchanged.
// Thread safety: constant data, read from any thread.
#include <cstddef>
#include <string_view>

namespace othello::play {

struct WebFile {
  std::string_view path;  // where it is served: "/" + its name under play/web/
  std::string_view body;  // its bytes
};

extern const WebFile kWebFiles[];
extern const std::size_t kWebFileCount;

}  // namespace othello::play
