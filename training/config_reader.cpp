#include "training/config_reader.h"

#include <filesystem>

#include <algorithm>
#include <sstream>

#include "core/error.h"

namespace othello::training {
namespace {

std::vector<std::string> Split(const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream in(key);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  return parts;
}

// A number as the reference prints it: the shortest form that reads back the same.
template <typename T>
std::string NumberText(T value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string Joined(const std::vector<std::string>& words) {
  std::string list;
  for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
  return list;
}

// An integer's spelling: an optional sign and digits (one that does not fit the type
// is out of range, not "not an integer").
bool IsIntegerText(const std::string& text) {
  const std::size_t digits = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return text.size() > digits && std::all_of(text.begin() + digits, text.end(),
                                             [](char c) { return c >= '0' && c <= '9'; });
}

std::string Where(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? " (line " + std::to_string(mark.line + 1) + ")" : "";
}

}  // namespace

ConfigReader::ConfigReader(YAML::Node root, std::string name)
    : root_(std::move(root)), name_(std::move(name)) {
  if (!root_.IsDefined() || root_.IsNull()) {
    root_ = YAML::Node(YAML::NodeType::Map);  // an empty file: every default
  } else if (!root_.IsMap()) {
    throw core::InputError("config " + name_ + ": expected sections such as 'game:' and "
                           "'train:' at the top level" + Where(root_));
  }
}

ConfigReader ConfigReader::FromFile(const std::string& path) {
  try {
    ConfigReader reader(YAML::LoadFile(path), path);
    reader.base_dir_ = std::filesystem::path(path).parent_path().string();
    return reader;
  } catch (const YAML::BadFile&) {
    throw core::InputError("config " + path + ": cannot open the file");
  } catch (const YAML::Exception& e) {
    throw core::InputError("config " + path + ": not valid YAML: " + e.what());
  }
}

std::string ConfigReader::Path(const std::string& key, const std::string& fallback) {
  const std::string value = String(key, fallback);
  DescribeRange(key, "a file path (relative: from the config file's folder)");
  if (value.empty() || base_dir_.empty() || std::filesystem::path(value).is_absolute()) {
    return value;
  }
  return (std::filesystem::path(base_dir_) / value).lexically_normal().string();
}

ConfigReader ConfigReader::FromString(const std::string& text, const std::string& name) {
  try {
    return ConfigReader(YAML::Load(text), name);
  } catch (const YAML::Exception& e) {
    throw core::InputError("config " + name + ": not valid YAML: " + e.what());
  }
}

void ConfigReader::Override(const std::vector<std::string>& assignments) {
  for (const std::string& assignment : assignments) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw core::InputError("--set '" + assignment + "': expected key.path=value");
    }
    const std::vector<std::string> parts = Split(assignment.substr(0, eq));
    if (parts.empty() || std::find(parts.begin(), parts.end(), "") != parts.end() ||
        assignment[eq - 1] == '.') {
      throw core::InputError("--set '" + assignment + "': a key path has no empty parts (a.b.c)");
    }
    Set(parts, ParseValue(assignment, eq + 1), assignment);
  }
}

YAML::Node ConfigReader::ParseValue(const std::string& assignment, std::size_t begin) {
  try {
    return YAML::Load(assignment.substr(begin));
  } catch (const YAML::Exception& e) {
    throw core::InputError("--set '" + assignment + "': bad value: " + e.what());
  }
}

void ConfigReader::Set(const std::vector<std::string>& parts, const YAML::Node& value,
                       const std::string& assignment) {
  // Walk down with fresh handles (assigning to a YAML::Node handle rebinds it).
  std::vector<YAML::Node> chain{root_};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(chain.back()[parts[i]]);  // reset rebinds; operator= would copy into it
    } else if (!next.IsMap()) {
      throw core::InputError("--set '" + assignment + "': " + parts[i] + " is not a section");
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}

