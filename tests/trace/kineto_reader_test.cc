// Reader unit tests on small inline Kineto traces of both formats.
// Expected values are read by hand off the inline JSON in this file (µs -> ns by hand:
// 1020.123 µs = 1020123 ns); byte offsets are found with std::string::find on that JSON.
#include <zlib.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/trace_dump.h"
#include "support/test_support.h"
#include "trace/io/input_stream.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kineto_reader_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------------------
// Inline traces

// Current format: one of each event kind the reader models.
const std::string kCurrentTrace = R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 84990623744, "computeMajor": 8, "computeMinor": 0,
     "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 167936, "numSms": 108}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "nccl_version": "2.18.1"},
  "cuda_runtime_version": 12010,
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 100, "tid": 101, "ts": 1000.5, "dur": 500.25, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 101, "ts": 1010, "dur": 20.0015, "args": {"External id": 2, "Sequence number": 77, "Fwd thread id": 0, "Input Dims": [[32, 64], [64, 16]], "Input type": ["c10::Half", "c10::Half"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101, "ts": 1012.000, "dur": 5, "args": {"External id": 2, "cbid": 211, "correlation": 500}},
  {"ph": "s", "id": 500, "pid": 100, "tid": 101, "ts": 1012, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", "pid": 0, "tid": 7, "ts": 1020.123, "dur": 10.5, "args": {"External id": 2, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 500, "registers per thread": 232, "shared memory": 73728, "blocks per SM": 0.5, "warps per SM": 4.0, "grid": [4, 2, 1], "block": [256, 1, 1], "est. achieved occupancy %": 12}},
  {"ph": "f", "id": 500, "pid": 0, "tid": 7, "ts": 1020.123, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 100, "tid": 101, "ts": 1030, "dur": 3, "args": {"External id": 3, "cbid": 307, "correlation": 501}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 20, "ts": 1040, "dur": 100, "args": {"External id": 3, "device": 0, "stream": 20, "correlation": 501, "grid": [8, 1, 1], "block": [544, 1, 1], "Collective name": "allreduce", "In msg nelems": 2049000, "Out msg nelems": 2049000, "Group size": 2, "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 101, "ts": 1050, "dur": 4, "args": {"External id": 4, "cbid": 41, "correlation": 502}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 1060, "dur": 2, "args": {"External id": 4, "device": 0, "stream": 7, "correlation": 502, "bytes": 1048576, "memory bandwidth (GB/s)": 524.288}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 100, "tid": 101, "ts": 1070, "dur": 9, "args": {"cbid": 31, "correlation": 503}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 1072, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 503, "bytes": 4}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1080, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 504, "bytes": 128}},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": 7, "ts": 1090, "dur": 3, "args": {"cuda_sync_kind": "Event Sync", "stream": 7, "correlation": 505, "device": 0}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 1020, "dur": 120, "args": {"External id": 1}},
  {"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 100, "tid": 101, "ts": 1001, "dur": 400, "args": {"Python id": 5}},
  {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_add_0", "pid": 100, "tid": 101, "ts": 1100, "dur": 2, "args": {"kernel_backend": "triton"}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 101, "ts": 1011, "args": {"Total Reserved": 2097152, "Total Allocated": 1024, "Bytes": 1024, "Addr": 139872, "Device Id": 0, "Device Type": 1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 101, "ts": 1200, "args": {"Total Reserved": 2097152, "Total Allocated": 0, "Bytes": -1024, "Addr": 139872, "Device Id": 0, "Device Type": 1}},
  {"ph": "C", "name": "tensor_active_pct", "pid": 0, "tid": 0, "ts": 1030, "args": {"value": 42.5}},
  {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "ts": 1000, "args": {"name": "python3"}},
  {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "ts": 1000, "args": {"labels": "GPU 0"}},
  {"ph": "M", "name": "thread_name", "pid": 100, "tid": 101, "ts": 1000, "args": {"name": "thread 101 (python3)"}},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 999, "dur": 600, "args": {"Op count": 0}}
  ],
  "traceName": "inline.json"
}
)JSON";
constexpr uint64_t kCurrentTraceEvents = 24;  // counted by hand above

// 2021 format (PyTorch 1.9): capitalised cats, "external id", string tids, ProfilerStep as an
// Operator, [memory] instants without a cat, deviceProperties after traceEvents.
const std::string kOldTrace = R"JSON({
  "schemaVersion": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "Operator",
    "name": "ProfilerStep#5", "pid": 25738, "tid": "25738",
    "ts": 1623142623460111, "dur": 1000,
    "args": {"Device": 25738, "External id": 1, "Trace name": "PyTorch Profiler", "Trace iteration": 0}
  },
  {
    "ph": "X", "cat": "Operator",
    "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 25738, "tid": "25738",
    "ts": 1623142623460120, "dur": 100,
    "args": {"Device": 25738, "External id": 2}
  },
  {
    "ph": "X", "cat": "Operator",
    "name": "aten::conv2d", "pid": 25738, "tid": "25738",
    "ts": 1623142623460300, "dur": 50,
    "args": {"Device": 25738, "External id": 3, "Input Dims": [[32, 3, 224, 224], [64, 3, 7, 7], []], "Input type": ["float", "float", ""], "Call stack": "x.py(1): f;y.py(2): g"}
  },
  {
    "ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738, "ts": 1623142623460310,
    "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096}
  },
  {
    "ph": "X", "cat": "Runtime",
    "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738",
    "ts": 1623142623460320, "dur": 8,
    "args": {"cbid": 211, "correlation": 34441, "external id": 3, "external ts": 1623142623460300}
  },
  {"ph": "s", "id": 34441, "pid": 25738, "tid": 25738, "ts": 1623142623460320, "cat": "async", "name": "launch"},
  {
    "ph": "X", "cat": "Kernel",
    "name": "implicit_convolve_sgemm", "pid": 0, "tid": "stream 7",
    "ts": 1623142623460330, "dur": 40,
    "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 34441, "external id": 3, "registers per thread": 38, "shared memory": 0, "blocks per SM": 0.625, "warps per SM": 5.0, "grid": [50, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 25}
  },
  {"ph": "f", "id": 34441, "pid": 0, "tid": "stream 7", "ts": 1623142623460330, "cat": "async", "name": "launch", "bp": "e"},
  {
    "ph": "X", "cat": "Runtime",
    "name": "cudaMemcpyAsync", "pid": 25738, "tid": "25738",
    "ts": 1623142623460400, "dur": 20,
    "args": {"cbid": 41, "correlation": 34417, "external id": 4, "external ts": 1623142623460390}
  },
  {
    "ph": "X", "cat": "Memcpy",
    "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7",
    "ts": 1623142623460410, "dur": 1940,
    "args": {"device": 0, "context": 1, "stream": 7, "correlation": 34417, "external id": 4, "bytes": 19267584, "memory bandwidth (GB/s)": 9.927016204653041}
  },
  {
    "ph": "X", "cat": "Runtime",
    "name": "cudaMemsetAsync", "pid": 25738, "tid": "25738",
    "ts": 1623142623460500, "dur": 5,
    "args": {"cbid": 51, "correlation": 38304, "external id": 5, "external ts": 1623142623460490}
  },
  {
    "ph": "X", "cat": "Memset",
    "name": "Memset (Device)", "pid": 0, "tid": "stream 7",
    "ts": 1623142623460510, "dur": 1,
    "args": {"device": 0, "context": 1, "stream": 7, "correlation": 38304, "external id": 5, "bytes": 128000, "memory bandwidth (GB/s)": 88.88888888888889}
  },
  {
    "ph": "X", "cat": "Operator",
    "name": "Optimizer.step#SGD.step", "pid": 25738, "tid": "25738",
    "ts": 1623142623460600, "dur": 300,
    "args": {"Device": 25738, "External id": 6}
  },
  {
    "name": "process_labels", "ph": "M", "ts": 1623142623460016, "pid": 0, "tid": 0,
    "args": {"labels": "GPU 0"}
  },
  {
    "name": "thread_name", "ph": "M", "ts": 1623142623460016, "pid": 25738, "tid": "25772",
    "args": {"name": "thread 25772 (python)"}
  },
  {
    "ph": "X", "cat": "Trace", "ts": 1623142623460016, "dur": 1065723,
    "pid": "Traces", "tid": "PyTorch Profiler",
    "name": "PyTorch Profiler (0)",
    "args": {"Op count": 0}
  },
  {
    "name": "Record Window End", "ph": "i", "s": "g",
    "pid": "", "tid": "", "ts": 1623142624633484
  }
  ],
  "deviceProperties": [
    {"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416, "computeMajor": 7, "computeMinor": 0,
     "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536,
     "sharedMemPerMultiprocessor": 98304, "numSms": 80}
  ]
})JSON";

