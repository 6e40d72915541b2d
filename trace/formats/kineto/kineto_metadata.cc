// Kineto metadata: 'M' events (process and thread names), trace-level keys (deviceProperties,
// distributedInfo, versions, host), the GPU vendor and the rank.
#include <cctype>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/saturating.h"
#include "base/strings.h"
#include "trace/classify/kernel_arch.h"
#include "trace/formats/kineto/kineto_event_parser.h"

namespace ampscope::kineto {

namespace {

using json::Kind;
using json::Value;

constexpr size_t kMaxExtraValueChars = 256;  // top-level strings kept in metadata.extra

bool IsAmdDeviceName(std::string_view name) {
  if (Contains(name, "AMD") || Contains(name, "Instinct") || Contains(name, "Radeon") || Contains(name, "gfx"))
    return true;
  // MI100 / MI250X / MI300X ...
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i + 5 <= name.size(); ++i) {
    if (name[i] == 'M' && name[i + 1] == 'I' && name[i + 2] >= '1' && name[i + 2] <= '3' && digit(name[i + 3]) &&
        digit(name[i + 4]))
      return true;
  }
  return false;
}

bool IsNvidiaDeviceName(std::string_view name) {
  static constexpr std::string_view kMarkers[] = {"NVIDIA", "Tesla", "GeForce", "Quadro", "TITAN", "RTX"};
  for (std::string_view m : kMarkers)
    if (Contains(name, m)) return true;
  return false;
}

}  // namespace

// Rank from a file name: "rank-0.Apr_03...", "rank0.json", "a_rank_3.json", "worker0.1623...".
int32_t RankFromFileName(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const std::string_view word : {std::string_view("rank"), std::string_view("worker")}) {
    size_t from = 0;
    while (true) {
      size_t at = base.find(word, from);
      if (at == std::string::npos) break;
      from = at + 1;
      if (at > 0 && std::isalpha(static_cast<unsigned char>(base[at - 1]))) continue;
      size_t k = at + word.size();
      if (k < base.size() && (base[k] == '-' || base[k] == '_')) ++k;
      size_t digits = k;
      while (digits < base.size() && std::isdigit(static_cast<unsigned char>(base[digits]))) ++digits;
      if (digits == k || digits - k > 6) continue;
      return static_cast<int32_t>(std::stol(base.substr(k, digits - k)));
    }
  }
  return -1;
}


void TraceBuilder::OnMetadata(const RawEvent& ev) {
  std::string_view what = Text(ev.name, &scratch_.name, ev, "name");
  const int64_t pid = Id(ev.pid, ev, "pid");
  const bool is_process_name = what == "process_name", is_labels = what == "process_labels",
             is_thread_name = what == "thread_name";
  if (!is_process_name && !is_labels && !is_thread_name) return;  // sort indexes and the like
  // Labelled pseudo-processes ("Spans", "Traces") have no numeric pid: nothing to name.
  if (pid < 0 && !(ev.pid.kind == Kind::kNumber)) return;
  std::string_view value = ArgText(ev, is_labels ? kArgMetaLabels : kArgMetaName);
  ProcessInfo& proc = trace_.processes[pid];
  std::string* slot = nullptr;
  if (is_thread_name) {
    int64_t tid = Id(ev.tid, ev, "tid");
    auto [it, inserted] = proc.thread_names.emplace(tid, std::string());
    if (!inserted) {
      Diag(DiagCode::kDuplicateMetadata, ev.begin,
           "thread_name given again for pid " + std::to_string(pid) + " tid " + std::to_string(tid) + "; first kept");
      return;
    }
    slot = &it->second;
  } else {
    slot = is_labels ? &proc.labels : &proc.name;
    if (!slot->empty()) {
      Diag(DiagCode::kDuplicateMetadata, ev.begin,
           std::string(what) + " given again for pid " + std::to_string(pid) + "; first kept");
      return;
    }
  }
  slot->assign(value.data(), value.size());
}

// A chunk of the parallel reader cannot tell a first process_name from a repeated one: it
// keeps a copy of the event, with every view moved into the copy, for MergeChunk to replay.
void TraceBuilder::DeferMetadata(const RawEvent& ev) {
  DeferredEvent d;
  d.text = std::make_unique<std::string>(ev.begin, static_cast<size_t>(ev.end - ev.begin));  // a stable buffer
  d.offset = Off(ev.begin);
  d.event = ev;
  const char* from = ev.begin;
  const char* to = d.text->data();
  auto move = [&](json::Value& v) {
    if (v.kind == Kind::kNone) return;
    if (!v.text.empty()) v.text = std::string_view(to + (v.text.data() - from), v.text.size());
    if (v.where != nullptr) v.where = to + (v.where - from);
  };
  RawEvent& e = d.event;
  e.begin = to;
  e.end = to + d.text->size();
  for (json::Value* v : {&e.ph, &e.cat, &e.name, &e.pid, &e.tid, &e.ts, &e.dur, &e.id, &e.bp, &e.args}) move(*v);
  for (size_t k = 0; k < e.arg.size(); ++k)
    if (e.Has(static_cast<ArgKey>(k))) move(e.arg[k]);
  for (auto& [key, value] : e.all_args) move(key), move(value);
  chunk_state_.metadata_events.push_back(std::move(d));
}

