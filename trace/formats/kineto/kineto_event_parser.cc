// Kineto events -> Trace rows: each phase ('X', 'i', 's'/'f'/'t', 'C') and each category
// (kernel, gpu_memcpy, cuda_runtime, cpu_op, user_annotation, ...) into its table.
#include "trace/formats/kineto/kineto_event_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "base/strings.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/host_roles.h"
#include "trace/classify/kernel_classifier.h"
#include "trace/formats/kineto/kineto_time.h"
#include "trace/time_bounds.h"

namespace ampscope::kineto {

namespace {

using json::Kind;
using json::Value;

// A full table grows to what the whole file will need, extrapolated from the bytes parsed so
// far (plus a margin), instead of doubling: a multi-GB trace then copies each table about
// once, not ~20 times. Below kExtrapolateAfterBytes the estimate is too noisy; tables double.
constexpr uint64_t kExtrapolateAfterBytes = uint64_t{4} << 20;
constexpr double kExtrapolationMargin = 1.1;

}  // namespace

// A chunk of the parallel reader is small and its tables are appended to the whole trace's:
// it only doubles. `more`: rows about to be added.
template <typename T>
void TraceBuilder::Grow(std::vector<T>& table, size_t more) {
  const size_t size = table.size() + more;
  size_t want = std::max<size_t>(64, size + size / 2);
  // How far the tables reach: where the tokenizer is, or past it, the chunks merged so far.
  const double parsed = std::max(input_->parsed_bytes(), static_cast<double>(merged_through_));
  const double expected = input_->expected_input_bytes();
  if (!chunk_ && !options_.filtered && parsed >= static_cast<double>(kExtrapolateAfterBytes) && expected > parsed) {
    const double projected = static_cast<double>(size) * (expected / parsed) * kExtrapolationMargin;
    want = std::max(want, static_cast<size_t>(projected));
  } else {
    want = std::max<size_t>(want, 2 * table.size());
  }
  table.reserve(want);
}


// ---------------------------------------------------------------------------------------
// Field conversion

Status TraceBuilder::Time(const RawEvent& ev, const Value& v, const char* field, int64_t* ns) const {
  if (v.kind != Kind::kNumber) {
    return Fatal(v.where ? v.where : ev.begin,
                 std::string("expected a number (microseconds) for \"") + field + "\", found " + json::KindName(v.kind));
  }
  if (!ParseMicrosToNs(v.text, ns) || !IsAcceptedTime(*ns)) {
    std::string shown(v.text.substr(0, 40));
    return Fatal(v.where, std::string("nonsense time: \"") + field + "\" = " + shown +
                              " us is not a finite time within -2^62..2^62 ns");
  }
  return Status::Ok();
}

void TraceBuilder::BadType(const RawEvent& ev, const Value& v, const std::string& what) {
  Diag(DiagCode::kBadFieldType, v.where ? v.where : ev.begin, what + ", found " + json::KindName(v.kind));
}

std::string_view TraceBuilder::Text(const Value& v, std::string* scratch, const RawEvent& ev, const char* field) {
  if (v.kind == Kind::kNone) return {};
  if (v.kind != Kind::kString) {
    BadType(ev, v, std::string("expected a string for \"") + field + "\"");
    return {};
  }
  if (!v.escaped) return v.text;
  if (!json::DecodeString(v.text, scratch)) {
    Diag(DiagCode::kBadFieldType, v.where, std::string("invalid escape in the string \"") + field + "\"");
    return v.text;
  }
  return *scratch;
}

// pid / tid: a number, a numeric string ("25738"), "stream 7" (2021 GPU rows) -> 7, or a
// label such as "Spans" -> -1.
int64_t TraceBuilder::Id(const Value& v, const RawEvent& ev, const char* field) {
  int64_t out = -1;
  if (v.kind == Kind::kNumber) {
    if (!json::ParseInt64(v.text, &out)) {
      BadType(ev, v, std::string("expected an integer for \"") + field + "\"");
      return -1;
    }
    return out;
  }
  if (v.kind == Kind::kString) {
    std::string_view s = v.text;
    if (StartsWith(s, "stream ")) s.remove_prefix(7);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (!s.empty() && json::ParseInt64(s, &out) && s.find_first_of(".eE") == std::string_view::npos) return out;
    return -1;
  }
  if (v.kind != Kind::kNone) BadType(ev, v, std::string("expected a number or string for \"") + field + "\"");
  return -1;
}

int64_t TraceBuilder::ArgInt(const RawEvent& ev, ArgKey k, int64_t fallback) {
  if (!ev.Has(k)) return fallback;
  const Value& v = ev.arg[k];
  int64_t out;
  if (v.kind == Kind::kNumber && json::ParseInt64(v.text, &out)) return out;
  // ROCm writes some numbers as strings ("size": "2560").
  if (v.kind == Kind::kString && !v.text.empty() && json::ParseInt64(v.text, &out)) return out;
  if (v.kind == Kind::kNull) return fallback;
  BadType(ev, v, std::string("expected an integer for args.\"") + kArgDisplayNames[k] + "\"");
  return fallback;
}

double TraceBuilder::ArgDouble(const RawEvent& ev, ArgKey k, double fallback) {
  if (!ev.Has(k)) return fallback;
  const Value& v = ev.arg[k];
  double out;
  if (v.kind == Kind::kNumber && json::ParseDouble(v.text, &out)) return out;
  if (v.kind == Kind::kNull) return fallback;
  BadType(ev, v, std::string("expected a number for args.\"") + kArgDisplayNames[k] + "\"");
  return fallback;
}

std::string_view TraceBuilder::ArgText(const RawEvent& ev, ArgKey k) {
  if (!ev.Has(k)) return {};
  return Text(ev.arg[k], &scratch_.arg, ev, kArgDisplayNames[k]);
}

StringId TraceBuilder::ArgCompactJson(const RawEvent& ev, ArgKey k) {
  if (!ev.Has(k)) return kNoString;
  const Value& v = ev.arg[k];
  if (v.kind != Kind::kArray) {
    BadType(ev, v, std::string("expected an array for args.\"") + kArgDisplayNames[k] + "\"");
    return kNoString;
  }
  // Shapes and types repeat: remember raw text -> id so most events skip the compaction.
  RawJsonCacheEntry& e = raw_json_cache_[std::hash<std::string_view>()(v.text) & (raw_json_cache_.size() - 1)];
  if (e.raw == v.text) return e.id;
  json::CompactJson(v.text, &scratch_.json);
  e.raw.assign(v.text.data(), v.text.size());
  e.id = Intern(scratch_.json);
  return e.id;
}

// "grid": [50, 1, 1]
bool TraceBuilder::ArgDim3(const RawEvent& ev, ArgKey k, uint32_t out[3]) {
  if (!ev.Has(k)) return false;
  const Value& v = ev.arg[k];
  if (v.kind == Kind::kArray) {
    std::string_view s = v.text.substr(1, v.text.size() - 2);
    uint32_t dims[3] = {0, 0, 0};
    int n = 0;
    bool ok = true;
    while (ok) {
      size_t a = s.find_first_not_of(" \t\r\n");
      if (a == std::string_view::npos) break;
      size_t b = s.find(',', a);
      std::string_view item = s.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\n' || item.back() == '\t' || item.back() == '\r'))
        item.remove_suffix(1);
      int64_t x;
      if (n >= 3 || !json::ParseInt64(item, &x) || x < 0 || x > UINT32_MAX) ok = false;
      else dims[n++] = static_cast<uint32_t>(x);
      if (b == std::string_view::npos) break;
      s.remove_prefix(b + 1);
    }
    if (ok && n > 0) {
      std::copy(dims, dims + 3, out);
      return true;
    }
  }
  BadType(ev, v, std::string("expected an array of up to 3 integers for args.\"") + kArgDisplayNames[k] + "\"");
  return false;
}


// ---------------------------------------------------------------------------------------
// Events -> tables

Status TraceBuilder::OnEvent(const RawEvent& ev) {
  ++event_count_;
  position_.event_offset = Off(ev.begin);
  if (ev.ph.kind != Kind::kString || ev.ph.text.empty()) {
    if (ev.ph.kind == Kind::kNone) {
      Diag(DiagCode::kMissingField, ev.begin, "event without \"ph\" (phase) skipped");
    } else {
      BadType(ev, ev.ph, "expected a string for \"ph\"");
    }
    return Status::Ok();
  }
  switch (ev.ph.text[0]) {
    case 'X': return OnComplete(ev);
    case 'i':
    case 'I': return OnInstant(ev);
    case 's':
    case 'f':
    case 't': return OnFlow(ev, ev.ph.text[0]);
    case 'C': return OnCounter(ev);
    case 'M':
      if (chunk_) {
        DeferMetadata(ev);
      } else {
        OnMetadata(ev);
      }
      return Status::Ok();
    default:
      Diag(DiagCode::kUnsupportedPhase, ev.begin,
           "events with phase \"" + std::string(ev.ph.text.substr(0, 8)) + "\" are not modelled; skipped");
      return Status::Ok();
  }
}

Status TraceBuilder::OnComplete(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag(DiagCode::kMissingField, ev.begin, "complete event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t start = 0, dur = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &start));
  if (ev.dur.kind == Kind::kNone) {
    Diag(DiagCode::kMissingField, ev.begin, "complete event without \"dur\" read as zero-length");
  } else {
    AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.dur, "dur", &dur));
  }
  if (dur < 0) {
    Diag(DiagCode::kNegativeDuration, ev.dur.where,
         "negative \"dur\" " + std::string(ev.dur.text.substr(0, 24)) + " us; the event was read as zero-length");
    dur = 0;
  } else if (dur == 0) {
    Diag(DiagCode::kZeroDuration, ev.begin, "event with zero duration");
  }
  // Both are within +/-2^62, so the sum can reach 2^63 (exactly 2^62 + 2^62): checked.
  int64_t end = 0;
  if (__builtin_add_overflow(start, dur, &end) || end > kMaxAbsTimeNs) {
    return Fatal(ev.dur.where ? ev.dur.where : ev.begin,
                 "nonsense time: \"ts\" + \"dur\" ends beyond 2^62 ns (about year 2116)");
  }
  bounds_.AddInterval(start, end, static_cast<int64_t>(Off(ev.begin)));

