#include "report_fixtures.h"

#include <cmath>

#include "support/trace_builder.h"

namespace ampscope::testing {

const char* const kNastyKernelName =
    "void nasty<\"q\\\", `tick`, A<B>&>(T&) </script><img src=x onerror=alert(1)> | \x01 end";

namespace {

constexpr int64_t kPid = 4242;
constexpr int64_t kTid = 4242;
constexpr int32_t kDevice = 0;
constexpr int32_t kStream = 7;

TimeNs At(int64_t us) { return kBaseNs + us * 1000; }

}  // namespace

// Timeline, in µs after kBaseNs (hand-designed; the idle numbers in the header follow):
//   ProfilerStep#1 [0,100)  ProfilerStep#2 [100,200)  on the host thread
//   launch corr 1 at 10 (5 µs)  -> K1 volta_sgemm   [20,40)
//   launch corr 2 at 16 (3 µs)  -> K2 nasty name     [45,50)   gap [40,45): launched earlier, 5 µs  -> kernel_wait
//   launch corr 3 at 90 (4 µs)  -> K3 fill kernel    [95,99)   gap [50,95): launch at 90 > 50       -> host_wait
//   launch corr 4 at 110 (2 µs) -> memcpy HtoD 1 MB  [112,120) gap [99,112): launch at 110 > 99     -> host_wait
//   launch corr 5 at 115 (4 µs) -> K4 fp16 TC gemm   [160,190) gap [120,160): launched earlier, 40 µs -> other
//   gap [190,200) (clipped to the step) ends with the memset at 205, launched at 201 > 190      -> host_wait
//   cudaStreamSynchronize [192,199) + a cuda_sync record (sync points: it and the pageable 1 MB
//   copy's call [110,112), a blocking input copy); outside the steps: memset [205,206),
//   K5 with an invalid UTF-8 name [210,211).
Trace MakeSmallTrace(int32_t rank) {
  TraceBuilder b;
  Trace& t = b.trace();
  t.metadata.format = SourceFormat::kKineto;
  t.metadata.path = rank >= 0 ? "memory://small.rank" + std::to_string(rank) + ".json" : "memory://small.json";
  t.metadata.rank = rank;
  t.metadata.world_size = rank >= 0 ? 2 : -1;
  t.metadata.pid = kPid;
  t.metadata.event_count = 40;

  Device d;
  d.id = kDevice;
  d.name = "NVIDIA A100-SXM4-80GB";
  d.vendor = GpuVendor::kNvidia;
  d.cc_major = 8;
  d.cc_minor = 0;
  d.sm_count = 108;
  d.total_memory_bytes = 85'899'345'920;
  t.devices.push_back(d);

  ProcessInfo host;
  host.name = "python3";
  host.labels = "CPU";
  host.thread_names[kTid] = "python3 main";
  t.processes[kPid] = host;
  ProcessInfo gpu;
  gpu.name = "python3";
  gpu.labels = "GPU 0";
  t.processes[kDevice] = gpu;

  auto name = [&](const std::string& s) { return b.Str(s); };

  auto range = [&](const char* n, int64_t s, int64_t e) { b.AddRange(n, At(s), At(e), RangeKind::kCpuAnnotation, kTid, kPid); };
  range("ProfilerStep#1", 0, 100);
  range("ProfilerStep#2", 100, 200);
  b.AddRange("checkpoint mark", At(150), At(150), RangeKind::kNvtxMark, kTid, kPid);

  auto api = [&](const char* n, int64_t corr, int64_t s, int64_t dur) {
    ApiCall& a = b.AddApi(n, At(s), At(s) + dur * 1000, corr, kTid, kPid);
    a.external_id = corr + 100;
    a.cbid = 211;
  };
  api("cudaLaunchKernel", 1, 10, 5);
  api("cudaLaunchKernel", 2, 16, 3);
  api("cudaLaunchKernel", 3, 90, 4);
  api("cudaMemcpyAsync", 4, 110, 2);
  api("cudaLaunchKernel", 5, 115, 4);
  api("cudaStreamSynchronize", 7, 192, 7);
  api("cudaMemsetAsync", 6, 201, 2);
  api("cudaLaunchKernel", 8, 208, 1);

  CpuOp& op = b.AddCpuOp("aten::mm", At(9), At(20), 101, {}, {}, kTid, kPid);
  op.sequence_number = 17;
  op.input_dims = name("[[32,64],[64,128]]");
  op.input_types = name("[\"float\",\"float\"]");

  auto kernel = [&](const std::string& n, int64_t corr, int64_t s, int64_t e) {
    KernelEvent& k = b.AddKernel(n, At(s), At(e), corr, kStream, kDevice);
    k.external_id = corr + 100;
    LaunchConfig lc;
    lc.grid[0] = 80;
    lc.grid[1] = lc.grid[2] = 1;
    lc.block[0] = 256;
    lc.block[1] = lc.block[2] = 1;
    lc.registers_per_thread = 64;
    lc.static_shared_bytes = 0;
    lc.blocks_per_sm = 0.74f;
    lc.est_occupancy_pct = 25.0f;
    k.launch_config = b.trace().InternLaunch(lc);
  };
  kernel("volta_sgemm_128x64_nn", 1, 20, 40);
  kernel(kNastyKernelName, 2, 45, 50);
  kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
         "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
         3, 95, 99);
  kernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 5, 160, 190);
  kernel(std::string("bad_utf8_\xff\xfe_kernel"), 8, 210, 211);
  // One more nanosecond-precise kernel after the steps: 1 ns long, at a sub-µs offset.
  KernelEvent tiny;
  tiny.start_ns = At(212) + 7;
  tiny.end_ns = tiny.start_ns + 1;
  tiny.name = name("tiny_kernel");
  tiny.device = kDevice;
  tiny.stream = kStream;
  t.kernels.push_back(tiny);

  MemcpyEvent m;
  m.start_ns = At(112);
  m.end_ns = At(120);
  m.correlation = 4;
  m.bytes = 1 << 20;
  m.device = kDevice;
  m.stream = kStream;
  m.kind = MemcpyKind::kHtoD;
  m.src_kind = MemoryKind::kPageable;
  m.dst_kind = MemoryKind::kDevice;
  t.memcpys.push_back(m);

  MemsetEvent ms;
  ms.start_ns = At(205);
  ms.end_ns = At(206);
  ms.correlation = 6;
  ms.bytes = 4096;
  ms.device = kDevice;
  ms.stream = kStream;
  ms.memory_kind = MemoryKind::kDevice;
  t.memsets.push_back(ms);

  SyncEvent sync;
  sync.start_ns = At(192);
  sync.end_ns = At(199);
  sync.correlation = 7;
  sync.pid = kDevice;
  sync.tid = kStream;
  sync.device = kDevice;
  sync.stream = kStream;
  sync.type = SyncType::kStreamSync;
  t.syncs.push_back(sync);

  MemoryEvent alloc;
  alloc.time_ns = At(105);
  alloc.address = 0x7f0000001000;
  alloc.bytes = 1 << 20;
  alloc.total_allocated = 3 << 20;
  alloc.total_reserved = 4 << 20;
  alloc.device = kDevice;
  t.memory_events.push_back(alloc);

  // PM-sampled Tensor Core activity: step 1 mean (40+60)/2 = 50, step 2 mean 80.
  for (auto [us, v] : {std::pair<int64_t, double>{0, 40.0}, {50, 60.0}, {150, 80.0}}) {
    CounterSample c;
    c.time_ns = At(us);
    c.name = name("tensor_active_pct");
    c.device = kDevice;
    c.value = v;
    t.counters.push_back(c);
  }

  // ac2g flows: start at the launch, finish at the GPU work (bind to enclosing).
  auto flow = [&](int64_t id, char phase, int64_t pid, int64_t tid, TimeNs ts) {
    FlowEvent f;
    f.time_ns = ts;
    f.id = id;
    f.pid = pid;
    f.tid = tid;
    f.category = name("ac2g");
    f.name = name("ac2g");
    f.phase = phase;
    f.bind_enclosing = phase == 'f';
    t.flows.push_back(f);
  };
  const std::pair<int64_t, std::pair<int64_t, int64_t>> links[] = {
      {1, {10, 20}}, {2, {16, 45}}, {3, {90, 95}}, {4, {110, 112}}, {5, {115, 160}}, {6, {201, 205}}, {8, {208, 210}}};
  for (const auto& [id, times] : links) {
    flow(id, 's', kPid, kTid, At(times.first));
    flow(id, 'f', kDevice, kStream, At(times.second));
  }
  flow(999, 's', kPid, kTid, At(30));  // dangling: no finish

  OtherEvent span;
  span.start_ns = At(0);
  span.end_ns = At(220);
  span.pid = kPid;
  span.tid = 1;
  span.name = name("PyTorch Profiler (0)");
  span.category = name("Trace");
  t.other_events.push_back(span);

  FinalizeTrace(t);
  return t;
}