void TraceBuilder::OnTopLevelMember(std::string_view key, const Value& value) {
  auto parse = [&](const char* what) -> nlohmann::json {
    nlohmann::json j = nlohmann::json::parse(value.text.begin(), value.text.end(), nullptr, false);
    if (j.is_discarded())
      Diag(DiagCode::kBadFieldType, value.where, std::string("unreadable ") + what + "; ignored");
    return j;
  };
  if (key == "deviceProperties" || key == "computeProperties") {
    if (value.kind != Kind::kArray) {
      Diag(DiagCode::kBadFieldType, value.where,
           std::string(key) + " should be an array, found " + json::KindName(value.kind));
      return;
    }
    nlohmann::json j = parse("deviceProperties");
    if (!j.is_discarded()) ReadDeviceProperties(j, key == "computeProperties");
    return;
  }
  if (key == "distributedInfo") {
    if (value.kind != Kind::kObject) {
      Diag(DiagCode::kBadFieldType, value.where,
           "distributedInfo should be an object, found " + std::string(json::KindName(value.kind)));
      return;
    }
    nlohmann::json j = parse("distributedInfo");
    if (!j.is_discarded()) ReadDistributedInfo(j);
    return;
  }
  if ((key == "INFO" || key == "WARNING" || key == "ERROR") && value.kind == Kind::kArray) {
    nlohmann::json j = parse("profiler log");
    if (!j.is_discarded()) ReadProfilerLog(j, value.where);
    return;
  }
  // Scalars: versions, host and the like.
  std::string text;
  if (value.kind == Kind::kString) {
    if (!value.escaped || !json::DecodeString(value.text, &text)) text = std::string(value.text);
  } else if (value.kind == Kind::kNumber || value.kind == Kind::kBool) {
    text = std::string(value.text);
  } else {
    return;  // other arrays and objects are not kept
  }
  if (key == "cuda_runtime_version") {
    trace_.metadata.cuda_runtime_version = text;
  } else if (key == "cupti_version") {
    trace_.metadata.cupti_version = text;
  } else if (key == "cuda_driver_version") {
    trace_.metadata.driver_version = text;
  } else if (key == "host_name" || key == "hostname") {
    trace_.metadata.host = text;
  } else if (text.size() <= kMaxExtraValueChars) {
    trace_.metadata.extra[std::string(key)] = text;
  }
}

// Kineto's own log lines, kept by torch.profiler in the trace's "INFO" / "WARNING" / "ERROR"
// arrays: what the profiler says it lost. libkineto writes
//   "Dropped <N> activity records"                          (CuptiActivityApi, a WARNING)
//   "Exceeded max GPU buffer count (...) - terminating tracing"   (CuptiActivityApi, a WARNING)
//   "Record counts: Out-of-range = ..., CUPTI stopped early? = <0|1>"  (CuptiActivityProfiler)
// The first adds to the dropped records; the other two say collection stopped before the end.
void TraceBuilder::ReadProfilerLog(const nlohmann::json& lines, const char* at) {
  constexpr std::string_view kDropped = "Dropped ";
  constexpr std::string_view kDroppedTail = " activity records";
  constexpr std::string_view kStoppedEarly = "CUPTI stopped early? = ";
  constexpr std::string_view kExceeded = "Exceeded max GPU buffer count";
  uint64_t dropped = 0;
  bool stopped = false;
  for (const nlohmann::json& line : lines) {
    if (!line.is_string()) continue;
    const std::string& text = line.get_ref<const std::string&>();
    if (size_t p = text.find(kDropped); p != std::string::npos) {
      uint64_t n = 0;
      size_t i = p + kDropped.size(), digits = 0;
      for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 19; ++i, ++digits)
        n = n * 10 + static_cast<uint64_t>(text[i] - '0');
      if (digits > 0 && text.compare(i, kDroppedTail.size(), kDroppedTail) == 0) dropped = SaturatingAddU(dropped, n);
    }
    if (size_t p = text.find(kStoppedEarly); p != std::string::npos) {
      const size_t v = p + kStoppedEarly.size();
      if (v < text.size() && std::isdigit(static_cast<unsigned char>(text[v])) && text[v] != '0') stopped = true;
    }
    if (text.find(kExceeded) != std::string::npos) stopped = true;
  }
  if (dropped > 0)
    DiagAt(DiagCode::kCuptiDroppedRecords, at ? static_cast<int64_t>(Off(at)) : -1, position_.event_offset,
           "the profiler's log says CUPTI dropped " + std::to_string(dropped) + " activity records", dropped);
  if (stopped)
    Diag(DiagCode::kProfilerStoppedEarly, at,
         "the profiler's log says CUPTI stopped collecting early (GPU buffers exhausted): GPU activity after that is missing");
}