StatusOr<Trace> Read(const std::string& json, const std::string& name = "inline.json",
                     const KinetoReadOptions& options = {}) {
  return ReadKinetoTraceFromString(json, name, options);
}

StatusOr<Trace> ReadChunked(const std::string& json, size_t chunk, const std::string& name = "inline.json") {
  std::unique_ptr<ByteSource> source = MakeChunkLimitedByteSource(MakeStringByteSource(json), chunk);
  return ReadKinetoTraceFromSource(*source, name);
}

std::string Gzip(std::string_view data, int level = 6) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

uint64_t Offset(const std::string& haystack, const std::string& needle) {
  size_t at = haystack.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return at;
}

// Every fatal message is one line: "<name>: byte <offset>: <what>".
void ExpectFatal(const StatusOr<Trace>& r, const std::string& name, int64_t offset, const std::string& what) {
  ASSERT_FALSE(r.ok()) << "expected an error mentioning: " << what;
  const std::string& msg = r.status().message();
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  if (offset >= 0) {
    EXPECT_THAT(msg, StartsWith(name + ": byte " + std::to_string(offset) + ": ")) << msg;
  } else {
    // "<name>: byte <digits>[ (compressed)]: <what>"
    const std::string prefix = name + ": byte ";
    ASSERT_THAT(msg, StartsWith(prefix));
    size_t i = prefix.size(), digits = i;
    while (i < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i]))) ++i;
    EXPECT_GT(i, digits) << msg;
    std::string rest = msg.substr(i);
    EXPECT_TRUE(rest.rfind(": ", 0) == 0 || rest.rfind(" (compressed): ", 0) == 0) << msg;
  }
  EXPECT_THAT(msg, HasSubstr(what)) << msg;
}

// ---------------------------------------------------------------------------------------
// Time conversion

TEST(ParseMicrosToNs, ExactDecimalConversion) {
  struct Case {
    const char* text;
    int64_t ns;
  };
  // Expected: the decimal µs value times 1000, rounded half away from zero at the 4th decimal.
  const Case cases[] = {
      {"1682725898237042.123", 1682725898237042123},  // needs 61 bits: a double would lose the ns
      {"1712195495506161.2", 1712195495506161200},
      {"1682725898237042.1239999", 1682725898237042124},  // 4th fractional digit 9 rounds up
      {"1682725898237042.1234", 1682725898237042123},
      {"42", 42000},
      {"0", 0},
      {"-0", 0},
      {"20.0015", 20002},  // half rounds up
      {"20.0014999", 20001},
      {"0.0004", 0},
      {"0.0005", 1},
      {"-3.25", -3250},
      {"-0.0005", -1},  // half away from zero
      {"1.5e3", 1500000},
      {"1.5E+3", 1500000},
      {"15e-1", 1500},
      {"2.5e-3", 3},
      {"1e-3", 1},
      {"1e-4", 0},
      {"0.000000000000000000000000000000001", 0},
      {"00012", 12000},
      {"9223372036854775", 9223372036854775000},  // largest whole µs that fits in int64 ns
  };
  for (const Case& c : cases) {
    int64_t ns = -777;
    EXPECT_TRUE(ParseMicrosToNs(c.text, &ns)) << c.text;
    EXPECT_EQ(ns, c.ns) << c.text;
  }
}