  std::string_view cat = Text(ev.cat, &scratch_.cat, ev, "cat");
  EventClass cls = EventClass::kUnknown;
  if (!EventClasses().Find(cat, &cls)) {
    Diag(DiagCode::kUnknownCategory, ev.begin,
         "complete event with unknown category \"" + std::string(cat.substr(0, 64)) + "\" kept as an other event");
  }
  std::string_view name = Text(ev.name, &scratch_.name, ev, "name");
  const int64_t pid = Id(ev.pid, ev, "pid");
  const int64_t tid = Id(ev.tid, ev, "tid");

  if (cls == EventClass::kCpuOp && IsAnnotationOpName(name)) cls = EventClass::kUserAnnotation;
  const CompleteFields fields{name, start, end, pid, tid};

  switch (cls) {
    case EventClass::kKernel:
      AddKernel(ev, fields);
      return Status::Ok();
    case EventClass::kMemcpy:
      AddMemcpy(ev, fields);
      return Status::Ok();
    case EventClass::kMemset:
      AddMemset(ev, fields);
      return Status::Ok();
    case EventClass::kRuntime:
    case EventClass::kDriver:
      AddApiCall(ev, cls, fields);
      return Status::Ok();
    case EventClass::kSync: {
      SyncEvent s;
      s.start_ns = start;
      s.end_ns = end;
      s.correlation = ArgInt(ev, kArgCorrelation, -1);
      s.pid = pid;
      s.tid = tid;
      s.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, pid));
      s.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, tid));
      std::string_view kind = ev.Has(kArgSyncKind) ? ArgText(ev, kArgSyncKind) : name;
      if (!SyncKinds().Find(kind, &s.type) && !SyncKinds().Find(name, &s.type)) {
        Diag(DiagCode::kUnknownSyncKind, ev.begin,
             "cuda_sync event of unknown kind \"" + std::string(kind.substr(0, 64)) + "\"");
      }
      Append(trace_.syncs, s);
      return Status::Ok();
    }
    case EventClass::kCpuOp: {
      CpuOp op;
      op.start_ns = start;
      op.end_ns = end;
      op.pid = pid;
      op.tid = tid;
      op.external_id = ArgInt(ev, kArgExternalId, -1);
      op.sequence_number = ArgInt(ev, kArgSequenceNumber, -1);
      op.fwd_thread_id = ArgInt(ev, kArgFwdThreadId, -1);
      op.name = Intern(name);
      op.input_types = ArgCompactJson(ev, kArgInputType);
      op.input_dims = ArgCompactJson(ev, kArgInputDims);
      op.input_strides = ArgCompactJson(ev, kArgInputStrides);
      op.concrete_inputs = ArgCompactJson(ev, kArgConcreteInputs);
      op.kernel_backend = Intern(ArgText(ev, kArgKernelBackend));
      if (trace_.metadata.pid < 0) trace_.metadata.pid = pid;
      Append(trace_.cpu_ops, op);
      return Status::Ok();
    }
    case EventClass::kUserAnnotation:
    case EventClass::kGpuAnnotation:
      AddRange(ev, cls, fields);
      return Status::Ok();
    case EventClass::kKnownOther:
    case EventClass::kUnknown: {
      if (!options_.keep_other_events) return Status::Ok();
      OtherEvent o;
      o.start_ns = start;
      o.end_ns = end;
      o.pid = pid;
      o.tid = tid;
      o.name = Intern(name);
      o.category = Intern(cat);
      o.phase = 'X';
      Append(trace_.other_events, o);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

void TraceBuilder::AddKernel(const RawEvent& ev, const CompleteFields& f) {
  KernelEvent k;
  k.start_ns = f.start;
  k.end_ns = f.end;
  k.correlation = ArgInt(ev, kArgCorrelation, -1);
  k.external_id = ArgInt(ev, kArgExternalId, -1);
  k.name = Intern(f.name);
  k.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, f.pid));
  k.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, f.tid));
  LaunchConfig lc;
  ArgDim3(ev, kArgGrid, lc.grid);
  ArgDim3(ev, kArgBlock, lc.block);
  lc.registers_per_thread = static_cast<int32_t>(ArgInt(ev, kArgRegisters, -1));
  // Kineto's "shared memory" is static + dynamic; the static part is not known.
  lc.dynamic_shared_bytes = static_cast<int32_t>(ArgInt(ev, kArgSharedMemory, -1));
  lc.blocks_per_sm = static_cast<float>(ArgDouble(ev, kArgBlocksPerSm, -1.0));
  lc.est_occupancy_pct = static_cast<float>(ArgDouble(ev, kArgOccupancy, -1.0));
  k.launch_config = trace_.InternLaunch(lc);
  if (ev.Has(kArgCollective) || ev.Has(kArgInNelems) || ev.Has(kArgOutNelems) || ev.Has(kArgPgName) ||
      ev.Has(kArgGroupSize) || ev.Has(kArgSeq)) {
    CommInfo c;
    c.collective = Intern(ArgText(ev, kArgCollective));
    c.dtype = Intern(ArgText(ev, kArgDtype));
    c.process_group = Intern(ArgText(ev, kArgPgName));
    c.process_group_desc = Intern(ArgText(ev, kArgPgDesc));
    c.in_nelems = ArgInt(ev, kArgInNelems, -1);
    c.out_nelems = ArgInt(ev, kArgOutNelems, -1);
    c.group_size = static_cast<int32_t>(ArgInt(ev, kArgGroupSize, -1));
    c.seq = ArgInt(ev, kArgSeq, -1);
    k.comm_index = static_cast<int32_t>(trace_.comm_infos.size());
    Append(trace_.comm_infos, c);
  }
  if (IsTensileKernelName(f.name)) evidence_.amd = true;
  Append(trace_.kernels, k);
  Append<uint64_t>(links_.kernel_offsets, Off(ev.begin));
}

