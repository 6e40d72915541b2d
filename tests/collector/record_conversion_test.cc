// Record conversion: a buffer laid out by hand with one record of every kind the collector
// enables, walked with the REAL cuptiActivityGetNextRecord (libcupti.so.13 from the toolkit,
// bound through the collector's function table; this works without a driver), converted, and
// read back. The expected values are the ones put into the CUPTI structs below; API names are
// CUPTI's own (cuptiGetCallbackName), minus the version suffix.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "collector/cupti_api.h"
#include "collector/record_converter.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope {
namespace record_conversion_test {
namespace {

using collector::CuptiApi;
using collector::LoadCupti;
using collector::RecordConverter;

TEST(RecordConversionTest, EveryKindThroughTheRealIterator) {
  CuptiApi api;
  collector::CuptiLoadResult loaded = LoadCupti(&api);
  ASSERT_TRUE(loaded.ok) << loaded.error;
  uint32_t version = 0;
  ASSERT_EQ(api.GetVersion(&version), CUPTI_SUCCESS);
  EXPECT_EQ(version / 10000, 13u);

  // Records are packed back to back, as CUPTI lays them out, in 8-byte aligned storage.
  std::vector<uint64_t> aligned(1 << 12, 0);
  auto* base = reinterpret_cast<uint8_t*>(aligned.data());
  size_t used = 0;
  auto add = [&](auto record) {
    std::memcpy(base + used, &record, sizeof(record));
    used += sizeof(record);
  };
  char kernel_name[] = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn";
  char device_name[] = "NVIDIA A100-SXM4-80GB";
  char thread_name[] = "dataloader";
  char marker_name[] = "cupti_marker";
  char marker_domain[] = "my_domain";

  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.registersPerThread = 128;
  k.start = 1000000;
  k.end = 1250000;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 13;
  k.gridX = 108, k.gridY = 4, k.gridZ = 1;
  k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.staticSharedMemory = 4096;
  k.dynamicSharedMemory = 73728;
  k.correlationId = 501;
  k.name = kernel_name;
  k.graphId = 9;
  k.graphNodeId = 77;
  add(k);

  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.flags = 0;  // synchronous
  m.bytes = 8 << 20;
  m.start = 1300000;
  m.end = 1900000;
  m.deviceId = 1;
  m.contextId = 3;
  m.streamId = 7;
  m.correlationId = 502;
  add(m);

  CUpti_ActivityMemcpyPtoP4 p2p;
  std::memset(&p2p, 0, sizeof(p2p));
  p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p2p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p2p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p2p.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  p2p.bytes = 1 << 20;
  p2p.start = 2000000;
  p2p.end = 2100000;
  p2p.deviceId = 1;
  p2p.streamId = 14;
  p2p.srcDeviceId = 1;
  p2p.dstDeviceId = 2;
  p2p.correlationId = 503;
  add(p2p);

  CUpti_ActivityMemset4 ms;
  std::memset(&ms, 0, sizeof(ms));
  ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  ms.value = 0;
  ms.bytes = 65536;
  ms.start = 2200000;
  ms.end = 2201000;
  ms.deviceId = 1;
  ms.streamId = 13;
  ms.correlationId = 504;
  ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  add(ms);

  CUpti_ActivityAPI rt;
  std::memset(&rt, 0, sizeof(rt));
  rt.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  rt.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  rt.start = 990000;
  rt.end = 995000;
  rt.processId = 4000;
  rt.threadId = 4001;
  rt.correlationId = 501;
  add(rt);

  CUpti_ActivityAPI drv = rt;
  drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  drv.start = 991000;
  drv.end = 994000;
  add(drv);

  CUpti_ActivityAPI noisy = rt;
  noisy.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020;  // filtered, as Kineto does
  add(noisy);

  CUpti_ActivityAPI sync_api = rt;
  sync_api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
  sync_api.start = 2300000;
  sync_api.end = 2500000;
  sync_api.threadId = 4002;
  sync_api.correlationId = 505;
  add(sync_api);

  CUpti_ActivitySynchronization2 sy;
  std::memset(&sy, 0, sizeof(sy));
  sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sy.start = 2310000;
  sy.end = 2490000;
  sy.correlationId = 505;
  sy.contextId = 3;
  sy.streamId = 13;
  add(sy);

  CUpti_ActivityMemory4 mem;
  std::memset(&mem, 0, sizeof(mem));
  mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  mem.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  mem.address = 0x7f1200000000ull;
  mem.bytes = 1 << 30;
  mem.timestamp = 2600000;
  mem.deviceId = 1;
  add(mem);

  CUpti_ActivityOverhead3 oh;
  std::memset(&oh, 0, sizeof(oh));
  oh.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  oh.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  oh.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  oh.objectId.pt.processId = 4000;
  oh.objectId.pt.threadId = 4003;
  oh.start = 2700000;
  oh.end = 2750000;
  add(oh);

  CUpti_ActivityMarker2 mk;
  std::memset(&mk, 0, sizeof(mk));
  mk.kind = CUPTI_ACTIVITY_KIND_MARKER;
  mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  mk.timestamp = 900000;
  mk.id = 42;
  mk.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  mk.objectId.pt.threadId = 4001;
  mk.name = marker_name;
  mk.domain = marker_domain;
  add(mk);
  CUpti_ActivityMarker2 mk_end = mk;
  mk_end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  mk_end.timestamp = 2800000;
  mk_end.name = nullptr;
  mk_end.domain = nullptr;
  add(mk_end);

  CUpti_ActivityDevice5 dev;
  std::memset(&dev, 0, sizeof(dev));
  dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  dev.globalMemorySize = 80ull << 30;
  dev.numThreadsPerWarp = 32;
  dev.numMultiprocessors = 108;
  dev.maxWarpsPerMultiprocessor = 64;
  dev.maxRegistersPerMultiprocessor = 65536;
  dev.maxSharedMemoryPerMultiprocessor = 167936;
  dev.computeCapabilityMajor = 8;
  dev.computeCapabilityMinor = 0;
  dev.id = 1;
  dev.name = device_name;
  add(dev);

  CUpti_ActivityContext3 ctx;
  std::memset(&ctx, 0, sizeof(ctx));
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  ctx.contextId = 3;
  ctx.deviceId = 1;
  ctx.nullStreamId = 7;
  add(ctx);

  CUpti_ActivityName nm;
  std::memset(&nm, 0, sizeof(nm));
  nm.kind = CUPTI_ACTIVITY_KIND_NAME;
  nm.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  nm.objectId.pt.processId = 4000;
  nm.objectId.pt.threadId = 4003;
  nm.name = thread_name;
  add(nm);

  // Convert. The CUPTI-owned strings are overwritten right after, as CUPTI would reuse the
  // memory: the file must hold copies.
  std::string dir = testing::MakeTempDir("conversion");
  std::string path = dir + "/conv.amptrace";
  AmptraceHeaderInfo header;
  header.pid = 4000;
  auto writer = AmptraceWriter::Create(path, header);
  ASSERT_TRUE(writer.ok());
  RecordConverter converter(api, *writer.value());
  RecordConverter::BufferResult r = converter.ConvertBuffer(base, used);
  std::memset(kernel_name, 'x', sizeof(kernel_name) - 1);
  std::memset(device_name, 'x', sizeof(device_name) - 1);
  EXPECT_FALSE(r.walk_error);
  EXPECT_EQ(r.converted, 15u);  // 16 records, one filtered
  EXPECT_EQ(r.filtered, 1u);
  EXPECT_EQ(r.unknown, 0u);
  AmpFooterRecord footer;
  std::memset(&footer, 0, sizeof(footer));
  ASSERT_TRUE(writer.value()->Finish(footer).ok());

  auto t = ReadAmptrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->kernels.size(), 1u);
  const KernelEvent& ke = t->kernels[0];
  EXPECT_EQ(t->str(ke.name), "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
  EXPECT_EQ(ke.start_ns, 1000000);
  EXPECT_EQ(ke.end_ns, 1250000);
  EXPECT_EQ(ke.device, 1);
  EXPECT_EQ(ke.stream, 13);
  EXPECT_EQ(ke.correlation, 501);
  EXPECT_EQ(t->launch(ke).grid[0], 108u);
  EXPECT_EQ(t->launch(ke).grid[1], 4u);
  EXPECT_EQ(t->launch(ke).block[0], 256u);
  EXPECT_EQ(t->launch(ke).registers_per_thread, 128);
  EXPECT_EQ(t->launch(ke).static_shared_bytes, 4096);
  EXPECT_EQ(t->launch(ke).dynamic_shared_bytes, 73728);
  EXPECT_EQ(ke.graph_id, 9u);

  ASSERT_EQ(t->memcpys.size(), 2u);
  const MemcpyEvent& d2h = t->memcpys[0];
  EXPECT_EQ(d2h.kind, MemcpyKind::kDtoH);
  EXPECT_EQ(d2h.src_kind, MemoryKind::kDevice);
  EXPECT_EQ(d2h.dst_kind, MemoryKind::kPageable);
  EXPECT_EQ(d2h.bytes, 8u << 20);
  EXPECT_FALSE(d2h.async);
  EXPECT_EQ(d2h.stream, 7);
  EXPECT_EQ(d2h.correlation, 502);
  const MemcpyEvent& peer = t->memcpys[1];
  EXPECT_EQ(peer.kind, MemcpyKind::kPtoP);
  EXPECT_TRUE(peer.async);
  EXPECT_EQ(peer.bytes, 1u << 20);

  ASSERT_EQ(t->memsets.size(), 1u);
  EXPECT_EQ(t->memsets[0].bytes, 65536u);
  EXPECT_EQ(t->memsets[0].memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(t->memsets[0].correlation, 504);

  ASSERT_EQ(t->api_calls.size(), 3u);  // launch (runtime), cuLaunchKernel (driver), sync; not cudaGetDevice
  EXPECT_EQ(t->str(t->api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t->api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(t->api_calls[0].cbid, int32_t(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_EQ(t->api_calls[0].pid, 4000);
  EXPECT_EQ(t->api_calls[0].tid, 4001);
  EXPECT_EQ(t->str(t->api_calls[1].name), "cuLaunchKernel");
  EXPECT_EQ(t->api_calls[1].domain, ApiDomain::kDriver);
  EXPECT_EQ(t->str(t->api_calls[2].name), "cudaStreamSynchronize");

  ASSERT_EQ(t->syncs.size(), 1u);
  EXPECT_EQ(t->syncs[0].type, SyncType::kStreamSync);
  EXPECT_EQ(t->syncs[0].device, 1);   // context 3 -> device 1
  EXPECT_EQ(t->syncs[0].tid, 4002);   // correlation 505 -> the cudaStreamSynchronize thread
  EXPECT_EQ(t->syncs[0].stream, 13);

  ASSERT_EQ(t->memory_events.size(), 1u);
  EXPECT_EQ(t->memory_events[0].op, MemoryOp::kFree);
  EXPECT_EQ(t->memory_events[0].bytes, -(int64_t{1} << 30));
  EXPECT_EQ(t->memory_events[0].address, 0x7f1200000000ull);

  ASSERT_EQ(t->other_events.size(), 1u);
  EXPECT_EQ(t->str(t->other_events[0].name), "cupti_buffer_flush");
  EXPECT_EQ(t->other_events[0].tid, 4003);
  EXPECT_EQ(t->other_events[0].end_ns - t->other_events[0].start_ns, 50000);

  ASSERT_EQ(t->ranges.size(), 1u);
  EXPECT_EQ(t->str(t->ranges[0].name), "cupti_marker");
  EXPECT_EQ(t->str(t->ranges[0].domain), "my_domain");
  EXPECT_EQ(t->ranges[0].start_ns, 900000);
  EXPECT_EQ(t->ranges[0].end_ns, 2800000);
  EXPECT_EQ(t->ranges[0].tid, 4001);

  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].id, 1);
  EXPECT_EQ(t->devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(t->devices[0].cc_major, 8);
  EXPECT_EQ(t->devices[0].sm_count, 108);
  EXPECT_EQ(t->devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(t->devices[0].shared_mem_per_sm, 167936);
  EXPECT_EQ(t->processes.at(4000).thread_names.at(4003), "dataloader");
}

TEST(RecordConversionTest, NoisyApiTableMatchesCuptiNames) {
  // The filter list must name what its comment says; CUPTI's own names are the reference.
  CuptiApi api;
  ASSERT_TRUE(LoadCupti(&api).ok);
  size_t n = 0;
  const uint32_t* cbids = RecordConverter::NoisyRuntimeCbids(&n);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    ASSERT_EQ(api.GetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbids[i], &name), CUPTI_SUCCESS);
    std::string s = name;
    EXPECT_TRUE(s.find("Get") != std::string::npos || s.find("Peek") != std::string::npos ||
                s.find("IsCapturing") != std::string::npos)
        << s;
    EXPECT_EQ(s.find("Launch"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace record_conversion_test
}  // namespace ampscope