// Property: appending "e0" (same value, but through the exponent-handling path) never changes
// the result. Random decimals of 1-19 integer and 0-9 fractional digits, both signs.
TEST(ParseMicrosToNs, PlainAndExponentFormsAgree) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = (rng() % 4 == 0) ? "-" : "";
    int int_digits = 1 + static_cast<int>(rng() % 19), frac_digits = static_cast<int>(rng() % 10);
    for (int d = 0; d < int_digits; ++d) text.push_back(static_cast<char>('0' + rng() % 10));
    if (frac_digits > 0) {
      text.push_back('.');
      for (int d = 0; d < frac_digits; ++d) text.push_back(static_cast<char>('0' + rng() % 10));
    }
    int64_t plain = 0, exp = 0;
    bool plain_ok = ParseMicrosToNs(text, &plain);
    bool exp_ok = ParseMicrosToNs(text + "e0", &exp);
    ASSERT_EQ(plain_ok, exp_ok) << text;
    if (plain_ok) {
      ASSERT_EQ(plain, exp) << text;
    }
  }
}

TEST(ParseMicrosToNs, RejectsNonNumbersAndOverflow) {
  for (const char* text : {"", "-", "abc", "1.", ".5", "1e", "1e+", "NaN", "Infinity", "-Infinity", "1.2.3", "+1",
                           "1 ", " 1", "0x10", "9223372036854776", "1e300", "1e17"}) {
    int64_t ns = 0;
    EXPECT_FALSE(ParseMicrosToNs(text, &ns)) << text;
  }
}

// ---------------------------------------------------------------------------------------
// Current format, field by field