template <class Event>
void TraceBuilder::FillCopyFields(const RawEvent& ev, const CompleteFields& f, Event& m) {
  m.start_ns = f.start;
  m.end_ns = f.end;
  m.correlation = ArgInt(ev, kArgCorrelation, -1);
  m.external_id = ArgInt(ev, kArgExternalId, -1);
  m.bytes = static_cast<uint64_t>(std::max<int64_t>(0, ArgInt(ev, kArgBytes, 0)));
  m.device = static_cast<int32_t>(ArgInt(ev, kArgDevice, f.pid));
  m.stream = static_cast<int32_t>(ArgInt(ev, kArgStream, f.tid));
}

void TraceBuilder::AddMemcpy(const RawEvent& ev, const CompleteFields& f) {
  MemcpyEvent m;
  FillCopyFields(ev, f, m);
  // "Memcpy HtoD (Pageable -> Device)"
  std::string_view rest = f.name;
  if (StartsWith(rest, "Memcpy ")) rest.remove_prefix(7);
  size_t sp = rest.find(' ');
  MemcpyKinds().Find(rest.substr(0, sp), &m.kind);
  size_t open = f.name.find('('), arrow = f.name.find(" -> "), close = f.name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
      open < arrow && arrow < close) {
    MemoryKinds().Find(f.name.substr(open + 1, arrow - open - 1), &m.src_kind);
    MemoryKinds().Find(f.name.substr(arrow + 4, close - arrow - 4), &m.dst_kind);
  }
  Append(trace_.memcpys, m);
  Append<uint64_t>(links_.memcpy_offsets, Off(ev.begin));
}