void TraceBuilder::ReadDeviceProperties(const nlohmann::json& list, bool old_keys) {
  auto get_int = [](const nlohmann::json& o, std::initializer_list<const char*> keys, int64_t fallback) -> int64_t {
    for (const char* k : keys) {
      auto it = o.find(k);
      if (it != o.end() && it->is_number_integer()) return it->get<int64_t>();
    }
    return fallback;
  };
  for (const nlohmann::json& p : list) {
    if (!p.is_object()) continue;
    Device d;
    d.id = static_cast<int32_t>(get_int(p, {"id"}, -1));
    auto name = p.find("name");
    if (name != p.end() && name->is_string()) d.name = name->get<std::string>();
    d.cc_major = static_cast<int32_t>(get_int(p, {"computeMajor", "major"}, -1));
    d.cc_minor = static_cast<int32_t>(get_int(p, {"computeMinor", "minor"}, -1));
    d.sm_count = static_cast<int32_t>(get_int(p, {"numSms", "multiProcessorCount"}, -1));
    d.total_memory_bytes = get_int(p, {"totalGlobalMem"}, -1);
    d.max_threads_per_sm =
        static_cast<int32_t>(get_int(p, {"maxThreadsPerMultiprocessor", "maxThreadsPerMultiProcessor"}, -1));
    d.regs_per_sm = static_cast<int32_t>(get_int(p, {"regsPerMultiprocessor", "regsPerMultiProcessor"}, -1));
    d.shared_mem_per_sm =
        get_int(p, {"sharedMemPerMultiprocessor", "sharedMemPerMultiProcessor", "maxSharedMemoryPerMultiProcessor"}, -1);
    (void)old_keys;
    const int32_t id = d.id;
    if (trace_.AddDevice(std::move(d)) == nullptr)
      Diag(DiagCode::kDuplicateMetadata, nullptr, "deviceProperties lists device " + std::to_string(id) + " twice");
  }
}

void TraceBuilder::ReadDistributedInfo(const nlohmann::json& info) {
  auto rank = info.find("rank");
  if (rank != info.end() && rank->is_number_integer()) {
    trace_.metadata.rank = rank->get<int32_t>();
    evidence_.have_rank = true;
  }
  auto ws = info.find("world_size");
  if (ws != info.end() && ws->is_number_integer()) trace_.metadata.world_size = ws->get<int32_t>();
  auto backend = info.find("backend");
  if (backend != info.end() && backend->is_string()) trace_.metadata.distributed_backend = backend->get<std::string>();
  auto nccl = info.find("nccl_version");
  if (nccl != info.end()) trace_.metadata.nccl_version = nccl->is_string() ? nccl->get<std::string>() : nccl->dump();
  auto pg_count = info.find("pg_count");
  if (pg_count != info.end() && pg_count->is_number_integer())
    trace_.metadata.extra["pg_count"] = std::to_string(pg_count->get<int64_t>());
}

// Vendors, from the device names or other evidence; devices from the GPU work when the trace
// lists none.
void TraceBuilder::FinishDevices() {
  // Vendor: from the device name; else from ROCm markers (hip* calls, Cijk_ kernels).
  for (Device& d : trace_.devices) {
    if (IsAmdDeviceName(d.name)) evidence_.amd = true;
  }
  for (Device& d : trace_.devices) {
    if (IsAmdDeviceName(d.name) || (evidence_.amd && !IsNvidiaDeviceName(d.name))) {
      d.vendor = GpuVendor::kAmd;
    } else {
      d.vendor = GpuVendor::kNvidia;
    }
  }
  // No deviceProperties (e.g. sampled traces): one entry per device that ran GPU work.
  if (trace_.devices.empty()) {
    std::set<int32_t> ids;
    for (const KernelEvent& k : trace_.kernels) ids.insert(k.device);
    for (const MemcpyEvent& m : trace_.memcpys) ids.insert(m.device);
    for (const MemsetEvent& m : trace_.memsets) ids.insert(m.device);
    ids.erase(-1);
    if (!ids.empty()) {
      trace_.diagnostics.Add(DiagCode::kMissingDeviceProperties, -1,
                             "no deviceProperties in the trace; devices inferred from GPU events");
    }
    for (int32_t id : ids) {
      Device d;
      d.id = id;
      d.vendor = evidence_.amd ? GpuVendor::kAmd : evidence_.cuda ? GpuVendor::kNvidia : GpuVendor::kUnknown;
      trace_.AddDevice(d);
    }
  }
  // No compute capability (no deviceProperties, or one without computeMajor): the lowest NVIDIA
  // architecture the kernel names prove, with its basis (trace/classify/kernel_arch.h).
  bool missing_cc = false;
  for (const Device& d : trace_.devices) missing_cc = missing_cc || (d.cc_major < 0 && d.vendor != GpuVendor::kAmd);
  if (!missing_cc || evidence_.amd) return;
  const ArchEvidence arch = InferArchFromKernels(trace_);
  if (arch.cc_major < 0) return;
  for (Device& d : trace_.devices) {
    if (d.cc_major >= 0 || d.vendor == GpuVendor::kAmd) continue;
    d.vendor = GpuVendor::kNvidia;
    d.cc_major = arch.cc_major;
    d.cc_minor = arch.cc_minor;
    d.arch_basis = arch.Basis();
  }
}

}  // namespace ampscope::kineto