TEST(KinetoReader, CurrentFormatFieldByField) {
  StatusOr<Trace> r = Read(kCurrentTrace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;

  EXPECT_EQ(t.metadata.format, SourceFormat::kKineto);
  EXPECT_EQ(t.metadata.path, "inline.json");
  EXPECT_EQ(t.metadata.rank, 3);
  EXPECT_EQ(t.metadata.world_size, 8);
  EXPECT_EQ(t.metadata.distributed_backend, "nccl");
  EXPECT_EQ(t.metadata.nccl_version, "2.18.1");
  EXPECT_EQ(t.metadata.cuda_runtime_version, "12010");
  EXPECT_EQ(t.metadata.input_bytes, kCurrentTrace.size());
  EXPECT_EQ(t.metadata.event_count, kCurrentTraceEvents);
  EXPECT_EQ(t.metadata.pid, 100);
  EXPECT_EQ(t.metadata.extra.at("traceName"), "inline.json");

  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 0);
  EXPECT_EQ(t.devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(t.devices[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(t.devices[0].cc_major, 8);
  EXPECT_EQ(t.devices[0].cc_minor, 0);
  EXPECT_EQ(t.devices[0].sm_count, 108);
  EXPECT_EQ(t.devices[0].total_memory_bytes, 84990623744);
  EXPECT_EQ(t.devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(t.devices[0].regs_per_sm, 65536);
  EXPECT_EQ(t.devices[0].shared_mem_per_sm, 167936);

  ASSERT_EQ(t.kernels.size(), 2u);
  const KernelEvent& gemm = t.kernels[0];
  EXPECT_EQ(t.str(gemm.name), "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
  EXPECT_EQ(gemm.start_ns, 1020123);
  EXPECT_EQ(gemm.end_ns, 1020123 + 10500);
  EXPECT_EQ(gemm.correlation, 500);
  EXPECT_EQ(gemm.external_id, 2);
  EXPECT_EQ(gemm.device, 0);
  EXPECT_EQ(gemm.stream, 7);
  EXPECT_EQ(t.launch(gemm).grid[0], 4u);
  EXPECT_EQ(t.launch(gemm).grid[1], 2u);
  EXPECT_EQ(t.launch(gemm).grid[2], 1u);
  EXPECT_EQ(t.launch(gemm).block[0], 256u);
  EXPECT_EQ(t.launch(gemm).block[1], 1u);
  EXPECT_EQ(t.launch(gemm).registers_per_thread, 232);
  EXPECT_EQ(t.launch(gemm).dynamic_shared_bytes, 73728);  // "shared memory" is static + dynamic
  EXPECT_EQ(t.launch(gemm).static_shared_bytes, -1);
  EXPECT_FLOAT_EQ(t.launch(gemm).blocks_per_sm, 0.5f);
  EXPECT_FLOAT_EQ(t.launch(gemm).est_occupancy_pct, 12.f);
  EXPECT_EQ(gemm.comm_index, -1);

  const KernelEvent& nccl = t.kernels[1];
  EXPECT_EQ(nccl.stream, 20);
  EXPECT_EQ(nccl.start_ns, 1040000);
  EXPECT_EQ(nccl.end_ns, 1140000);
  EXPECT_EQ(t.launch(nccl).registers_per_thread, -1);
  EXPECT_EQ(t.launch(nccl).blocks_per_sm, -1.f);
  ASSERT_EQ(nccl.comm_index, 0);
  ASSERT_EQ(t.comm_infos.size(), 1u);
  const CommInfo& c = t.comm_infos[0];
  EXPECT_EQ(t.str(c.collective), "allreduce");
  EXPECT_EQ(t.str(c.dtype), "Float");
  EXPECT_EQ(t.str(c.process_group), "0");
  EXPECT_EQ(t.str(c.process_group_desc), "default_pg");
  EXPECT_EQ(c.in_nelems, 2049000);
  EXPECT_EQ(c.out_nelems, 2049000);
  EXPECT_EQ(c.group_size, 2);

  ASSERT_EQ(t.api_calls.size(), 4u);
  EXPECT_EQ(t.str(t.api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].start_ns, 1012000);
  EXPECT_EQ(t.api_calls[0].end_ns, 1017000);
  EXPECT_EQ(t.api_calls[0].correlation, 500);
  EXPECT_EQ(t.api_calls[0].external_id, 2);
  EXPECT_EQ(t.api_calls[0].cbid, 211);
  EXPECT_EQ(t.api_calls[0].pid, 100);
  EXPECT_EQ(t.api_calls[0].tid, 101);
  EXPECT_EQ(t.api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(t.str(t.api_calls[1].name), "cuLaunchKernel");
  EXPECT_EQ(t.api_calls[1].domain, ApiDomain::kDriver);
  EXPECT_EQ(t.api_calls[1].cbid, 307);
  EXPECT_EQ(t.api_calls[3].external_id, -1);  // cudaMemcpy has no External id

  ASSERT_EQ(t.memcpys.size(), 2u);
  EXPECT_EQ(t.memcpys[0].kind, MemcpyKind::kHtoD);
  EXPECT_EQ(t.memcpys[0].src_kind, MemoryKind::kPinned);
  EXPECT_EQ(t.memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys[0].bytes, 1048576u);
  EXPECT_EQ(t.memcpys[0].correlation, 502);
  EXPECT_EQ(t.memcpys[0].external_id, 4);
  EXPECT_TRUE(t.memcpys[0].async);  // cudaMemcpyAsync
  EXPECT_EQ(t.memcpys[1].kind, MemcpyKind::kDtoH);
  EXPECT_EQ(t.memcpys[1].src_kind, MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys[1].dst_kind, MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys[1].bytes, 4u);
  EXPECT_FALSE(t.memcpys[1].async);  // launched by the synchronous cudaMemcpy

  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].bytes, 128u);
  EXPECT_EQ(t.memsets[0].memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(t.memsets[0].stream, 7);

  ASSERT_EQ(t.syncs.size(), 1u);
  EXPECT_EQ(t.syncs[0].type, SyncType::kEventSync);
  EXPECT_EQ(t.syncs[0].start_ns, 1090000);
  EXPECT_EQ(t.syncs[0].end_ns, 1093000);
  EXPECT_EQ(t.syncs[0].correlation, 505);
  EXPECT_EQ(t.syncs[0].device, 0);
  EXPECT_EQ(t.syncs[0].stream, 7);

  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.str(t.ranges[0].name), "ProfilerStep#7");
  EXPECT_EQ(t.ranges[0].kind, RangeKind::kCpuAnnotation);
  EXPECT_EQ(t.ranges[0].start_ns, 1000500);
  EXPECT_EQ(t.ranges[0].end_ns, 1000500 + 500250);
  EXPECT_EQ(t.ranges[0].pid, 100);
  EXPECT_EQ(t.ranges[0].tid, 101);
  EXPECT_EQ(t.ranges[0].external_id, 1);
  EXPECT_EQ(t.ranges[1].kind, RangeKind::kGpuAnnotation);
  EXPECT_EQ(t.ranges[1].device, 0);
  EXPECT_EQ(t.ranges[1].tid, 7);  // the stream
  EXPECT_EQ(t.ranges[1].start_ns, 1020000);

  ASSERT_EQ(t.cpu_ops.size(), 2u);
  const CpuOp& mm = t.cpu_ops[0];
  EXPECT_EQ(t.str(mm.name), "aten::mm");
  EXPECT_EQ(mm.start_ns, 1010000);
  EXPECT_EQ(mm.end_ns, 1010000 + 20002);  // 20.0015 µs rounds half up to 20002 ns
  EXPECT_EQ(mm.external_id, 2);
  EXPECT_EQ(mm.sequence_number, 77);
  EXPECT_EQ(mm.fwd_thread_id, 0);
  EXPECT_EQ(t.str(mm.input_dims), "[[32,64],[64,16]]");
  EXPECT_EQ(t.str(mm.input_types), R"(["c10::Half","c10::Half"])");
  EXPECT_EQ(t.str(mm.kernel_backend), "");
  EXPECT_EQ(t.str(t.cpu_ops[1].kernel_backend), "triton");

  ASSERT_EQ(t.memory_events.size(), 2u);
  EXPECT_EQ(t.memory_events[0].time_ns, 1011000);
  EXPECT_EQ(t.memory_events[0].address, 139872u);
  EXPECT_EQ(t.memory_events[0].bytes, 1024);
  EXPECT_EQ(t.memory_events[0].total_allocated, 1024);
  EXPECT_EQ(t.memory_events[0].total_reserved, 2097152);
  EXPECT_EQ(t.memory_events[0].device, 0);
  EXPECT_EQ(t.memory_events[0].op, MemoryOp::kAlloc);
  EXPECT_EQ(t.memory_events[1].bytes, -1024);
  EXPECT_EQ(t.memory_events[1].op, MemoryOp::kFree);

  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.str(t.counters[0].name), "tensor_active_pct");
  EXPECT_EQ(t.counters[0].time_ns, 1030000);
  EXPECT_DOUBLE_EQ(t.counters[0].value, 42.5);

  ASSERT_EQ(t.flows.size(), 2u);
  EXPECT_EQ(t.flows[0].phase, 's');
  EXPECT_EQ(t.flows[0].id, 500);
  EXPECT_EQ(t.flows[0].time_ns, 1012000);
  EXPECT_EQ(t.str(t.flows[0].category), "ac2g");
  EXPECT_FALSE(t.flows[0].bind_enclosing);
  EXPECT_EQ(t.flows[1].phase, 'f');
  EXPECT_EQ(t.flows[1].pid, 0);
  EXPECT_EQ(t.flows[1].tid, 7);
  EXPECT_TRUE(t.flows[1].bind_enclosing);

  ASSERT_EQ(t.other_events.size(), 2u);
  EXPECT_EQ(t.str(t.other_events[0].category), "python_function");
  EXPECT_EQ(t.str(t.other_events[1].category), "Trace");
  EXPECT_EQ(t.other_events[1].pid, -1);  // "Spans" is a label, not a pid

  ASSERT_EQ(t.processes.count(100), 1u);
  EXPECT_EQ(t.processes.at(100).name, "python3");
  EXPECT_EQ(t.processes.at(100).thread_names.at(101), "thread 101 (python3)");
  EXPECT_EQ(t.processes.at(0).labels, "GPU 0");

  // The memset's correlation 504 has no runtime call; nothing else is odd.
  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 1u);
  EXPECT_EQ(t.diagnostics.entries().at("unmatched_correlation").first_offset,
            static_cast<int64_t>(Offset(kCurrentTrace, R"({"ph": "X", "cat": "gpu_memset")")));
  EXPECT_EQ(t.diagnostics.entries().at("unmatched_correlation").severity, Severity::kDataLoss);
  EXPECT_EQ(t.diagnostics.Count("zero_duration"), 0u);
  EXPECT_EQ(t.diagnostics.Count("bad_field_type"), 0u);
  EXPECT_EQ(t.diagnostics.Count("unknown_category"), 0u);
}

TEST(KinetoReader, KeepOtherEventsOff) {
  KinetoReadOptions options;
  options.keep_other_events = false;
  StatusOr<Trace> r = Read(kCurrentTrace, "inline.json", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->other_events.empty());
  EXPECT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->metadata.event_count, kCurrentTraceEvents);  // still counted as seen
}

TEST(KinetoReader, ProgressReachesTheTotal) {
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  KinetoReadOptions options;
  options.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  StatusOr<Trace> r = Read(kCurrentTrace, "inline.json", options);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back().first, kCurrentTrace.size());
  EXPECT_EQ(calls.back().second, kCurrentTrace.size());
}

