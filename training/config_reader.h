#pragma once
// Strict YAML configuration reading: every value is read by its key path with a type
// and a range, overrides ("key.path=value") are applied on top, and keys that nobody
// reads are errors (a misspelt key never silently falls back to a default).
// Errors throw core::InputError naming the file, the key path, the value and, for
// values from the file, the line.
// Every read also records the key with its type, default and range (keys()): the
// configuration reference (docs/configuration.md) is checked against that record.
// Thread safety: not synchronised; read the configuration once at start.
#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace othello::training {

// One key as the code reads it: for the configuration reference.
struct ConfigKey {
  std::string key;           // "train.batch_size"
  std::string default_text;  // "128"; "" for an empty string
  std::string range;         // "1..65536", "auto, fp32, bf16", "true, false", "any"
  std::string help;          // the key's one line of help where a table declares it
                             // (mcts/search_options.h); "" otherwise
};

class ConfigReader {
 public:
  // Parses `path` (throws on a missing file or bad YAML, naming the line).
  static ConfigReader FromFile(const std::string& path);
  static ConfigReader FromString(const std::string& text, const std::string& name);

  // Applies "a.b.c=value" overrides (value parsed as YAML); unknown keys are errors
  // at Finish() like any other.
  void Override(const std::vector<std::string>& assignments);

  int Int(const std::string& key, int fallback, int lo, int hi);
  // Int for values beyond 32 bits (a seed): an integer in [lo, hi].
  std::int64_t Int64(const std::string& key, std::int64_t fallback, std::int64_t lo,
                     std::int64_t hi);
  // An integer in [lo, hi], or the word `auto` (returned as kAuto; also the fallback's
  // spelling).
  static constexpr int kAuto = -1;
  int IntOrAuto(const std::string& key, int fallback, int lo, int hi);
  double Double(const std::string& key, double fallback, double lo, double hi);
  bool Bool(const std::string& key, bool fallback);
  std::string String(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& allowed = {});
  // One of an enum's values, spelt as in `names` (its name table, indexed by value);
  // any other string is an error listing the names.
  template <typename Enum, std::size_t N>
  Enum Choice(const std::string& key, Enum fallback, const std::array<std::string_view, N>& names);

  // A list of strings (a YAML sequence, or one string for a list of one).
  std::vector<std::string> StringList(const std::string& key,
                                      const std::vector<std::string>& fallback);

  // Throws for every key present in the file or the overrides that was never read.
  void Finish() const;
  // Replaces the range recorded for `key` (read already) with `range`, for a value that a
  // further check narrows (e.g. "auto, cpu, cuda, cuda:N").
  void DescribeRange(const std::string& key, const std::string& range);
  // Records the help of `key` (read already), from the table that declares it.
  void DescribeHelp(const std::string& key, const std::string& help);
  // Every key read so far, in the order read.
  const std::vector<ConfigKey>& keys() const { return keys_; }
  const std::string& name() const { return name_; }
  // A path at `key`: a relative one is taken from the config file's folder (from the
  // current directory for a config read from a string). "" stays "".
  std::string Path(const std::string& key, const std::string& fallback);

 private:
  // Throws when the top level is not a map of sections.
  ConfigReader(YAML::Node root, std::string name);
  // Override's steps: the value after `begin` parsed as YAML, and stored at `parts`
  // (sections created as needed). Errors name `assignment`.
  static YAML::Node ParseValue(const std::string& assignment, std::size_t begin);
  void Set(const std::vector<std::string>& parts, const YAML::Node& value,
           const std::string& assignment);
  // The scalar at `key`, or an undefined node; marks the key as read.
  YAML::Node Find(const std::string& key);
  [[noreturn]] void Fail(const std::string& key, const YAML::Node& node,
                         const std::string& what) const;
  void CollectKeys(const YAML::Node& node, const std::string& prefix,
                   std::vector<std::pair<std::string, int>>& out) const;
  void Record(const std::string& key, std::string default_text, std::string range);
  // The integer `node` holds, in [lo, hi] (Integer: int or std::int64_t); errors name
  // `key` and the range (and the word auto when it is allowed too). Defined in the .cpp.
  template <typename Integer>
  Integer IntValue(const std::string& key, const YAML::Node& node, Integer lo, Integer hi,
                   bool or_auto) const;

  YAML::Node root_;
  std::string name_;
  std::string base_dir_;  // the config file's folder ("" for a string)
  std::set<std::string> read_;
  std::vector<ConfigKey> keys_;
};

template <typename Enum, std::size_t N>
Enum ConfigReader::Choice(const std::string& key, Enum fallback,
                          const std::array<std::string_view, N>& names) {
  const std::string value = String(key, std::string(names[static_cast<std::size_t>(fallback)]),
                                   std::vector<std::string>(names.begin(), names.end()));
  return static_cast<Enum>(std::find(names.begin(), names.end(), value) - names.begin());
}

}  // namespace othello::training
