// Issue 38: Trace::FindDevice was a linear search, called once per device a reader added:
// 160k devices in an .amptrace took 12 s (900k over 300 s), 100k Kineto deviceProperties 8 s.
// Devices now go through Trace::AddDevice, which keeps an index. Each reader is timed on N and
// on 4N devices: a linear reader takes about 4 times as long for 4N, a quadratic one about 16
// times (a ratio holds on a loaded machine and under sanitizers, where absolute times do not;
// 50 ms of slack absorb the noise of reads that take a few ms). Before the fix the 4N reads
// took seconds. The tests also check what the index must keep: duplicates refused and
// counted, lookups right after edits.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_writer.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/reader.h"

namespace ampscope {
namespace many_devices_test {
namespace {

constexpr int kAmptraceDevices = 25000;
constexpr int kKinetoDevices = 12500;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The fastest of five reads (the least disturbed by the machine's other work).
template <typename Read> double Fastest(Read read) {
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    read();
    best = std::min(best, Seconds(start));
  }
  return best;
}

std::string WriteAmptraceWithDevices(const std::string& dir, int n) {
  const std::string path = dir + "/d" + std::to_string(n) + ".amptrace";
  AmptraceHeaderInfo h;
  h.cupti_version = 130001;
  h.pid = 1;
  h.host = "h";
  auto w = AmptraceWriter::Create(path, h);
  EXPECT_TRUE(w.ok()) << w.status().message();
  const uint32_t name = (*w)->InternString("NVIDIA H100 80GB HBM3");
  for (int i = 0; i < n; ++i) {
    AmpDeviceRecord d;
    std::memset(&d, 0, sizeof(d));
    d.id = static_cast<uint32_t>(n - 1 - i);  // not in id order
    d.cc_major = 9;
    d.name = name;
    (*w)->Append(d);
    if (i == 10) (*w)->Append(d);  // a device described twice: kept once
  }
  AmpFooterRecord footer;
  std::memset(&footer, 0, sizeof(footer));
  EXPECT_TRUE((*w)->Finish(footer).ok());
  return path;
}

std::string KinetoWithDevices(int n) {
  std::string json = "{\"deviceProperties\": [";
  for (int i = 0; i < n; ++i)
    json += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) + ", \"name\": \"NVIDIA A100-SXM4-80GB\"}";
  json += ", {\"id\": 5, \"name\": \"twice\"}], \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
          "\"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}]}";
  return json;
}

TEST(ManyDevices, AnAmptraceWithManyDevicesIsReadInLinearTime) {
  const std::string dir = testing::MakeTempDir("many_devices");
  constexpr int kDevices = kAmptraceDevices;
  const std::string small = WriteAmptraceWithDevices(dir, kDevices), large = WriteAmptraceWithDevices(dir, 4 * kDevices);
  StatusOr<Trace> t = ReadTrace(large);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->devices.size(), static_cast<size_t>(4 * kDevices));
  ASSERT_NE(t->FindDevice(0), nullptr);
  EXPECT_EQ(t->FindDevice(0)->cc_major, 9);
  EXPECT_EQ(t->FindDevice(4 * kDevices - 11)->id, 4 * kDevices - 11);
  EXPECT_EQ(t->FindDevice(4 * kDevices), nullptr);
  const double t1 = Fastest([&] { (void)ReadTrace(small); });
  const double t4 = Fastest([&] { (void)ReadTrace(large); });
  EXPECT_LT(t4, 8 * t1 + 0.05) << "N: " << t1 << " s, 4N: " << t4 << " s";
}

TEST(ManyDevices, KinetoDevicePropertiesAreReadInLinearTime) {
  constexpr int kDevices = kKinetoDevices;
  const std::string small = KinetoWithDevices(kDevices), large = KinetoWithDevices(4 * kDevices);
  StatusOr<Trace> t = ReadKinetoTraceFromString(large, "props.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->devices.size(), static_cast<size_t>(4 * kDevices));
  EXPECT_EQ(t->FindDevice(5)->name, "NVIDIA A100-SXM4-80GB");  // the first description is kept
  EXPECT_EQ(t->diagnostics.Count(DiagCode::kDuplicateMetadata), 1u);
  const double t1 = Fastest([&] { (void)ReadKinetoTraceFromString(small, "props.json"); });
  const double t4 = Fastest([&] { (void)ReadKinetoTraceFromString(large, "props.json"); });
  EXPECT_LT(t4, 8 * t1 + 0.05) << "N: " << t1 << " s, 4N: " << t4 << " s";
}

TEST(ManyDevices, TheIndexFollowsEditsOfTheDeviceList) {
  Trace t;
  Device a;
  a.id = 3;
  ASSERT_NE(t.AddDevice(a), nullptr);
  EXPECT_EQ(t.AddDevice(a), nullptr);  // a second device 3 is refused
  Device b;
  b.id = 8;
  t.devices.push_back(b);  // edited directly (as a test might): found all the same
  ASSERT_NE(t.FindDevice(8), nullptr);
  t.devices.clear();
  EXPECT_EQ(t.FindDevice(3), nullptr);
  ASSERT_NE(t.AddDevice(b), nullptr);  // the index is rebuilt from the list first
  EXPECT_EQ(t.FindDevice(8)->id, 8);
  EXPECT_EQ(t.FindDevice(3), nullptr);
}

}  // namespace
}  // namespace many_devices_test
}  // namespace ampscope