// ---------------------------------------------------------------------------------------
// 2021 format

TEST(KinetoReader, OldFormatFieldByField) {
  StatusOr<Trace> r = Read(kOldTrace, "/some/dir/worker3.1623143089861.pt.trace.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.metadata.rank, 3);  // no distributedInfo: from "worker3" in the file name
  EXPECT_EQ(t.metadata.event_count, 17u);

  ASSERT_EQ(t.devices.size(), 1u);  // deviceProperties after traceEvents is still read
  EXPECT_EQ(t.devices[0].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(t.devices[0].vendor, GpuVendor::kNvidia);
  EXPECT_EQ(t.devices[0].cc_major, 7);
  EXPECT_EQ(t.devices[0].sm_count, 80);

  // ProfilerStep, enumerate(DataLoader) and Optimizer.* Operators are ranges, not ops.
  ASSERT_EQ(t.ranges.size(), 3u);
  EXPECT_EQ(t.str(t.ranges[0].name), "ProfilerStep#5");
  EXPECT_EQ(t.ranges[0].kind, RangeKind::kCpuAnnotation);
  EXPECT_EQ(t.ranges[0].start_ns, 1623142623460111000);
  EXPECT_EQ(t.ranges[0].end_ns, 1623142623461111000);
  EXPECT_EQ(t.ranges[0].tid, 25738);  // "25738" as a string in the file
  EXPECT_EQ(t.ranges[0].depth, 0);
  EXPECT_EQ(t.str(t.ranges[1].name), "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(t.ranges[1].depth, 1);  // inside ProfilerStep#5 on the same thread
  EXPECT_EQ(t.str(t.ranges[2].name), "Optimizer.step#SGD.step");

  ASSERT_EQ(t.cpu_ops.size(), 1u);
  EXPECT_EQ(t.str(t.cpu_ops[0].name), "aten::conv2d");
  EXPECT_EQ(t.cpu_ops[0].external_id, 3);
  EXPECT_EQ(t.str(t.cpu_ops[0].input_dims), "[[32,3,224,224],[64,3,7,7],[]]");
  EXPECT_EQ(t.str(t.cpu_ops[0].input_types), R"(["float","float",""])");

  ASSERT_EQ(t.api_calls.size(), 3u);
  EXPECT_EQ(t.api_calls[0].external_id, 3);  // lowercase "external id"
  EXPECT_EQ(t.api_calls[0].correlation, 34441);
  EXPECT_EQ(t.api_calls[0].tid, 25738);

  ASSERT_EQ(t.kernels.size(), 1u);
  const KernelEvent& k = t.kernels[0];
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.external_id, 3);
  EXPECT_EQ(k.correlation, 34441);
  EXPECT_EQ(t.launch(k).grid[0], 50u);
  EXPECT_FLOAT_EQ(t.launch(k).blocks_per_sm, 0.625f);
  EXPECT_FLOAT_EQ(t.launch(k).est_occupancy_pct, 25.f);

  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].kind, MemcpyKind::kHtoD);
  EXPECT_EQ(t.memcpys[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(t.memcpys[0].dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(t.memcpys[0].bytes, 19267584u);
  EXPECT_EQ(t.memcpys[0].stream, 7);
  EXPECT_EQ(t.memcpys[0].external_id, 4);
  ASSERT_EQ(t.memsets.size(), 1u);
  EXPECT_EQ(t.memsets[0].bytes, 128000u);

  ASSERT_EQ(t.memory_events.size(), 1u);
  EXPECT_EQ(t.memory_events[0].bytes, 4096);
  EXPECT_EQ(t.memory_events[0].device, 0);
  EXPECT_EQ(t.memory_events[0].address, 0u);  // 2021 traces have no Addr

  ASSERT_EQ(t.flows.size(), 2u);
  EXPECT_EQ(t.str(t.flows[0].category), "async");
  EXPECT_EQ(t.flows[1].tid, 7);  // "stream 7"

  EXPECT_EQ(t.processes.at(25738).thread_names.at(25772), "thread 25772 (python)");
  EXPECT_EQ(t.diagnostics.Count("unmatched_correlation"), 0u);
  EXPECT_EQ(t.diagnostics.Count("unknown_category"), 0u);
}

TEST(KinetoReader, RankFromFileNames) {
  // Minimal trace; only the display name changes.
  const std::string json = R"({"traceEvents": []})";
  struct Case {
    const char* name;
    int rank;
  };
  for (const Case& c : {Case{"rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 0}, Case{"/x/rank12.json", 12},
                        Case{"a100_16rank_recsys_rank5.json.gz", 5}, Case{"worker7.1623143089861.pt.trace.json", 7},
                        Case{"trace.json", -1}, Case{"ranker.json", -1}}) {
    StatusOr<Trace> r = Read(json, c.name);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->metadata.rank, c.rank) << c.name;
  }
}

TEST(KinetoReader, AmdMarkersMakeDevicesAmd) {
  // A ROCm trace whose device name says nothing: hip* runtime calls decide.
  const std::string json = R"({"deviceProperties": [{"id": 0, "name": "Some GPU"}], "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
     "args": {"correlation": 9, "cid": 107, "grid": [3, 1, 1], "block": [128, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_SB", "pid": 0, "tid": 0, "ts": 2, "dur": 1,
     "args": {"correlation": 9, "device": 0, "stream": 0}}]})";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->devices.size(), 1u);
  EXPECT_EQ(r->devices[0].vendor, GpuVendor::kAmd);
  EXPECT_EQ(r->api_calls[0].cbid, 107);  // ROCm's "cid"
  EXPECT_EQ(r->launch(r->kernels[0]).grid[0], 3u);   // taken from the runtime call
  EXPECT_EQ(r->launch(r->kernels[0]).block[0], 128u);

  for (const char* name : {"AMD Instinct MI250X", "AMD Radeon Graphics", "gfx90a", "MI300X"}) {
    std::string j = std::string(R"({"deviceProperties": [{"id": 0, "name": ")") + name + R"("}], "traceEvents": []})";
    StatusOr<Trace> d = Read(j);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->devices[0].vendor, GpuVendor::kAmd) << name;
  }
}

TEST(KinetoReader, EscapedStringsAreDecoded) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "say \"hi\" \u00e9\ud83d\ude00\\", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cpu_ops.size(), 1u);
  EXPECT_EQ(r->str(r->cpu_ops[0].name), "say \"hi\" \xc3\xa9\xf0\x9f\x98\x80\\");
}

