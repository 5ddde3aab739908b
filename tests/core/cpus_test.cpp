#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/cpus.h"

namespace othello::core {
namespace {

TEST(Cpus, CgroupV2CpuMax) {
  EXPECT_EQ(ParseCpuMax("max 100000"), std::nullopt);
  EXPECT_EQ(ParseCpuMax("max 100000\n"), std::nullopt);
  EXPECT_EQ(ParseCpuMax("150000 100000"), 1.5);
  EXPECT_EQ(ParseCpuMax("200000 100000\n"), 2.0);
  EXPECT_EQ(ParseCpuMax("50000 100000"), 0.5);
}

TEST(Cpus, CgroupV1Quota) {
  EXPECT_EQ(ParseCfsQuota("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("300000\n", "100000\n"), 3.0);
  EXPECT_EQ(ParseCfsQuota("25000", "100000"), 0.25);
}

TEST(Cpus, GarbageIsNoLimit) {
  for (const char* text : {"", "max", "100000", "abc 100000", "150000 abc", "150000 0",
                           "0 100000", "-5 100000", "1.5 1", "150000 100000 7", "15x 100000"}) {
    EXPECT_EQ(ParseCpuMax(text), std::nullopt) << "'" << text << "'";
  }
  EXPECT_EQ(ParseCfsQuota("", "100000"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("100000", ""), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("lots", "100000"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("100000", "0"), std::nullopt);
  EXPECT_EQ(ParseCfsQuota("100000 2", "100000"), std::nullopt);
}

TEST(Cpus, TheQuotaCapsTheAffinityRoundedUp) {
  EXPECT_EQ(CapCpus(8, std::nullopt), 8);
  EXPECT_EQ(CapCpus(8, 1.5), 2);
  EXPECT_EQ(CapCpus(8, 2.0), 2);
  EXPECT_EQ(CapCpus(8, 0.25), 1);
  EXPECT_EQ(CapCpus(2, 16.0), 2);  // a quota above the mask: the mask
  EXPECT_EQ(CapCpus(0, std::nullopt), 1);
}

// /proc/self/cgroup and mountinfo as a v2-only host, a v1 container and a hybrid host
// (v1's cpu controller, v2 without it) write them.
TEST(Cpus, CgroupLocationsFromProc) {
  const std::string v2_mounts =
      "35 24 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
  auto locations = ParseCgroupLocations("0::/user.slice/session-3.scope\n", v2_mounts);
  ASSERT_EQ(locations.size(), 1u);
  EXPECT_TRUE(locations[0].v2);
  EXPECT_EQ(locations[0].mount, "/sys/fs/cgroup");
  EXPECT_EQ(locations[0].path, "/user.slice/session-3.scope");

  // A container whose mount shows its own cgroup at the top.
  const std::string v1_mounts =
      "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro master:12 - cgroup cgroup "
      "rw,cpu,cpuacct\n"
      "33 31 0:30 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n";
  locations = ParseCgroupLocations(
      "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n", v1_mounts);
  ASSERT_EQ(locations.size(), 1u);
  EXPECT_FALSE(locations[0].v2);
  EXPECT_EQ(locations[0].mount, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(locations[0].path, "/");

  const std::string hybrid_mounts =
      "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
      "40 31 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
  locations = ParseCgroupLocations("2:cpuacct:/a\n1:cpu:/a/b\n0::/a\n", hybrid_mounts);
  ASSERT_EQ(locations.size(), 2u);
  EXPECT_EQ(locations[0].mount, "/sys/fs/cgroup/cpu");
  EXPECT_EQ(locations[0].path, "/a/b");
  EXPECT_TRUE(locations[1].v2);
  EXPECT_EQ(locations[1].path, "/a");

  EXPECT_TRUE(ParseCgroupLocations("garbage\n", "more garbage\n").empty());
  EXPECT_TRUE(ParseCgroupLocations("0::/\n", "").empty());
}

void Write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// Mounts made of plain folders: the lowest limit of the cgroup and its ancestors counts,
// an unreadable file counts as none.
TEST(Cpus, TheLowestLimitOfTheCgroupAndItsAncestors) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("oz_cpus_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  Write(root / "v2/a/cpu.max", "300000 100000\n");
  Write(root / "v2/a/b/cpu.max", "max 100000\n");
  Write(root / "v2/a/b/c/cpu.max", "garbage\n");
  Write(root / "v1/x/cpu.cfs_quota_us", "-1\n");
  Write(root / "v1/x/cpu.cfs_period_us", "100000\n");
  const CgroupLocation v2{/*v2=*/true, (root / "v2").string(), "/a/b/c"};
  const CgroupLocation v1{/*v2=*/false, (root / "v1").string(), "/x/"};
  EXPECT_EQ(ReadCgroupLimit({v2}), 3.0);
  EXPECT_EQ(ReadCgroupLimit({v1}), std::nullopt);
  Write(root / "v1/cpu.cfs_quota_us", "150000\n");  // the v1 mount's top
  Write(root / "v1/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(ReadCgroupLimit({v1}), 1.5);
  EXPECT_EQ(ReadCgroupLimit({v2, v1}), 1.5);
  EXPECT_EQ(ReadCgroupLimit({{/*v2=*/true, (root / "nowhere").string(), "/"}}), std::nullopt);
  std::filesystem::remove_all(root);
}

TEST(Cpus, ThisProcessHasAtLeastOneAndNoMoreThanItsMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cpus = UsableCpus();
  EXPECT_GE(cpus, 1);
  EXPECT_LE(cpus, CPU_COUNT(&set));
  EXPECT_LE(cpus, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace othello::core
