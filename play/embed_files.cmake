# Embeds the web page's files in the binary (play/web_files.h): run at build time by
# play/CMakeLists.txt as
#   cmake -DBASE=DIR -DFILES=a.html,b.js -DOUTPUT=web_files.cpp -P embed_files.cmake
# and writes OUTPUT, a C++ source with each file's bytes as a char array of escaped
# bytes (so no byte of a file can end or break the array) and the table kWebFiles of
# ("/NAME", bytes).
foreach(var BASE FILES OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_files.cmake: -D${var}=... is missing")
  endif()
endforeach()
string(REPLACE "," ";" files "${FILES}")

set(arrays "")
set(table "")
set(index 0)
foreach(name IN LISTS files)
  file(READ "${BASE}/${name}" hex HEX)
  # 16 bytes a line, each as '\xNN', then a final 0 (so that an empty file is an array too).
  string(REGEX REPLACE "(................................)" "\\1\n" hex "${hex}")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(APPEND arrays "// ${name}\nconst char kFile${index}[] = {\n${bytes}0};\n")
  string(APPEND table "    {\"/${name}\", {kFile${index}, sizeof kFile${index} - 1}},\n")
  math(EXPR index "${index} + 1")
endforeach()

set(text "// Generated at build time from play/web/ by play/embed_files.cmake: edit those files.
#include \"play/web_files.h\"

namespace othello::play {
namespace {

${arrays}
}  // namespace

extern const WebFile kWebFiles[] = {
${table}};
extern const std::size_t kWebFileCount = ${index};

}  // namespace othello::play
")
file(WRITE "${OUTPUT}" "${text}")