// torch.profiler keeps libkineto's log lines in the trace ("INFO" / "WARNING" arrays). The lines
// below are libkineto's own formats (CuptiActivityApi.cpp: "Dropped N activity records" and
// "Exceeded max GPU buffer count (...) - terminating tracing"; CuptiActivityProfiler.cpp's
// "Record counts: ... CUPTI stopped early? = N"). The shared HTA traces carry the summary with 0.
TEST(KinetoReader, TheProfilersOwnLogSaysWhatItLost) {
  const std::string lost = R"({"traceEvents": [], "WARNING": [
      "WARNING:2024-05-22 17:15:22 2910249:2910249 CuptiActivityApi.cpp:306] Dropped 12345 activity records",
      "WARNING:2024-05-22 17:15:22 2910249:2910249 CuptiActivityApi.cpp:306] Dropped 655 activity records"],
    "INFO": ["INFO:2024-05-22 17:15:23 2910249:2910249 CuptiActivityProfiler.cpp:333] Record counts: Out-of-range = 4181, Blocklisted runtime = 0, Invalid ext correlations = 0, CPU GPU out-of-order = 0, Unexpected CUDA events = 0, CUPTI stopped early? = 1"]})";
  StatusOr<Trace> r = Read(lost);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count("cupti_dropped_records"), 13000u);  // 12345 + 655
  EXPECT_EQ(r->diagnostics.Count("profiler_stopped_early"), 1u);
  // The buffer-count warning alone also means collection stopped.
  StatusOr<Trace> exceeded = Read(R"({"traceEvents": [], "WARNING": ["WARNING:x CuptiActivityApi.cpp:150] Exceeded max GPU buffer count (32 >= 32) - terminating tracing"]})");
  ASSERT_TRUE(exceeded.ok());
  EXPECT_EQ(exceeded->diagnostics.Count("profiler_stopped_early"), 1u);
  EXPECT_EQ(exceeded->diagnostics.Count("cupti_dropped_records"), 0u);
  // A healthy log: "stopped early? = 0", other lines that mention drops without a count.
  StatusOr<Trace> fine = Read(R"({"traceEvents": [], "INFO": ["INFO:x] Record counts: Out-of-range = 0, CUPTI stopped early? = 0",
      "INFO:x] Dropped activity records are reported in verbose mode", 7, {"a": 1}]})");
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->diagnostics.Count("profiler_stopped_early"), 0u);
  EXPECT_EQ(fine->diagnostics.Count("cupti_dropped_records"), 0u);
}

TEST(KinetoReader, Utf8ByteOrderMarkIsTolerated) {
  const std::string json = "\xEF\xBB\xBF" + std::string(R"({"traceEvents": []})");
  EXPECT_TRUE(Read(json).ok());
  for (size_t chunk : {1, 2}) EXPECT_TRUE(ReadChunked(json, chunk).ok()) << chunk;
  ExpectFatal(Read("\xEF\xBB"), "inline.json", 0, "expected a Kineto trace");
}

TEST(KinetoReader, ChromeArrayFormatIsAccepted) {
  const std::string json = R"([{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}])";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->cpu_ops.size(), 1u);
}

// ---------------------------------------------------------------------------------------
// Diagnostics

