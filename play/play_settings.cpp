#include "play/play_settings.h"

#include <sstream>

namespace othello::play {

namespace {

template <typename T>
std::string Number(T value) {
  std::ostringstream text;
  text.precision(15);
  text << value;
  return text.str();
}

template <typename T>
SettingText Text(const Setting<T>& s, const std::string& default_text = "") {
  return {s.name, s.flag, s.key, default_text.empty() ? Number(s.value) : default_text,
          Number(s.low) + ".." + Number(s.high), s.help};
}

}  // namespace

std::vector<SettingText> PlaySettingsText() {
  return {Text(kMoveVisits),   Text(kMoveSeconds),  Text(kLevel, "none"),
          Text(kRootSolve),    Text(kHintVisits),   Text(kAnalysisVisits),
          Text(kExactEmpties), Text(kArenaVisits)};
}

}  // namespace othello::play
