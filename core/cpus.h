#pragma once
// The CPUs this process may use, which is what every automatic thread count follows
// (selfplay.threads auto, LibTorch's CPU threads): std::thread::hardware_concurrency()
// counts the machine's CPUs, not those of a `taskset` mask or a container's CPU quota.
// The count is the process's affinity mask (sched_getaffinity), capped by the CFS quota
// of its cgroup and of every cgroup above it (cgroup v2 `cpu.max`, v1
// `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up, and at least 1.
// The parsers are separate from the file reads so that tests can feed them the kernel's
// texts; a text they cannot read is ignored (no limit), never an error.
// Thread safety: pure functions (UsableCpus reads /proc and /sys each call).
#include <optional>
#include <string>
#include <vector>

namespace othello::core {

// The CPUs this process may use now (see the top of this file).
int UsableCpus();

// ---- The parts of UsableCpus, for tests.

// A cgroup CPU limit in CPUs (quota / period), from cgroup v2's cpu.max ("max 100000":
// none; "150000 100000": 1.5). nullopt for no limit or an unreadable text.
std::optional<double> ParseCpuMax(const std::string& cpu_max);
// The same from cgroup v1's cpu.cfs_quota_us ("-1": none) and cpu.cfs_period_us.
std::optional<double> ParseCfsQuota(const std::string& quota_us, const std::string& period_us);

// Where the process's cgroup of one hierarchy is: /proc/self/cgroup's path for it and
// the mount point and root of that hierarchy from /proc/self/mountinfo.
struct CgroupLocation {
  bool v2 = false;         // the unified hierarchy (cpu.max) or v1's cpu controller
  std::string mount;       // e.g. /sys/fs/cgroup or /sys/fs/cgroup/cpu,cpuacct
  std::string path;        // the process's cgroup inside that mount ("/" at its top)
};
// The hierarchies that can hold the process's CPU limit: v1's cpu controller and the v2
// unified hierarchy, those that /proc/self/cgroup and mountinfo both name.
std::vector<CgroupLocation> ParseCgroupLocations(const std::string& proc_self_cgroup,
                                                 const std::string& mountinfo);

// The lowest limit found in the cgroups of `locations` and every cgroup above them inside
// their mounts (a parent's quota binds its children too); nullopt for none.
std::optional<double> ReadCgroupLimit(const std::vector<CgroupLocation>& locations);

// `affinity` CPUs capped by `limit` CPUs rounded up; at least 1.
int CapCpus(int affinity, std::optional<double> limit);

}  // namespace othello::core
