// .amptrace writer + reader: round trip, truncation anywhere, corruption, header errors.
// Expected values are the ones written by the test itself (property tests on a writer, as
// STYLE.md asks): what goes in must come out, mapped as docs/amptrace.md specifies.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <random>

#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"
#include "trace/formats/amptrace/amptrace_writer.h"

namespace ampscope {
namespace amptrace_test {
namespace {

using testing::MakeTempDir;
using testing::ReadFile;
using testing::WriteFile;

template <typename T>
T Zero() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

AmptraceHeaderInfo Header() {
  AmptraceHeaderInfo h;
  h.cupti_version = 130001;
  h.pid = 4242;
  h.rank = 3;
  h.local_rank = 1;
  h.world_size = 8;
  h.driver_version = 13000;
  h.start_clock = {1000, 2000, 1000};
  h.host = "node-7";
  h.command_line = "python train.py --lr '1e-3'";
  return h;
}

// Writes one record of every kind in several flushes (so the file has many chunks).
std::string WriteSample(const std::string& dir, bool finish = true) {
  std::string path = dir + "/sample.amptrace";
  auto w = AmptraceWriter::Create(path, Header());
  EXPECT_TRUE(w.ok()) << w.status().message();
  AmptraceWriter& writer = *w.value();

  auto dev = Zero<AmpDeviceRecord>();
  dev.id = 0, dev.cc_major = 9, dev.cc_minor = 0, dev.sm_count = 132;
  dev.global_memory_bytes = 80ull << 30, dev.max_warps_per_sm = 64, dev.threads_per_warp = 32;
  dev.max_registers_per_sm = 65536, dev.max_shared_memory_per_sm = 233472;
  dev.name = writer.InternString("NVIDIA H100 80GB HBM3");
  writer.Append(dev);
  auto ctx = Zero<AmpContextRecord>();
  ctx.context = 1, ctx.device = 0, ctx.null_stream = 7;
  writer.Append(ctx);
  EXPECT_TRUE(writer.Flush().ok());

  auto api = Zero<AmpApiRecord>();
  api.start_ns = 10000, api.end_ns = 10500, api.correlation = 11, api.cbid = 211, api.pid = 4242, api.tid = 4243;
  api.name = writer.InternString("cudaLaunchKernel");
  writer.Append(api);
  auto sync_api = Zero<AmpApiRecord>();
  sync_api.start_ns = 30000, sync_api.end_ns = 42000, sync_api.correlation = 12, sync_api.cbid = 131;
  sync_api.pid = 4242, sync_api.tid = 4250, sync_api.name = writer.InternString("cudaStreamSynchronize");
  writer.Append(sync_api);
  auto k = Zero<AmpKernelRecord>();
  k.start_ns = 11000, k.end_ns = 21000, k.correlation = 11, k.device = 0, k.context = 1, k.stream = 7;
  k.grid[0] = 128, k.grid[1] = 2, k.grid[2] = 1, k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  k.registers_per_thread = 96, k.static_shared_bytes = 1024, k.dynamic_shared_bytes = 49152, k.graph_id = 5;
  k.name = writer.InternString("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64");
  writer.Append(k);
  auto cp = Zero<AmpMemcpyRecord>();
  cp.start_ns = 22000, cp.end_ns = 23000, cp.bytes = 1 << 20, cp.correlation = 13, cp.device = 0, cp.stream = 7;
  cp.copy_kind = uint8_t(AmpMemcpyKind::kHtoD), cp.src_kind = uint8_t(AmpMemoryKind::kPageable);
  cp.dst_kind = uint8_t(AmpMemoryKind::kDevice), cp.flags = kAmpMemcpyFlagAsync;
  writer.Append(cp);
  auto ms = Zero<AmpMemsetRecord>();
  ms.start_ns = 24000, ms.end_ns = 24100, ms.bytes = 4096, ms.correlation = 14, ms.device = 0, ms.stream = 7;
  ms.memory_kind = uint8_t(AmpMemoryKind::kDevice);
  writer.Append(ms);
  auto sy = Zero<AmpSyncRecord>();
  sy.start_ns = 30100, sy.end_ns = 41900, sy.correlation = 12, sy.context = 1, sy.stream = 7;
  sy.type = uint8_t(AmpSyncType::kStreamSynchronize);
  writer.Append(sy);
  auto mem = Zero<AmpMemoryRecord>();
  mem.time_ns = 9000, mem.address = 0x7f0000000000ull, mem.bytes = 2 << 20, mem.device = 0;
  mem.op = uint8_t(AmpMemoryOp::kAllocation);
  writer.Append(mem);
  mem.time_ns = 50000, mem.op = uint8_t(AmpMemoryOp::kRelease);
  writer.Append(mem);
  auto oh = Zero<AmpOverheadRecord>();
  oh.start_ns = 25000, oh.end_ns = 26000, oh.name = writer.InternString("cupti_buffer_flush");
  oh.object_kind = uint8_t(AmpObjectKind::kThread), oh.object_id = 4243;
  writer.Append(oh);
  auto c = Zero<AmpCounterRecord>();
  c.time_ns = 15000, c.value = 61.5, c.device = 0, c.name = writer.InternString("tensor_active_pct");
  writer.Append(c);
  auto nm = Zero<AmpNameRecord>();
  nm.object_kind = uint8_t(AmpObjectKind::kThread), nm.object_id = 4243, nm.name = writer.InternString("trainer");
  writer.Append(nm);
  writer.AddWarning(AmpSeverity::kWarning, "cupti_unavailable", "no driver here");
  EXPECT_TRUE(writer.Flush().ok());

  // NVTX (realtime clock == CUPTI clock here): step [9500, 45000] containing forward
  // [9600, 20000], a mark at 21500, and a start/end range on another thread.
  auto nv = [&](AmpNvtxType type, int64_t t, uint32_t tid, const char* name, uint64_t id = 0) {
    auto e = Zero<AmpNvtxEvent>();
    e.time_ns = t, e.tid = tid, e.type = uint8_t(type), e.range_id = id;
    e.name = name != nullptr ? writer.InternString(name) : 0;
    writer.Append(e);
  };
  nv(AmpNvtxType::kPush, 9500, 4243, "step");
  nv(AmpNvtxType::kPush, 9600, 4243, "forward");
  nv(AmpNvtxType::kStart, 9700, 4260, "prefetch", 77);
  nv(AmpNvtxType::kPop, 20000, 4243, nullptr);
  nv(AmpNvtxType::kMark, 21500, 4243, "checkpoint");
  nv(AmpNvtxType::kEnd, 33000, 4299, nullptr, 77);
  nv(AmpNvtxType::kPop, 45000, 4243, nullptr);
  auto stats = Zero<AmpStatsRecord>();
  stats.cupti_dropped_records = 5, stats.buffers_refused = 2;
  writer.Append(stats);
  EXPECT_TRUE(writer.Flush().ok());
  if (finish) {
    auto f = Zero<AmpFooterRecord>();
    f.stats = stats;
    f.stats.cupti_dropped_records = 6;  // the footer's totals win over the last stats chunk
    f.end_clock = {60000, 61000, 60000};
    EXPECT_TRUE(writer.Finish(f).ok());
  }
  return path;
}

TEST(AmptraceTest, RoundTripEveryRecordKind) {
  std::string path = WriteSample(MakeTempDir("amptrace"));
  auto r = ReadAmptrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = r.value();
  EXPECT_EQ(t.metadata.format, SourceFormat::kAmptrace);
  EXPECT_EQ(t.metadata.pid, 4242);
  EXPECT_EQ(t.metadata.rank, 3);
  EXPECT_EQ(t.metadata.world_size, 8);
  EXPECT_EQ(t.metadata.extra.at("local_rank"), "1");
  EXPECT_EQ(t.metadata.host, "node-7");
  EXPECT_EQ(t.metadata.command_line, "python train.py --lr '1e-3'");
  EXPECT_EQ(t.metadata.cupti_version, "130001");
  EXPECT_EQ(t.metadata.driver_version, "13.0");
  EXPECT_EQ(t.metadata.extra.at("clean_end"), "true");
  ASSERT_EQ(t.metadata.clock_calibration.size(), 2u);
  EXPECT_EQ(t.metadata.clock_calibration[1].trace_ns, 60000);

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(t.devices[0].cc_major, 9);
  EXPECT_EQ(t.devices[0].sm_count, 132);
  EXPECT_EQ(t.devices[0].max_threads_per_sm, 64 * 32);
  EXPECT_EQ(t.devices[0].total_memory_bytes, int64_t{80} << 30);

  ASSERT_EQ(t.kernels.size(), 1u);
  const KernelEvent& k = t.kernels[0];
  EXPECT_EQ(k.start_ns, 11000);
  EXPECT_EQ(k.end_ns, 21000);
  EXPECT_EQ(k.correlation, 11);
  EXPECT_EQ(t.str(k.name), "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64");
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(t.launch(k).grid[0], 128u);
  EXPECT_EQ(t.launch(k).grid[1], 2u);
  EXPECT_EQ(t.launch(k).block[0], 256u);
  EXPECT_EQ(t.launch(k).registers_per_thread, 96);
  EXPECT_EQ(t.launch(k).static_shared_bytes, 1024);
  EXPECT_EQ(t.launch(k).dynamic_shared_bytes, 49152);
  EXPECT_EQ(k.graph_id, 5u);

  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].kind, MemcpyKind::kHtoD);
  EXPECT_EQ(t.memcpys[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys[0].bytes, 1u << 20);
  EXPECT_TRUE(t.memcpys[0].async);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].bytes, 4096u);
  EXPECT_EQ(t.memsets[0].memory_kind, MemoryKind::kDevice);

  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.str(t.api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].cbid, 211);
  EXPECT_EQ(t.api_calls[0].tid, 4243);
  EXPECT_EQ(t.api_calls[0].domain, ApiDomain::kRuntime);

  ASSERT_EQ(t.syncs.size(), 1u);
  EXPECT_EQ(t.syncs[0].type, SyncType::kStreamSync);
  EXPECT_EQ(t.syncs[0].device, 0);   // through the context table
  EXPECT_EQ(t.syncs[0].tid, 4250);   // through the API call with the same correlation
  EXPECT_EQ(t.syncs[0].stream, 7);

  ASSERT_EQ(t.memory_events.size(), 2u);
  EXPECT_EQ(t.memory_events[0].op, MemoryOp::kAlloc);
  EXPECT_EQ(t.memory_events[0].bytes, 2 << 20);
  EXPECT_EQ(t.memory_events[1].op, MemoryOp::kFree);
  EXPECT_EQ(t.memory_events[1].bytes, -(2 << 20));

  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.str(t.counters[0].name), "tensor_active_pct");
  EXPECT_DOUBLE_EQ(t.counters[0].value, 61.5);

  ASSERT_EQ(t.other_events.size(), 1u);
  EXPECT_EQ(t.str(t.other_events[0].name), "cupti_buffer_flush");
  EXPECT_EQ(t.str(t.other_events[0].category), "cupti_overhead");
  EXPECT_EQ(t.processes.at(4242).thread_names.at(4243), "trainer");

  // NVTX: step (depth 0) contains forward (depth 1); prefetch pairs by id across threads
  // and belongs to the thread that started it; the mark is instantaneous.
  ASSERT_EQ(t.ranges.size(), 4u);
  auto find = [&](std::string_view name) -> const Range* {
    for (const Range& r : t.ranges)
      if (t.str(r.name) == name) return &r;
    return nullptr;
  };
  const Range* step = find("step");
  const Range* fwd = find("forward");
  const Range* pre = find("prefetch");
  const Range* mark = find("checkpoint");
  ASSERT_TRUE(step && fwd && pre && mark);
  EXPECT_EQ(step->start_ns, 9500);
  EXPECT_EQ(step->end_ns, 45000);
  EXPECT_EQ(step->depth, 0);
  EXPECT_EQ(step->kind, RangeKind::kNvtx);
  EXPECT_EQ(fwd->start_ns, 9600);
  EXPECT_EQ(fwd->end_ns, 20000);
  EXPECT_EQ(fwd->depth, 1);
  EXPECT_EQ(pre->tid, 4260);
  EXPECT_EQ(pre->end_ns, 33000);
  EXPECT_EQ(mark->kind, RangeKind::kNvtxMark);
  EXPECT_EQ(mark->start_ns, mark->end_ns);

  EXPECT_EQ(t.diagnostics.Count("cupti_dropped_records"), 6u);
  EXPECT_EQ(t.diagnostics.Count("cupti_buffers_refused"), 2u);
  EXPECT_EQ(t.diagnostics.Count("cupti_unavailable"), 1u);
  EXPECT_EQ(t.diagnostics.Count("truncated_file"), 0u);
  EXPECT_EQ(t.diagnostics.Count("unknown_string_id"), 0u);
}