void TraceBuilder::AddMemset(const RawEvent& ev, const CompleteFields& f) {
  MemsetEvent m;
  FillCopyFields(ev, f, m);
  // "Memset (Device)"
  size_t open = f.name.find('('), close = f.name.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && open < close)
    MemoryKinds().Find(f.name.substr(open + 1, close - open - 1), &m.memory_kind);
  Append(trace_.memsets, m);
  Append<uint64_t>(links_.memset_offsets, Off(ev.begin));
}

void TraceBuilder::AddApiCall(const RawEvent& ev, EventClass cls, const CompleteFields& f) {
  ApiCall a;
  a.start_ns = f.start;
  a.end_ns = f.end;
  a.correlation = ArgInt(ev, kArgCorrelation, -1);
  a.external_id = ArgInt(ev, kArgExternalId, -1);
  a.pid = f.pid;
  a.tid = f.tid;
  a.name = Intern(f.name);
  a.cbid = CbidOrUnknown(ArgInt(ev, kArgCbid, -1));
  // Driver calls are cu*, runtime calls cuda* (hip* on ROCm).
  const ApiFamily family = ApiFamilyOf(f.name);
  a.domain = cls == EventClass::kDriver || family == ApiFamily::kCudaDriver ? ApiDomain::kDriver : ApiDomain::kRuntime;
  if (family == ApiFamily::kHip) {
    evidence_.amd = true;
    // ROCm puts the copy size and launch dimensions on the runtime call.
    if (a.correlation >= 0 && (ev.Has(kArgRocmSize) || ev.Has(kArgGrid))) {
      RuntimeLaunchInfo info;
      info.size_bytes = ArgInt(ev, kArgRocmSize, -1);
      info.has_dims = ArgDim3(ev, kArgGrid, info.grid) && ArgDim3(ev, kArgBlock, info.block);
      links_.runtime_launch_info[a.correlation] = info;
    }
  } else if (family == ApiFamily::kCudaRuntime || family == ApiFamily::kCudaDriver) {
    evidence_.cuda = true;
  }
  if (trace_.metadata.pid < 0) trace_.metadata.pid = f.pid;
  Append(trace_.api_calls, a);
}