TEST(KinetoReader, SurvivableProblemsAreCounted) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "ts": 50, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 10, "dur": -5},
    {"ph": "X", "cat": "cpu_op", "name": "zero", "pid": 1, "tid": 1, "ts": 11, "dur": 0},
    {"ph": "X", "cat": "mystery", "name": "what", "pid": 1, "tid": 1, "ts": 12, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 13, "dur": 1, "args": {"correlation": "abc", "grid": "x"}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 9, "dur": 1, "args": {"correlation": 99}},
    {"ph": "X", "cat": "cpu_op", "name": "nots", "pid": 1, "tid": 1, "dur": 1},
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "first"}},
    {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "second"}}
  ]})";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  const Diagnostics& d = t.diagnostics;
  auto entry = [&](const char* code) { return d.entries().at(code); };

  EXPECT_EQ(d.Count("negative_duration"), 1u);
  EXPECT_EQ(entry("negative_duration").severity, Severity::kDataLoss);
  EXPECT_EQ(entry("negative_duration").first_offset, static_cast<int64_t>(Offset(json, "-5")));
  EXPECT_EQ(d.Count("zero_duration"), 1u);
  EXPECT_EQ(entry("zero_duration").severity, Severity::kInfo);
  EXPECT_EQ(entry("zero_duration").first_offset,
            static_cast<int64_t>(Offset(json, R"({"ph": "X", "cat": "cpu_op", "name": "zero")")));
  EXPECT_EQ(d.Count("unknown_category"), 1u);
  EXPECT_EQ(entry("unknown_category").severity, Severity::kInfo);
  EXPECT_EQ(d.Count("bad_field_type"), 2u);  // correlation "abc", grid "x"
  EXPECT_EQ(entry("bad_field_type").first_offset, static_cast<int64_t>(Offset(json, R"("abc")")));
  EXPECT_EQ(d.Count("unmatched_correlation"), 2u);  // both kernels: -1 (unreadable) and 99
  EXPECT_EQ(d.Count("missing_field"), 1u);
  EXPECT_EQ(d.Count("duplicate_metadata"), 1u);
  EXPECT_EQ(entry("duplicate_metadata").severity, Severity::kInfo);
  EXPECT_EQ(d.Count("unsorted_events"), 1u);  // kernel k2 (ts 9) came after k (ts 13)

  EXPECT_EQ(t.processes.at(1).name, "first");
  ASSERT_EQ(t.cpu_ops.size(), 3u);  // late, neg, zero (nots is skipped)
  EXPECT_EQ(t.str(t.cpu_ops[0].name), "neg");  // sorted by start
  EXPECT_EQ(t.cpu_ops[0].start_ns, 10000);
  EXPECT_EQ(t.cpu_ops[0].end_ns, 10000);  // negative duration read as zero-length
  ASSERT_EQ(t.other_events.size(), 1u);
  EXPECT_EQ(t.str(t.other_events[0].category), "mystery");
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.str(t.kernels[0].name), "k2");
}

// ---------------------------------------------------------------------------------------
// Fatal errors: one line naming the file and the byte offset

TEST(KinetoReaderErrors, MissingFile) {
  StatusOr<Trace> r = ReadKinetoTrace("/nonexistent/dir/trace.json");
  ExpectFatal(r, "/nonexistent/dir/trace.json", 0, "cannot open");
}

TEST(KinetoReaderErrors, NotJson) {
  ExpectFatal(Read("hello world"), "inline.json", 0, "expected a Kineto trace");
  ExpectFatal(Read("\x89PNG\r\n"), "inline.json", 0, "byte 0x89");
  ExpectFatal(Read(""), "inline.json", 0, "no JSON data");
  ExpectFatal(Read("   \n"), "inline.json", 4, "no JSON data");
}

TEST(KinetoReaderErrors, WrongTopLevelType) {
  ExpectFatal(Read("42"), "inline.json", 0, "found a number");
  ExpectFatal(Read(R"("a string")"), "inline.json", 0, "found a string");
  ExpectFatal(Read("  null"), "inline.json", 2, "found a JSON literal");
}

TEST(KinetoReaderErrors, TraceEventsNotAnArray) {
  std::string json = R"({"traceEvents": {"ph": "X"}})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "{\"ph\""), "expected traceEvents to be an array");
  json = R"({"traceEvents": "nope"})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "\"nope\""), "found a string");
  json = R"({"schemaVersion": 1})";
  ExpectFatal(Read(json), "inline.json", json.size() - 1, "expected a \"traceEvents\" array");
}

TEST(KinetoReaderErrors, EventOfWrongType) {
  std::string json = R"({"traceEvents": [{"ph": "i", "ts": 1}, 17]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "17"), "expected an event object");
}

TEST(KinetoReaderErrors, EssentialFieldsOfWrongType) {
  std::string json = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": "1000", "dur": 1}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "\"1000\""), "expected a number (microseconds) for \"ts\"");
  json = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1000, "dur": [1]}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "[1]"), "for \"dur\", found an array");
  json = R"({"traceEvents": [{"ph": "s", "id": 1, "ts": true}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "true"), "found a boolean");
}

TEST(KinetoReaderErrors, NonsenseTimes) {
  for (const char* ts : {"NaN", "Infinity", "-Infinity", "1e300", "4611686018427388", "-4611686018427388"}) {
    std::string json = std::string(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": )") + ts +
                       R"(, "dur": 1}]})";
    ExpectFatal(Read(json), "inline.json", Offset(json, ts), "nonsense time");
  }
  // A start and a duration that are each fine but end beyond 2^62 ns.
  std::string late = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 4611686018427387, "dur": 1000}]})";
  ExpectFatal(Read(late), "inline.json", Offset(late, "1000}"), "ends beyond 2^62 ns");
  // 2^62 ns is the last accepted time.
  std::string ok = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 4611686018427387.904, "dur": 0}]})";
  EXPECT_TRUE(Read(ok).ok());
}

TEST(KinetoReaderErrors, BadJsonInsideAnEvent) {
  std::string json = R"({"traceEvents": [{"ph": "X" "ts": 1}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "\"ts\""), "expected ',' or '}'");
  json = R"({"traceEvents": [{"ph": "X", "ts": 1,}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "}]"), "expected a member name");
  json = R"({"traceEvents": [{"ph": "X", "ts": 1}, ]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "]}"), "expected an event object");
  json = R"({"traceEvents": [{"ph": "X", "ts": tru}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "tru"), "expected a JSON value");
  json = R"({"traceEvents": [{"ph": "X", "ts": 1, "args": {"a": [1, 2}}]})";
  ExpectFatal(Read(json), "inline.json", Offset(json, "}}]"), "mismatched brackets");
}

TEST(KinetoReaderErrors, TrailingGarbage) {
  std::string json = R"({"traceEvents": []} x)";
  ExpectFatal(Read(json), "inline.json", Offset(json, "x"), "expected the end of the input");
}

TEST(KinetoReaderErrors, TruncatedJson) {
  std::string cut = kCurrentTrace.substr(0, kCurrentTrace.find("\"cuda_sync\""));
  ExpectFatal(Read(cut), "inline.json", static_cast<int64_t>(cut.size()), "truncated JSON");
  cut = kCurrentTrace.substr(0, kCurrentTrace.find("\"traceName\""));
  ExpectFatal(Read(cut), "inline.json", static_cast<int64_t>(cut.size()), "truncated JSON");
}