TEST(AmptraceTest, SummaryReadsWarningsAndFooterOnly) {
  std::string path = WriteSample(MakeTempDir("amptrace"));
  auto s = ReadAmptraceSummary(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->clean_end);
  EXPECT_FALSE(s->truncated);
  EXPECT_EQ(s->pid, 4242u);
  EXPECT_EQ(s->rank, 3);
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].code, "cupti_unavailable");
  EXPECT_EQ(s->stats.cupti_dropped_records, 6u);
  EXPECT_EQ(s->records_by_type.at(AmpChunkType::kNvtx), 7u);
  EXPECT_EQ(s->records_by_type.at(AmpChunkType::kKernel), 1u);
}

TEST(AmptraceTest, FileWithoutFooterReadsWithTruncationDiagnostic) {
  std::string path = WriteSample(MakeTempDir("amptrace"), /*finish=*/false);
  auto r = ReadAmptrace(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->diagnostics.Count("truncated_file"), 1u);
  EXPECT_EQ(r->diagnostics.entries().at("truncated_file").severity, Severity::kDataLoss);
  EXPECT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->ranges.size(), 4u);
  EXPECT_EQ(r->metadata.extra.at("clean_end"), "false");
}

// Cuts the file at every offset of the header and the first chunks, then at 250 random
// offsets (fixed seed): the header region must give a clean error, everything after it a
// trace with as many events as complete chunks hold (never more than the whole file's, never
// fewer than a shorter cut's), and a truncated_file diagnostic.
TEST(AmptraceTest, CutAtEveryOffsetNeverCrashes) {
  std::string dir = MakeTempDir("amptrace");
  std::string full = ReadFile(WriteSample(dir));
  auto whole = ReadAmptrace(dir + "/sample.amptrace");
  ASSERT_TRUE(whole.ok());
  const uint64_t all_events = whole->metadata.event_count;
  AmpFileHeader h;
  std::memcpy(&h, full.data(), sizeof(h));
  uint64_t previous = 0;
  const std::string cut_path = dir + "/cut.amptrace";
  std::vector<size_t> cuts;
  for (size_t len = 0; len < std::min<size_t>(full.size(), h.header_bytes + 200); ++len) cuts.push_back(len);
  std::mt19937 rng(2024);
  std::uniform_int_distribution<size_t> any(h.header_bytes, full.size() - 1);
  for (int i = 0; i < 250; ++i) cuts.push_back(any(rng));
  std::sort(cuts.begin(), cuts.end());
  for (size_t len : cuts) {
    WriteFile(cut_path, full.substr(0, len));
    auto r = ReadAmptrace(cut_path);
    if (len < h.header_bytes) {
      ASSERT_FALSE(r.ok()) << "cut at " << len;
      EXPECT_NE(r.status().message().find(cut_path + ": byte "), std::string::npos) << r.status().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << "cut at " << len << ": " << r.status().message();
    EXPECT_GE(r->diagnostics.Count("truncated_file"), 1u) << "cut at " << len;
    EXPECT_GE(r->metadata.event_count, previous) << "cut at " << len;
    EXPECT_LE(r->metadata.event_count, all_events);
    previous = r->metadata.event_count;
    auto s = ReadAmptraceSummary(cut_path);
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(s->clean_end);
    EXPECT_TRUE(s->truncated);
  }
}

// Random byte damage after the header: reads must not crash (ASan/UBSan builds check the
// memory side) and must report the damage.
TEST(AmptraceTest, RandomCorruptionIsReportedNotFatal) {
  std::string dir = MakeTempDir("amptrace");
  std::string full = ReadFile(WriteSample(dir));
  AmpFileHeader h;
  std::memcpy(&h, full.data(), sizeof(h));
  std::mt19937 rng(12345);  // fixed seed: reproducible
  const std::string path = dir + "/bad.amptrace";
  for (int trial = 0; trial < 200; ++trial) {
    std::string bad = full;
    std::uniform_int_distribution<size_t> pos(h.header_bytes, bad.size() - 1);
    const int flips = 1 + trial % 4;
    for (int i = 0; i < flips; ++i) bad[pos(rng)] ^= static_cast<char>(1 + rng() % 255);
    WriteFile(path, bad);
    auto r = ReadAmptrace(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Diagnostics& d = r->diagnostics;
    EXPECT_GT(d.Count("corrupt_chunk") + d.Count("bad_record_size") + d.Count("truncated_file"), 0u)
        << "trial " << trial << " went unnoticed";
  }
}

TEST(AmptraceTest, HeaderErrorsNameFileAndOffset) {
  std::string dir = MakeTempDir("amptrace");
  std::string full = ReadFile(WriteSample(dir));
  const std::string path = dir + "/h.amptrace";

  std::string bad_magic = full;
  bad_magic[0] = 'X';
  WriteFile(path, bad_magic);
  auto r = ReadAmptrace(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), path + ": byte 0: not an .amptrace file (bad magic, expected \"AMPTRACE\")");

  std::string bad_version = full;
  bad_version[8] = 9;  // version_major
  WriteFile(path, bad_version);
  r = ReadAmptrace(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), path + ": byte 8: unsupported .amptrace version 9." +
                                      std::to_string(kAmptraceVersionMinor) + " (this reader reads 1.x)");

  std::string bad_host = full;
  bad_host[sizeof(AmpFileHeader)] ^= 0x20;  // first byte of the host name
  WriteFile(path, bad_host);
  r = ReadAmptrace(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), path + ": byte 68: header checksum mismatch (corrupt header)");

  WriteFile(path, "");
  r = ReadAmptrace(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("byte 0: file ends inside the .amptrace header"), std::string::npos);

  r = ReadAmptrace(dir + "/missing.amptrace");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot open"), std::string::npos);
}