void AddTestFindings(JobAnalysis& job) {
  auto add = [](RankAnalysis& ra) {
    Finding f;
    f.id = "test_slow_gap";
    f.severity = FindingSeverity::kWarning;
    f.dimension = "task_parallelism";
    f.checklist = "data_pipeline";
    f.title = "The GPU waits <45 us> for the host & the loader";
    f.evidence = {{"gap_us", 45}, {"kernel", kNastyKernelName}};
    f.recommendation = "Use pinned memory and more DataLoader workers.";
    f.est_saving_pct = 22.5;
    f.time_ranges.push_back({kBaseNs + 50'000, kBaseNs + 95'000});
    ra.findings.push_back(f);
    Finding g;
    g.id = "test_no_range";
    g.severity = FindingSeverity::kInfo;
    g.dimension = "compute_intensity";
    g.title = "An informational finding without a time range";
    g.recommendation = "Nothing to do.";
    g.est_saving_pct = 0;
    ra.findings.push_back(g);
  };
  for (RankAnalysis& ra : job.ranks) add(ra);
  add(job.job);
}

bool ParseDecimalMicrosToNs(const std::string& text, int64_t* ns) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && text[i] == '-') neg = true, ++i;
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) whole = whole * 10 + (text[i] - '0');
  if (digits == 0) return false;
  int64_t frac = 0;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++frac_digits)
      if (frac_digits < 3) frac = frac * 10 + (text[i] - '0');
  }
  if (i != text.size() || frac_digits > 3) return false;  // more than ns precision is not expected
  for (int k = frac_digits; k < 3; ++k) frac *= 10;
  *ns = (whole * 1000 + frac) * (neg ? -1 : 1);
  return true;
}

}  // namespace ampscope::testing
