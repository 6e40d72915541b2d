#include "report_json_fixture.h"

namespace ampscope::testing {

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
  // The critical path (docs/whatif.md): shares summing to 100, µs over the steps.
  json lengths = json::array();
  for (int i = 0; i < steps; ++i) lengths.push_back(108000.0);
  r["critical_path"] = {{"available", true},
                        {"breakdown_pct", {{"gpu_compute", 55.0}, {"gpu_memory", 1.0}, {"communication", 0.0},
                                           {"kernel_launch_delay", 2.0}, {"host_bound", 30.0}, {"unrecorded_host", 10.0},
                                           {"sync_wait", 2.0}}},
                        {"breakdown_us", {{"gpu_compute", 356400.0}, {"gpu_memory", 6480.0}, {"communication", 0.0},
                                          {"kernel_launch_delay", 12960.0}, {"host_bound", 194400.0},
                                          {"unrecorded_host", 64800.0}, {"sync_wait", 12960.0}}},
                        {"gpu_gap_pct", 1.5},
                        {"length_us", lengths},
                        {"replay_error_pct", 0.4},
                        {"worst_step", 7}};
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
  // Each message carries what its code means, as reports/json_report.cc writes it (short texts
  // here, so a test line does not wrap).
  r["diagnostics"] = {{"counters", {{"unsorted_events", 3}, {"negative_duration", 1}}},
                      {"messages", json::array({{{"code", "negative_duration"}, {"severity", "data_loss"},
                                                 {"description", "end before start; read as zero-length"},
                                                 {"count", 1}, {"file", "traces/rank0.pt.trace.json.gz"},
                                                 {"first_offset", 1234},
                                                 {"message", "event with dur -3 at byte 1234"}},
                                                {{"code", "unsorted_events"}, {"severity", "info"},
                                                 {"description", "events out of time order; sorted"},
                                                 {"count", 3}, {"file", "traces/rank0.pt.trace.json.gz"},
                                                 {"first_offset", -1},
                                                 {"message", "3 events earlier than the one before them"}}})}};
  return r;
}

// A roofline section with numbers small enough to place every mark by hand.
nlohmann::json WithHandRoofline(nlohmann::json r) {
  using nlohmann::json;
  r["roofline"] = {
      {"available", true},
      {"gpu", {{"name", "Test GPU"}, {"peak_id", "TEST"}, {"match", "device name"}, {"hbm_tbps", 2.0},
               {"roofs", {{{"precision", "bf16"}, {"unit", "matrix"}, {"tflops", 1000.0}},
                          {{"precision", "fp32"}, {"unit", "vector"}, {"tflops", 60.0}}}}}},
      {"window", "steps"}, {"step_gflop", 1234.6}, {"achieved_tflops", 50.0}, {"peak_tflops", 1000.0},
      {"peak_precision", "bf16"}, {"mfu_pct", 5.0}, {"mfu_reason", nullptr}, {"hfu_pct", nullptr},
      {"steps", {{{"step", 3}, {"time_us", 24690.0}, {"model_gflop", 1234.6}, {"achieved_tflops", 50.0}, {"mfu_pct", 5.0}}}},
      {"ops", {{{"op", "aten::mm"}, {"input_dims", {{4096, 4096}, {4096, 4096}}}, {"dtype", "bf16"}, {"pass", "forward"},
                {"count", 10}, {"gflop", 137.4}, {"flop_per_byte", 100.0}, {"kernel_time_us", 400.0}, {"tflops", 100.0},
                {"bound", "memory"}, {"pct_of_peak", 50.0}},
               {{"op", "aten::bmm"}, {"input_dims", {{8, 64, 64}, {8, 64, 64}}}, {"dtype", "fp32"}, {"pass", "backward"},
                {"count", 2}, {"gflop", 0.004}, {"flop_per_byte", 1000.0}, {"kernel_time_us", 100.0}, {"tflops", 10.0},
                {"bound", "compute"}, {"pct_of_peak", 16.67}},
               {{"op", "aten::add"}, {"input_dims", {{1024}}}, {"dtype", "bf16"}, {"pass", "forward"}, {"count", 5},
                {"gflop", 0.0}, {"bytes", 6144}, {"flop_per_byte", nullptr}, {"kernel_time_us", 5.0}, {"tbps", 1.5},
                {"bound", "memory"}, {"pct_of_peak", 75.0}}}},
      {"ops_total", 3},
      {"coverage", {{"kernel_time_us", 1000.0}, {"modelled_kernel_time_us", 505.0}}}};
  return r;
}

}  // namespace ampscope::testing
