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
//   cudaStreamSynchronize [192,199) + a cuda_sync record; outside the steps: memset [205,206),
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
    k.grid[0] = 80;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = 256;
    k.block[1] = k.block[2] = 1;
    k.registers_per_thread = 64;
    k.static_shared_bytes = 0;
    k.blocks_per_sm = 0.74f;
    k.est_occupancy_pct = 25.0f;
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

nlohmann::json MakeReportJson(int ranks, int steps) {
  using nlohmann::json;
  json r;
  r["schema"] = "ampscope.report/1";
  r["tool"] = {{"name", "ampscope"}, {"version", "0.1.0"}};
  json inputs = json::array();
  for (int i = 0; i < ranks; ++i)
    inputs.push_back({{"path", "traces/rank" + std::to_string(i) + ".pt.trace.json.gz"},
                      {"format", "kineto"},
                      {"rank", i},
                      {"events", 123456}});
  r["inputs"] = inputs;
  r["devices"] = json::array({{{"id", 0},
                               {"name", "NVIDIA A100-SXM4-80GB"},
                               {"vendor", "nvidia"},
                               {"compute_capability", "8.0"},
                               {"peak", {{"fp16_tflops", 312}, {"hbm_gbs", 2039}}}}});
  json durations = json::array(), per_step = json::array(), windows = json::array();
  double t = 1000.0;
  for (int i = 0; i < steps; ++i) {
    double d = 100000.0 + 5000.0 * ((i * 7) % 5);  // 100..120 ms, varied
    durations.push_back(d);
    windows.push_back({{"number", i + 5}, {"name", "ProfilerStep#" + std::to_string(i + 5)},
                       {"start_us", t}, {"end_us", t + d}, {"cpu_end_us", t + d - 10}});
    per_step.push_back({{"number", i + 5},
                        {"start_us", t},
                        {"end_us", t + d},
                        {"duration_us", d},
                        {"busy_pct", 50.0 + (i % 4) * 10.0},
                        {"kernel_busy_pct", 45.0 + (i % 4) * 10.0},
                        {"tensor_core_kernel_pct", 12.5},
                        {"kernels", 1462},
                        {"syncs", i % 3}});
    t += d;
  }
  r["steps"] = {{"count", steps},
                {"source", "profiler_step"},
                {"time_us", {{"mean", 108000.0}, {"median", 105000.0}, {"p90", 120000.0}}},
                {"durations_us", durations},
                {"windows", windows},
                {"per_step", per_step},
                {"kernels_per_step", 1462.0}};
  r["gpu"] = {{"busy_pct", 61.25},
              {"idle_pct", 38.75},
              {"kernel_busy_pct", 55.5},
              {"idle_breakdown_pct", {{"host_wait", 30.0}, {"kernel_wait", 6.25}, {"other", 2.5}}},
              {"kernel_time_by_category_pct",
               {{"conv", 48.0}, {"gemm", 21.0}, {"elementwise", 17.0}, {"normalization", 9.0}, {"other", 5.0}}},
              {"kernel_time_by_precision_pct", {{"fp32", 70.0}, {"fp16", 25.0}, {"unknown", 5.0}}}};
  r["tensor_cores"] = {{"kernel_time_pct", 12.5}, {"active_pct", nullptr}, {"source", "estimated"}};
  auto dim = [](const char* status, const char* name, json value, const char* unit, const char* source,
                json findings) {
    return json{{"status", status},
                {"headline", {{"name", name}, {"value", value}, {"unit", unit}, {"source", source}}},
                {"metrics", json::object()},
                {"findings", findings}};
  };
  r["matrix"] = {
      {"compute_intensity", dim("bad", "Tensor Core kernel share", 12.5, "%", "estimated", {"fp32_gemm_no_amp"})},
      {"memory_bandwidth", dim("warn", "memory-bound kernel share", 26.0, "%", "measured", json::array())},
      {"instruction_efficiency", dim("good", "kernels per step", 1462, "kernels", "measured", json::array())},
      {"data_locality", dim("unknown", "allocation churn", nullptr, "", "unavailable: no memory events",
                            json::array())},
      {"task_parallelism", dim("bad", "GPU busy", 61.25, "%", "measured", {"data_loader_bottleneck"})}};
  r["checklist"] = json::array({
      {{"id", "tensor_core_utilization"}, {"status", "fail"}, {"value", 12.5}, {"threshold", "\xE2\x89\xA5" "70%"},
       {"source", "estimated"}, {"evidence", "12.5% of kernel time in Tensor Core kernels"}},
      {{"id", "autocast_coverage"}, {"status", "fail"}, {"value", 0}, {"threshold", "\xE2\x89\xA5" "80%"},
       {"source", "measured"}, {"evidence", "no fp16/bf16 GEMM or conv kernels"}},
      {{"id", "grad_scaler"}, {"status", "not_applicable"}, {"value", nullptr}, {"threshold", "fp16 only"},
       {"source", "measured"}, {"evidence", "no fp16 training detected"}},
      {{"id", "kernel_fusion"}, {"status", "warn"}, {"value", 8.1}, {"threshold", "< 5% of step"},
       {"source", "estimated"}, {"evidence", "chains of small elementwise kernels cost 8.1% of the step"}},
      {{"id", "data_pipeline"}, {"status", "fail"}, {"value", 30.0}, {"threshold", "< 5% of step"},
       {"source", "measured"}, {"evidence", "GPU idle waiting for the host 30% of the step"}},
      {{"id", "distributed_sync"}, {"status", "pass"}, {"value", 0}, {"threshold", "< 10%"},
       {"source", "measured"}, {"evidence", "single process"}},
      {{"id", "memory_fragmentation"}, {"status", "unknown"}, {"value", nullptr}, {"threshold", "no churn"},
       {"source", "unavailable"}, {"evidence", "the trace has no memory events"},
       {"how_to_know", "record with profile_memory=True"}},
  });
  r["findings"] = json::array({
      {{"id", "data_loader_bottleneck"}, {"severity", "critical"}, {"dimension", "task_parallelism"},
       {"checklist", "data_pipeline"}, {"title", "The GPU waits for the input pipeline 30% of each step"},
       {"evidence", {{"host_wait_pct", 30.0}, {"dataloader_us_per_step", 32000}, {"top_op", "enumerate(DataLoader)"}}},
       {"recommendation", "Use DataLoader(num_workers>0, pin_memory=True) and prefetch."},
       {"est_saving_pct", 27.5}},
      {{"id", "fp32_gemm_no_amp"}, {"severity", "warning"}, {"dimension", "compute_intensity"},
       {"checklist", "autocast_coverage"}, {"title", "GEMMs and convolutions run in FP32 on CUDA cores"},
       {"evidence", {{"fp32_simt_gemm_pct", 69.0}, {"kernels", {"volta_scudnn_128x64_relu_interior_nn_v1",
                                                                  "void foo<float>(A<B>&) <x>"}}}},
       {"recommendation", "Wrap the forward pass and loss in torch.autocast(\"cuda\", dtype=torch.bfloat16)."},
       {"est_saving_pct", 18.25}},
      {{"id", "small_kernels"}, {"severity", "info"}, {"dimension", "instruction_efficiency"}, {"checklist", nullptr},
       {"title", "Many short kernels"}, {"evidence", {{"pct_kernels_under_10us", 41.0}}},
       {"recommendation", "Consider torch.compile or CUDA Graphs."}, {"est_saving_pct", 1.5}},
  });
  json top = json::array();
  const char* names[] = {"volta_scudnn_128x64_relu_interior_nn_v1",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
                         "at::detail::Array<char*, 3>)",
                         "void foo<float>(A<B>&) <x> | y",
                         "volta_sgemm_128x64_nt",
                         "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(float*)"};
  for (int i = 0; i < 5; ++i)
    top.push_back({{"name", names[i]},
                   {"count", 100 * (i + 1)},
                   {"total_us", 50000.0 / (i + 1)},
                   {"mean_us", 500.0 / ((i + 1) * (i + 1))},
                   {"pct", 40.0 / (i + 1)},
                   {"category", i == 0 ? "conv" : i == 3 ? "gemm" : "elementwise"},
                   {"precision", "fp32"},
                   {"tensor_core", false}});
  r["kernels"] = {{"top", top}, {"all_count", 131}};
  json rank_list = json::array();
  for (int i = 0; i < ranks; ++i) {
    double busy = 61.25 - (i % 7);
    rank_list.push_back({{"rank", i},
                         {"steps", {{"count", steps}, {"source", "profiler_step"},
                                    {"time_us", {{"mean", 108000.0 + 100 * (i % 5)}, {"median", 105000.0},
                                                 {"p90", 120000.0}}}}},
                         {"gpu", {{"busy_pct", busy},
                                  {"idle_pct", 100 - busy},
                                  {"kernel_busy_pct", busy - 5},
                                  {"idle_breakdown_pct", {{"host_wait", 30.0}, {"kernel_wait", 6.25},
                                                          {"other", 100 - busy - 36.25}}}}},
                         {"tensor_cores", {{"kernel_time_pct", 12.5}, {"active_pct", nullptr},
                                           {"source", "estimated"}}}});
  }
  r["ranks"] = rank_list;
  r["diagnostics"] = {{"counters", {{"unsorted_events", 3}, {"negative_duration", 1}}},
                      {"messages", json::array({{{"code", "negative_duration"}, {"severity", "data_loss"},
                                                 {"count", 1}, {"file", "traces/rank0.pt.trace.json.gz"},
                                                 {"first_offset", 1234},
                                                 {"message", "event with dur -3 at byte 1234"}}})}};
  return r;
}

}  // namespace ampscope::testing
