// make_hostile_inputs: the large inputs of issue 38, for scripts/hostile_bench.sh (the tests use
// reduced sizes). Every file is well formed; only its proportions are hostile.
//
//   make_hostile_inputs devices N OUT.amptrace     N distinct devices (and one kernel)
//   make_hostile_inputs warnings N OUT.amptrace    N distinct collector warnings
//   make_hostile_inputs device-properties N OUT.json   Kineto deviceProperties with N devices
//   make_hostile_inputs steps N OUT.json            N ProfilerSteps, one launch and kernel each
//   make_hostile_inputs spaces MIB OUT.json.gz      MIB MiB of spaces between two events, gzip'd
//   make_hostile_inputs long-name MIB OUT.json.gz   one kernel name of MIB MiB, gzip'd
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "trace/formats/amptrace/amptrace_writer.h"

namespace {

using namespace ampscope;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "make_hostile_inputs: %s\n", message.c_str());
  std::exit(2);
}

template <typename T> T Zero() {
  T v;
  std::memset(&v, 0, sizeof(v));
  return v;
}

std::unique_ptr<AmptraceWriter> Amptrace(const std::string& path) {
  AmptraceHeaderInfo h;
  h.cupti_version = 130001;
  h.pid = 4242;
  h.host = "hostile";
  auto w = AmptraceWriter::Create(path, h);
  if (!w.ok()) Die(w.status().message());
  return std::move(w).value();
}

void Finish(AmptraceWriter& w) {
  if (Status st = w.Finish(Zero<AmpFooterRecord>()); !st.ok()) Die(st.message());
}

void Devices(long n, const std::string& out) {
  auto w = Amptrace(out);
  const uint32_t name = w->InternString("NVIDIA H100 80GB HBM3");
  for (long i = 0; i < n; ++i) {
    auto d = Zero<AmpDeviceRecord>();
    d.id = static_cast<uint32_t>(i), d.cc_major = 9, d.sm_count = 132, d.name = name;
    w->Append(d);
    if (i % 100000 == 99999 && !w->Flush().ok()) Die("flush failed");
  }
  auto k = Zero<AmpKernelRecord>();
  k.start_ns = 1000, k.end_ns = 2000, k.name = w->InternString("gemm_kernel");
  w->Append(k);
  Finish(*w);
}

void Warnings(long n, const std::string& out) {
  auto w = Amptrace(out);
  for (long i = 0; i < n; ++i) {
    w->AddWarning(AmpSeverity::kWarning, "code_" + std::to_string(i), "a warning no other file has");
    if (i % 100000 == 99999 && !w->Flush().ok()) Die("flush failed");
  }
  Finish(*w);
}

FILE* Open(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) Die("cannot write " + path);
  return f;
}

void DeviceProperties(long n, const std::string& out) {
  FILE* f = Open(out);
  std::fputs("{\"deviceProperties\": [", f);
  for (long i = 0; i < n; ++i)
    std::fprintf(f, "%s{\"id\": %ld, \"name\": \"NVIDIA A100-SXM4-80GB\", \"computeMajor\": 8, \"computeMinor\": 0, "
                 "\"totalGlobalMem\": 85031714816, \"numSms\": 108}", i ? ", " : "", i);
  std::fputs("], \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
             "\"ts\": 1, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}]}\n", f);
  std::fclose(f);
}

void Steps(long n, const std::string& out) {
  FILE* f = Open(out);
  std::fputs("{\"traceEvents\": [\n", f);
  for (long i = 0; i < n; ++i) {
    const long ts = 1000 + i * 100;
    std::fprintf(f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%ld\", \"pid\": 1, "
                 "\"tid\": 1, \"ts\": %ld, \"dur\": 90},\n", i, ts);
    std::fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                 "\"ts\": %ld, \"dur\": 5, \"args\": {\"correlation\": %ld}},\n", ts + 5, i + 1);
    std::fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_fp16_gemm\", \"pid\": 0, \"tid\": 7, "
                 "\"ts\": %ld, \"dur\": 60, \"args\": {\"correlation\": %ld, \"device\": 0, \"stream\": 7}}%s\n",
                 ts + 20, i + 1, i + 1 < n ? "," : "");
  }
  std::fputs("]}\n", f);
  std::fclose(f);
}

void Gzipped(const std::string& out, const std::string& head, char fill, long mib, const std::string& tail) {
  gzFile gz = gzopen(out.c_str(), "wb1");
  if (gz == nullptr) Die("cannot write " + out);
  gzwrite(gz, head.data(), static_cast<unsigned>(head.size()));
  const std::string block(size_t{1} << 20, fill);
  for (long i = 0; i < mib; ++i) gzwrite(gz, block.data(), static_cast<unsigned>(block.size()));
  gzwrite(gz, tail.data(), static_cast<unsigned>(tail.size()));
  if (gzclose(gz) != Z_OK) Die("cannot write " + out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) Die("usage: make_hostile_inputs devices|warnings|device-properties|steps|spaces|long-name N OUT");
  const std::string what = argv[1], out = argv[3];
  const long n = std::strtol(argv[2], nullptr, 10);
  if (n <= 0) Die("N must be a positive number");
  const std::string event = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}";
  if (what == "devices") Devices(n, out);
  else if (what == "warnings") Warnings(n, out);
  else if (what == "device-properties") DeviceProperties(n, out);
  else if (what == "steps") Steps(n, out);
  else if (what == "spaces") Gzipped(out, "{\"traceEvents\": [" + event + ",", ' ', n, event + "]}");
  else if (what == "long-name") Gzipped(out, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"", 'k', n,
                                        "\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1}]}");
  else Die("unknown input kind '" + what + "'");
  return 0;
}