YAML::Node ConfigReader::Find(const std::string& key) {
  read_.insert(key);
  YAML::Node node;
  node.reset(root_);  // rebinding; operator= on a YAML::Node would overwrite the tree
  for (const std::string& part : Split(key)) {
    if (!node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& map = node;  // const lookup: never inserts
    const YAML::Node next = map[part];
    if (!next.IsDefined()) return next;
    node.reset(next);
  }
  return node;
}

void ConfigReader::Fail(const std::string& key, const YAML::Node& node,
                        const std::string& what) const {
  std::string value;
  if (node.IsScalar()) value = " '" + node.Scalar() + "'";
  throw core::InputError("config " + name_ + ": " + key + value + Where(node) + ": " + what);
}

void ConfigReader::Record(const std::string& key, std::string default_text, std::string range) {
  for (ConfigKey& known : keys_) {
    if (known.key == key) return;  // read twice: the first read describes it
  }
  keys_.push_back({key, std::move(default_text), std::move(range), ""});
}

void ConfigReader::DescribeRange(const std::string& key, const std::string& range) {
  for (ConfigKey& known : keys_) {
    if (known.key == key) known.range = range;
  }
}

void ConfigReader::DescribeHelp(const std::string& key, const std::string& help) {
  for (ConfigKey& known : keys_) {
    if (known.key == key) known.help = help;
  }
}

template <typename Integer>
Integer ConfigReader::IntValue(const std::string& key, const YAML::Node& node, Integer lo,
                               Integer hi, bool or_auto) const {
  const std::string expected = or_auto ? "expected auto or an integer" : "expected an integer";
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const auto out_of_range = [&] {
    Fail(key, node, or_auto ? expected + " in " + range : "out of range " + range);
  };
  Integer value;
  try {
    if (!node.IsScalar()) throw YAML::Exception(YAML::Mark(), "");
    value = node.as<Integer>();
  } catch (const YAML::Exception&) {
    if (node.IsScalar() && IsIntegerText(node.Scalar())) out_of_range();  // beyond Integer
    Fail(key, node, expected);
  }
  if (value < lo || value > hi) out_of_range();
  return value;
}

int ConfigReader::IntOrAuto(const std::string& key, int fallback, int lo, int hi) {
  const std::string range = "auto, " + NumberText(lo) + ".." + NumberText(hi);
  Record(key, fallback == kAuto ? "auto" : NumberText(fallback), range);
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  if (node.IsScalar() && node.Scalar() == "auto") return kAuto;
  return IntValue(key, node, lo, hi, /*or_auto=*/true);
}

int ConfigReader::Int(const std::string& key, int fallback, int lo, int hi) {
  Record(key, NumberText(fallback), NumberText(lo) + ".." + NumberText(hi));
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  return IntValue(key, node, lo, hi, /*or_auto=*/false);
}

std::int64_t ConfigReader::Int64(const std::string& key, std::int64_t fallback, std::int64_t lo,
                                 std::int64_t hi) {
  Record(key, NumberText(fallback), NumberText(lo) + ".." + NumberText(hi));
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  return IntValue(key, node, lo, hi, /*or_auto=*/false);
}

double ConfigReader::Double(const std::string& key, double fallback, double lo, double hi) {
  Record(key, NumberText(fallback), NumberText(lo) + ".." + NumberText(hi));
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  double value;
  try {
    if (!node.IsScalar()) throw YAML::Exception(YAML::Mark(), "");
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    Fail(key, node, "expected a number");
  }
  if (!(value >= lo && value <= hi)) {
    std::ostringstream range;
    range << "out of range [" << lo << ", " << hi << "]";
    Fail(key, node, range.str());
  }
  return value;
}

bool ConfigReader::Bool(const std::string& key, bool fallback) {
  Record(key, fallback ? "true" : "false", "true, false");
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  try {
    if (!node.IsScalar()) throw YAML::Exception(YAML::Mark(), "");
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    Fail(key, node, "expected true or false");
  }
}

std::string ConfigReader::String(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& allowed) {
  Record(key, fallback, allowed.empty() ? "any" : Joined(allowed));
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  if (!node.IsScalar()) Fail(key, node, "expected a string");
  const std::string value = node.Scalar();
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    Fail(key, node, "expected one of " + Joined(allowed));
  }
  return value;
}

std::vector<std::string> ConfigReader::StringList(const std::string& key,
                                                  const std::vector<std::string>& fallback) {
  Record(key, "[" + Joined(fallback) + "]", "a list of strings");
  const YAML::Node node = Find(key);
  if (!node.IsDefined() || node.IsNull()) return fallback;
  if (node.IsScalar()) return {node.Scalar()};
  if (!node.IsSequence()) Fail(key, node, "expected a list of strings");
  std::vector<std::string> values;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) Fail(key, item, "expected a list of strings");
    values.push_back(item.Scalar());
  }
  return values;
}

void ConfigReader::CollectKeys(const YAML::Node& node, const std::string& prefix,
                               std::vector<std::pair<std::string, int>>& out) const {
  if (!node.IsMap()) {
    out.emplace_back(prefix, node.Mark().line);
    return;
  }
  for (const auto& item : node) {
    if (!item.first.IsScalar()) {
      throw core::InputError("config " + name_ + ": a key" + Where(item.first) +
                             " is not a plain name");
    }
    const std::string key = (prefix.empty() ? "" : prefix + ".") + item.first.Scalar();
    CollectKeys(item.second, key, out);
  }
}

void ConfigReader::Finish() const {
  std::vector<std::pair<std::string, int>> keys;
  if (root_.IsMap()) CollectKeys(root_, "", keys);
  for (const auto& [key, line] : keys) {
    if (!read_.count(key)) {
      throw core::InputError("config " + name_ + ": unknown key " + key +
                             (line >= 0 ? " (line " + std::to_string(line + 1) + ")" : ""));
    }
  }
}

}  // namespace othello::training
