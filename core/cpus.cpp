// core/cpus.h: the CPUs this process may use.
#include "core/cpus.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

namespace othello::core {
namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// A whole text that is one integer, or nullopt.
std::optional<long long> Integer(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || at != end) return std::nullopt;
  return value;
}

std::optional<double> Limit(std::optional<long long> quota, std::optional<long long> period) {
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

// The file's first line, or nullopt when it cannot be read.
std::optional<std::string> FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// The process's cgroup of `location` and every cgroup above it inside the mount.
std::vector<std::string> CgroupDirs(const CgroupLocation& location) {
  std::vector<std::string> dirs;
  std::string path = location.path;
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    dirs.push_back(location.mount + path);
    if (path.empty()) return dirs;
    path.erase(path.rfind('/'));
  }
}

std::optional<double> ReadLimit(const std::string& dir, bool v2) {
  if (v2) {
    const std::optional<std::string> cpu_max = FirstLine(dir + "/cpu.max");
    return cpu_max ? ParseCpuMax(*cpu_max) : std::nullopt;
  }
  const std::optional<std::string> quota = FirstLine(dir + "/cpu.cfs_quota_us");
  const std::optional<std::string> period = FirstLine(dir + "/cpu.cfs_period_us");
  return quota && period ? ParseCfsQuota(*quota, *period) : std::nullopt;
}

// sched_getaffinity's count (a mask sized for up to 64k CPUs); 0 when it fails.
int AffinityCpus() {
  for (int cpus = 1024; cpus <= 65536; cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return 0;
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(size, set);
    const bool ok = sched_getaffinity(0, size, set) == 0;
    const int count = ok ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (ok) return count;
    if (errno != EINVAL) return 0;  // EINVAL: the mask is smaller than the kernel's
  }
  return 0;
}

// One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [TAGS] - TYPE
// SOURCE SUPER_OPTIONS" (proc(5)).
struct Mount {
  std::string root, point, type;
  std::vector<std::string> options;  // the super options, split at commas
};
std::optional<Mount> ParseMountLine(const std::string& line) {
  const std::vector<std::string> words = Words(line);
  const auto dash = std::find(words.begin(), words.end(), "-");
  if (words.size() < 5 || dash == words.end() || words.end() - dash < 3) return std::nullopt;
  return Mount{words[3], words[4], dash[1], Split(dash[3], ',')};
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// `path` inside a mount of the hierarchy's `root` ("/" where the mount shows less).
std::string InsideMount(const std::string& path, const std::string& root) {
  if (root == "/") return path;
  if (path.compare(0, root.size(), root) != 0) return "/";
  const std::string rest = path.substr(root.size());
  if (rest.empty()) return "/";
  return rest[0] == '/' ? rest : "/";
}

}  // namespace

std::optional<double> ParseCpuMax(const std::string& cpu_max) {
  const std::vector<std::string> words = Words(cpu_max);
  if (words.size() != 2 || words[0] == "max") return std::nullopt;
  return Limit(Integer(words[0]), Integer(words[1]));
}

std::optional<double> ParseCfsQuota(const std::string& quota_us, const std::string& period_us) {
  const std::vector<std::string> quota = Words(quota_us), period = Words(period_us);
  if (quota.size() != 1 || period.size() != 1) return std::nullopt;
  return Limit(Integer(quota[0]), Integer(period[0]));
}

std::vector<CgroupLocation> ParseCgroupLocations(const std::string& proc_self_cgroup,
                                                 const std::string& mountinfo) {
  // /proc/self/cgroup: "ID:CONTROLLERS:PATH" per hierarchy; v2's is "0::PATH".
  std::optional<std::string> v1_path, v2_path;
  for (const std::string& line : Split(proc_self_cgroup, '\n')) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (path.empty() || path[0] != '/') continue;
    if (line.compare(0, a, "0") == 0 && controllers.empty()) v2_path = path;
    if (Has(Split(controllers, ','), "cpu")) v1_path = path;
  }
  std::vector<CgroupLocation> locations;
  for (const std::string& line : Split(mountinfo, '\n')) {
    const std::optional<Mount> mount = ParseMountLine(line);
    if (!mount) continue;
    if (mount->type == "cgroup2" && v2_path) {
      locations.push_back({/*v2=*/true, mount->point, InsideMount(*v2_path, mount->root)});
    } else if (mount->type == "cgroup" && v1_path && Has(mount->options, "cpu")) {
      locations.push_back({/*v2=*/false, mount->point, InsideMount(*v1_path, mount->root)});
    }
  }
  return locations;
}

std::optional<double> ReadCgroupLimit(const std::vector<CgroupLocation>& locations) {
  std::optional<double> lowest;
  for (const CgroupLocation& location : locations) {
    for (const std::string& dir : CgroupDirs(location)) {
      const std::optional<double> limit = ReadLimit(dir, location.v2);
      if (limit && (!lowest || *limit < *lowest)) lowest = limit;
    }
  }
  return lowest;
}

int CapCpus(int affinity, std::optional<double> limit) {
  int cpus = affinity;
  if (limit && *limit > 0) {
    // A quota of 1.5 CPUs lets 2 threads each run most of the time: rounded up.
    const double rounded = std::ceil(*limit);
    if (rounded < cpus) cpus = static_cast<int>(rounded);
  }
  return std::max(1, cpus);
}

int UsableCpus() {
  int affinity = AffinityCpus();
  if (affinity <= 0) affinity = static_cast<int>(std::thread::hardware_concurrency());
  std::ostringstream cgroup, mountinfo;
  cgroup << std::ifstream("/proc/self/cgroup").rdbuf();
  mountinfo << std::ifstream("/proc/self/mountinfo").rdbuf();
  return CapCpus(affinity, ReadCgroupLimit(ParseCgroupLocations(cgroup.str(), mountinfo.str())));
}

}  // namespace othello::core