// Every strict prefix of a trace is an error (never a crash, never a silent partial trace).
TEST(KinetoReaderErrors, EveryTruncationIsAnError) {
  const std::string& full = kOldTrace;  // ends with '}', nothing after it
  for (size_t len = 0; len < full.size(); ++len) {
    StatusOr<Trace> r = Read(full.substr(0, len), "cut.json");
    ASSERT_FALSE(r.ok()) << "prefix of " << len << " bytes was accepted";
    ASSERT_THAT(r.status().message(), StartsWith("cut.json: byte ")) << len;
    ASSERT_EQ(r.status().message().find('\n'), std::string::npos);
  }
}

// Random damage: the reader answers (trace or one-line error) and never crashes; run under
// the sanitizer build this also checks memory safety.
TEST(KinetoReaderErrors, RandomMutationsNeverCrash) {
  std::mt19937 rng(20240603);
  const std::string significant = "{}[]\":,\\0123456789.-eE \ntfnXa";
  int ok = 0, failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string json = iter % 2 ? kCurrentTrace : kOldTrace;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % json.size();
      switch (rng() % 4) {
        case 0: json[at] = significant[rng() % significant.size()]; break;
        case 1: json[at] = static_cast<char>(rng() % 256); break;
        case 2: json.erase(at, 1 + rng() % 8); break;
        default: json.insert(at, 1, significant[rng() % significant.size()]); break;
      }
    }
    StatusOr<Trace> r = Read(json, "fuzz.json");
    if (r.ok()) {
      ++ok;
    } else {
      ++failed;
      ASSERT_THAT(r.status().message(), StartsWith("fuzz.json: byte ")) << r.status().message();
      ASSERT_EQ(r.status().message().find('\n'), std::string::npos);
    }
  }
  // Both outcomes occur (a mutation inside a string or a skipped arg is harmless).
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

// ---------------------------------------------------------------------------------------
// Chunk boundaries and gzip

TEST(KinetoReader, ChunkBoundariesDoNotMatter) {
  for (const std::string* json : {&kCurrentTrace, &kOldTrace}) {
    StatusOr<Trace> whole = Read(*json);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    const std::string expected = testing::DumpTrace(*whole);
    for (size_t chunk : {1, 2, 3, 5, 7, 13, 64, 1000}) {
      StatusOr<Trace> pieces = ReadChunked(*json, chunk);
      ASSERT_TRUE(pieces.ok()) << pieces.status().message();
      EXPECT_EQ(testing::DumpTrace(*pieces), expected) << "chunk size " << chunk;
    }
  }
}

TEST(KinetoReader, ChunkBoundariesDoNotMoveErrors) {
  std::string json = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "ts": 1, "dur": 1}, {"ph": "X", "ts": "x"}]})";
  std::string expected = Read(json).status().message();
  ASSERT_FALSE(expected.empty());
  for (size_t chunk : {1, 2, 3, 11}) EXPECT_EQ(ReadChunked(json, chunk).status().message(), expected) << chunk;
}

TEST(KinetoReader, GzipDetectedByMagicNotExtension) {
  std::string dir = testing::MakeTempDir("ampscope_kineto_gz");
  std::string plain_path = dir + "/trace.json";
  std::string gz_path = dir + "/trace_without_gz_extension.json";
  testing::WriteFile(plain_path, kCurrentTrace);
  testing::WriteFile(gz_path, Gzip(kCurrentTrace));
  StatusOr<Trace> plain = ReadKinetoTrace(plain_path);
  StatusOr<Trace> gz = ReadKinetoTrace(gz_path);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(gz.ok()) << gz.status().message();
  EXPECT_EQ(gz->metadata.input_bytes, kCurrentTrace.size());  // uncompressed bytes
  Trace a = std::move(*plain), b = std::move(*gz);
  a.metadata.path = b.metadata.path = "";
  EXPECT_EQ(testing::DumpTrace(a), testing::DumpTrace(b));
  std::remove(plain_path.c_str());
  std::remove(gz_path.c_str());
  std::remove(dir.c_str());
}

TEST(KinetoReader, GzipInTinyChunksAndConcatenatedMembers) {
  std::string expected = testing::DumpTrace(*Read(kCurrentTrace));
  std::string gz = Gzip(kCurrentTrace);
  for (size_t chunk : {1, 3, 100}) {
    StatusOr<Trace> r = ReadChunked(gz, chunk);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(testing::DumpTrace(*r), expected);
  }
  // `cat a.gz b.gz` of two halves is the same trace.
  size_t half = kCurrentTrace.size() / 2;
  std::string two = Gzip(kCurrentTrace.substr(0, half)) + Gzip(kCurrentTrace.substr(half));
  StatusOr<Trace> r = Read(two);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(testing::DumpTrace(*r), expected);
}

TEST(KinetoReaderErrors, TruncatedGzip) {
  std::string gz = Gzip(kCurrentTrace);
  // Cut inside the deflate data, and cut only the 8-byte CRC/size trailer.
  for (size_t keep : {gz.size() / 2, gz.size() - 4}) {
    StatusOr<Trace> r = Read(gz.substr(0, keep), "t.json.gz");
    ExpectFatal(r, "t.json.gz", -1, "truncated gzip");
  }
  // Every prefix fails cleanly.
  for (size_t keep = 0; keep < gz.size(); keep += 7) {
    StatusOr<Trace> r = Read(gz.substr(0, keep), "t.json.gz");
    ASSERT_FALSE(r.ok()) << keep;
    ASSERT_THAT(r.status().message(), StartsWith("t.json.gz: byte ")) << r.status().message();
  }
}

TEST(KinetoReaderErrors, CorruptGzip) {
  std::string gz = Gzip(kCurrentTrace);
  std::string bad = gz;
  bad[bad.size() - 6] ^= 0x55;  // CRC32 trailer
  ExpectFatal(Read(bad, "t.json.gz"), "t.json.gz", -1, "corrupt gzip data");
  bad = gz + "garbage";
  ExpectFatal(Read(bad, "t.json.gz"), "t.json.gz", -1, "unexpected data after the end of the gzip stream");
}

}  // namespace
}  // namespace kineto_reader_test
}  // namespace ampscope