void TraceBuilder::AddRange(const RawEvent& ev, EventClass cls, const CompleteFields& f) {
  Range r;
  r.start_ns = f.start;
  r.end_ns = f.end;
  r.pid = f.pid;
  r.tid = f.tid;
  r.external_id = ArgInt(ev, kArgExternalId, -1);
  r.name = Intern(f.name);
  if (cls == EventClass::kGpuAnnotation) {
    r.kind = RangeKind::kGpuAnnotation;
    r.device = static_cast<int32_t>(f.pid);  // GPU rows: pid = device, tid = stream
  } else {
    r.kind = RangeKind::kCpuAnnotation;
    auto [memo, fresh] = links_.is_step_name.emplace(r.name, false);
    if (fresh) memo->second = ClassifyHostRange(f.name) == HostRangeRole::kProfilerStep;
    if (memo->second)
      links_.step_ranges.emplace_back(static_cast<uint32_t>(trace_.ranges.size()), Off(ev.begin));
  }
  Append(trace_.ranges, r);
}

Status TraceBuilder::OnInstant(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag(DiagCode::kMissingField, ev.begin, "instant event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t ts = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &ts));
  bounds_.AddInstant(ts, static_cast<int64_t>(Off(ev.begin)));
  std::string_view name = Text(ev.name, &scratch_.name, ev, "name");
  if (name == "[memory]") {
    MemoryEvent m;
    m.time_ns = ts;
    m.address = static_cast<uint64_t>(ArgInt(ev, kArgAddr, 0));
    m.bytes = ArgInt(ev, kArgMemBytes, 0);
    m.total_allocated = ArgInt(ev, kArgTotalAllocated, -1);
    m.total_reserved = ArgInt(ev, kArgTotalReserved, -1);
    // Device Type 0 is the CPU (c10::DeviceType::CPU); the rest name a GPU by "Device Id".
    int64_t device_type = ArgInt(ev, kArgDeviceType, 0);
    m.device = device_type == 0 ? -1 : static_cast<int32_t>(ArgInt(ev, kArgDeviceId, -1));
    m.op = m.bytes < 0 ? MemoryOp::kFree : MemoryOp::kAlloc;
    Append(trace_.memory_events, m);
    return Status::Ok();
  }
  if (!options_.keep_other_events) return Status::Ok();
  OtherEvent o;
  o.start_ns = ts;
  o.end_ns = ts;
  o.pid = Id(ev.pid, ev, "pid");
  o.tid = Id(ev.tid, ev, "tid");
  o.name = Intern(name);
  o.category = Intern(Text(ev.cat, &scratch_.cat, ev, "cat"));
  o.phase = 'i';
  Append(trace_.other_events, o);
  return Status::Ok();
}

Status TraceBuilder::OnFlow(const RawEvent& ev, char phase) {
  if (ev.ts.kind == Kind::kNone) {
    Diag(DiagCode::kMissingField, ev.begin, "flow event without \"ts\" skipped");
    return Status::Ok();
  }
  FlowEvent f;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &f.time_ns));
  bounds_.AddInstant(f.time_ns, static_cast<int64_t>(Off(ev.begin)));
  if (ev.id.kind == Kind::kNumber || ev.id.kind == Kind::kString) {
    std::string_view t = ev.id.text;
    bool ok = json::ParseInt64(t, &f.id);
    if (!ok && ev.id.kind == Kind::kString && StartsWith(t, "0x") && t.size() > 2 && t.size() <= 18) {
      uint64_t v = 0;
      ok = true;
      for (char c : t.substr(2)) {
        int h = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (h < 0) ok = false;
        v = (v << 4) | static_cast<uint64_t>(h < 0 ? 0 : h);
      }
      f.id = static_cast<int64_t>(v);
    }
    if (!ok) BadType(ev, ev.id, "expected an integer flow \"id\"");
  } else {
    Diag(DiagCode::kMissingField, ev.begin, "flow event without a usable \"id\"");
  }
  f.pid = Id(ev.pid, ev, "pid");
  f.tid = Id(ev.tid, ev, "tid");
  const std::string_view category = Text(ev.cat, &scratch_.cat, ev, "cat");
  if (!options_.keep_export_only_flows && category != "fwdbwd") return Status::Ok();
  f.category = Intern(category);
  f.name = Intern(Text(ev.name, &scratch_.name, ev, "name"));
  f.phase = phase;
  f.bind_enclosing = ev.bp.kind == Kind::kString && ev.bp.text == "e";
  Append(trace_.flows, f);
  return Status::Ok();
}