TEST(AmptraceTest, NewerWriterWithLargerRecordsIsReadByPrefix) {
  // A future minor version may append fields to a record: the reader uses the prefix it knows.
  std::string dir = MakeTempDir("amptrace");
  std::string path = dir + "/wide.amptrace";
  auto w = AmptraceWriter::Create(path, Header());
  ASSERT_TRUE(w.ok());
  struct WideCounter {
    AmpCounterRecord known;
    uint64_t future_field;
  } wide;
  std::memset(&wide, 0, sizeof(wide));
  wide.known.time_ns = 5, wide.known.value = 2.5, wide.known.name = w.value()->InternString("x");
  wide.future_field = 0xABCDEF;
  w.value()->AppendRaw(AmpChunkType::kCounter, sizeof(wide), &wide);
  ASSERT_TRUE(w.value()->Finish(Zero<AmpFooterRecord>()).ok());
  auto r = ReadAmptrace(path);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->counters.size(), 1u);
  EXPECT_DOUBLE_EQ(r->counters[0].value, 2.5);
  EXPECT_EQ(r->str(r->counters[0].name), "x");
  EXPECT_TRUE(r->diagnostics.entries().empty() || r->diagnostics.Count("truncated_file") == 0);
}

// A footer chunk with a valid checksum but no record (found by the UBSan fuzzer as a 136-byte
// file; fuzz/regressions/amptrace/footer_chunk_with_no_record.amptrace): the reader used to take
// record 0 of the empty payload, a null read that crashed `ampscope analyze` with SIGSEGV. It
// is a bad record size now, counted, and the file reads as one without a footer.
TEST(AmptraceTest, FooterChunkWithNoRecordIsSkippedNotRead) {
  std::string path = WriteSample(MakeTempDir("amptrace"), /*finish=*/false);
  AmpChunkHeader h;
  h.magic = kAmptraceChunkMagic;
  h.type = static_cast<uint16_t>(AmpChunkType::kFooter);
  h.record_size = sizeof(AmpFooterRecord);
  h.record_count = 0;
  h.payload_bytes = 0;
  h.payload_crc32 = AmptraceCrc32(nullptr, 0);
  h.header_crc32 = AmptraceCrc32(&h, offsetof(AmpChunkHeader, header_crc32));
  WriteFile(path, ReadFile(path) + std::string(reinterpret_cast<const char*>(&h), sizeof(h)));

  auto r = ReadAmptrace(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count("bad_record_size"), 1u);
  EXPECT_EQ(r->metadata.extra.at("clean_end"), "false");
  EXPECT_EQ(r->kernels.size(), 1u);  // the chunks before it are all there
  auto s = ReadAmptraceSummary(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->clean_end);
}

TEST(AmptraceTest, Crc32MatchesTheStandardCheckValue) {
  // The CRC-32/ISO-HDLC check value for "123456789" is 0xCBF43926 (the catalogue value zlib
  // and every implementation of this polynomial agree on).
  EXPECT_EQ(AmptraceCrc32("123456789", 9), 0xCBF43926u);
}

}  // namespace
}  // namespace amptrace_test
}  // namespace ampscope