Status TraceBuilder::OnCounter(const RawEvent& ev) {
  if (ev.ts.kind == Kind::kNone) {
    Diag(DiagCode::kMissingField, ev.begin, "counter event without \"ts\" skipped");
    return Status::Ok();
  }
  int64_t ts = 0;
  AMPSCOPE_RETURN_IF_ERROR(Time(ev, ev.ts, "ts", &ts));
  bounds_.AddInstant(ts, static_cast<int64_t>(Off(ev.begin)));
  std::string name(Text(ev.name, &scratch_.name, ev, "name"));
  // torch.profiler writes CUPTI PM-sampling counters on a process named by a string pid,
  // "GPU <device> Counters" (pytorch/pytorch#188019 _gpu_counter_process): the device they sample.
  int32_t device = -1;
  if (ev.pid.kind == Kind::kString && !ev.pid.escaped) {
    std::string_view pid = ev.pid.text;
    int64_t id = -1;
    if (StartsWith(pid, "GPU ") && pid.size() > 13 && pid.substr(pid.size() - 9) == " Counters" &&
        json::ParseInt64(pid.substr(4, pid.size() - 13), &id) && id >= 0 && id < (1 << 20))
      device = static_cast<int32_t>(id);
  }
  size_t numeric = 0;
  for (const auto& [key, value] : ev.all_args) numeric += value.kind == Kind::kNumber;
  for (const auto& [key, value] : ev.all_args) {
    double v;
    if (value.kind != Kind::kNumber || !json::ParseDouble(value.text, &v)) {
      BadType(ev, value, "expected a number for a counter value");
      continue;
    }
    CounterSample c;
    c.time_ns = ts;
    c.device = device;
    // One series: the counter's name; several: "name.series".
    std::string series(key.text);
    c.name = Intern(numeric == 1 && !name.empty() ? name : (name.empty() ? series : name + "." + series));
    c.value = v;
    Append(trace_.counters, c);
  }
  return Status::Ok();
}


}  // namespace ampscope::kineto
