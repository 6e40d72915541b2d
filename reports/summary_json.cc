#include "reports/summary_json.h"

#include "reports/collectives_json.h"
#include "reports/roofline_json.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "analyzers/graph/critical_path_result.h"
#include "analyzers/roofline/roofline_result.h"
#include "trace/io/input_stream.h"
#include "trace/io/json_scanner.h"

#include <zlib.h>

#ifndef AMPSCOPE_VERSION
#define AMPSCOPE_VERSION "0.1.0"
#endif

namespace ampscope {

namespace summary {

using nlohmann::json;
namespace js = ::ampscope::json;

template <typename T> json ToJson(const T& v);
class Pull;
template <typename T> void FromScan(Pull& p, T& v);

// The two walkers of the field lists below.
struct Writer {
  json& out;
  template <typename T> void operator()(const char* key, const T& v) { out[key] = ToJson(v); }
};

// Reading a summary back: a pull parser over the text (the trace readers' JSON scanner), straight
// into the typed structs. A merge reads a thousand summaries of ~100 kB; building a DOM of each
// first cost most of the merge.
// A summary that cannot be read stops the parser at its first error (what, and where: the byte
// offset in the file's text); every later call is a no-op that returns an empty value, so the
// walk over the field lists ends quickly and the caller asks failed(). No exceptions.

class Pull {
 public:
  // `text` starts `base` bytes into the summary (a member's raw value): errors name the offset
  // in the whole file.
  explicit Pull(std::string_view text, uint64_t base = 0)
      : s_(text.data(), text.data() + text.size()), begin_(text.data()), base_(base) {}

  void Fail(const std::string& what) {
    if (failed_) return;  // the first error is the one to report
    failed_ = true;
    error_ = what;
    error_offset_ = base_ + static_cast<uint64_t>(s_.pos() - begin_);
    s_.set_pos(s_.end());
  }
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }
  void Check(js::Result r) {
    if (failed_) return;
    if (r == js::Result::kError) {
      s_.set_pos(s_.error_at());
      Fail(s_.error());
    }
    if (r == js::Result::kNeedMore) {  // the text ends inside a value: named at its end
      s_.set_pos(s_.end());
      Fail("unexpected end of the summary");
    }
  }
  char Peek() {
    char c = 0;
    if (failed_) return c;
    Check(s_.Peek(&c));
    return failed_ ? '\0' : c;
  }
  // null is consumed; anything else is left for the caller.
  bool Null() {
    if (Peek() != 'n') return false;
    Scalar(js::Kind::kNull, "null");
    return true;
  }
  js::Value Scalar(js::Kind kind, const char* what) {
    js::Value v;
    if (failed_) return v;
    Check(s_.ParseValue(&v));
    if (failed_) return js::Value{};
    if (v.kind != kind) Fail(std::string(what) + " expected, found " + js::KindName(v.kind));
    return v;
  }
  std::string_view Raw() {  // the next value's text, whole
    js::Value v;
    if (failed_) return {};
    Check(s_.ParseValue(&v));
    return failed_ ? std::string_view() : v.text;
  }
  void Skip() { (void)Raw(); }
  uint64_t Offset() const { return base_ + static_cast<uint64_t>(s_.pos() - begin_); }
  std::string String() {
    const js::Value v = Scalar(js::Kind::kString, "a string");
    if (failed_) return {};
    if (!v.escaped) return std::string(v.text);
    std::string out;
    if (!js::DecodeString(v.text, &out)) Fail("bad escape in a string");
    return out;
  }
  bool Bool() { return Scalar(js::Kind::kBool, "a boolean").bool_value; }
  int64_t Int() {
    int64_t n = 0;
    const std::string_view t = Scalar(js::Kind::kNumber, "an integer").text;
    if (failed_) return 0;
    if (!js::ParseInt64(t, &n)) Fail("integer expected");
    return failed_ ? 0 : n;
  }
  uint64_t UInt() {
    const std::string_view t = Scalar(js::Kind::kNumber, "an integer").text;
    uint64_t n = 0;
    if (failed_) return 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (ec != std::errc() || end != t.data() + t.size()) Fail("unsigned integer expected");
    return failed_ ? 0 : n;
  }
  double Double() {
    double d = 0;
    const std::string_view t = Scalar(js::Kind::kNumber, "a number").text;
    if (failed_) return 0;
    if (!js::ParseDouble(t, &d)) Fail("number expected");
    return failed_ ? 0 : d;
  }
  // Calls member(key) with the position at each member's value; member must consume it.
  template <typename F> void Object(F&& member) {
    if (Peek() != '{') return Fail("an object expected");
    s_.Advance();
    std::string decoded;
    for (bool first = true;; first = false) {
      js::Value key;
      bool done = false;
      Check(s_.NextMember(first, &key, &done));
      if (failed_ || done) return;
      std::string_view name = key.text;
      if (key.escaped) {
        if (!js::DecodeString(key.text, &decoded)) return Fail("bad escape in a member name");
        name = decoded;
      }
      member(name);
      if (failed_) return;
    }
  }
  template <typename F> void Array(F&& element) {
    if (Peek() != '[') return Fail("an array expected");
    s_.Advance();
    for (bool first = true;; first = false) {
      bool done = false;
      Check(s_.NextElement(first, &done));
      if (failed_ || done) return;
      element();
      if (failed_) return;
    }
  }
  void End() {
    if (!failed_ && s_.SkipWs()) Fail("text after the summary");
  }

 private:
  js::Scanner s_;
  const char* begin_;
  uint64_t base_ = 0;
  bool failed_ = false;
  std::string error_;
  uint64_t error_offset_ = 0;
};

// The walker of a struct's field list for one member of its object: reads the member into the
// field of that name and marks it seen. A struct has fewer than 64 fields.
struct MemberReader {
  Pull& p;
  std::string_view key;
  uint64_t* seen;
  size_t index = 0;
  bool found = false;
  template <typename T> void operator()(const char* name, T& v) {
    if (!found && key == name) {
      FromScan(p, v);
      *seen |= uint64_t{1} << index;
      found = true;
    }
    ++index;
  }
};
// Names the first field of the list that no member filled.
struct MissingField {
  uint64_t seen;
  size_t index = 0;
  const char* missing = nullptr;
  template <typename T> void operator()(const char* name, T&) {
    if (missing == nullptr && (seen & (uint64_t{1} << index)) == 0) missing = name;
    ++index;
  }
};

template <typename T> struct IsOptional : std::false_type {};
template <typename T> struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T> struct IsVector : std::false_type {};
template <typename T, typename A> struct IsVector<std::vector<T, A>> : std::true_type {};
template <typename T> struct IsPair : std::false_type {};
template <typename A, typename B> struct IsPair<std::pair<A, B>> : std::true_type {};
template <typename T> struct IsArray : std::false_type {};
template <typename T, size_t N> struct IsArray<std::array<T, N>> : std::true_type {};
template <typename T> struct IsMap : std::false_type {};
template <typename K, typename V, typename C, typename A> struct IsMap<std::map<K, V, C, A>> : std::true_type {};
template <typename T> struct IsSharedConst : std::false_type {};
template <typename T> struct IsSharedConst<std::shared_ptr<const T>> : std::true_type {};
template <typename T> struct IsVariant : std::false_type {};
template <typename... T> struct IsVariant<std::variant<T...>> : std::true_type {};

// const char* fields point at static texts ("on", "input_type"): a text read back is kept
// alive here for the life of the program (a handful of distinct values).
const char* Intern(const std::string& s) {
  static std::mutex mutex;
  static std::set<std::string> texts;
  std::lock_guard<std::mutex> lock(mutex);
  return texts.insert(s).first->c_str();
}

template <typename V, size_t I = 0> void VariantFrom(size_t index, Pull& p, V& v) {
  if constexpr (I < std::variant_size_v<V>) {
    if (index == I) {
      std::variant_alternative_t<I, V> alt{};
      FromScan(p, alt);
      v = std::move(alt);
      return;
    }
    VariantFrom<V, I + 1>(index, p, v);
  } else {
    p.Fail("bad variant index " + std::to_string(index));
  }
}

template <typename T> json ToJson(const T& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T> || std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::isfinite(v) ? json(v) : json(nullptr);
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_same_v<T, const char*>) {
    return v == nullptr ? json(nullptr) : json(v);
  } else if constexpr (IsOptional<T>::value || IsSharedConst<T>::value) {
    return v ? ToJson(*v) : json(nullptr);
  } else if constexpr (IsVector<T>::value || IsArray<T>::value || IsMap<T>::value || std::is_same_v<T, graph::CriticalPathSteps>) {
    json a = json::array();  // the critical path's sparse steps are written as a list of whole ones
    for (const auto& e : v) a.push_back(ToJson(e));
    return a;
  } else if constexpr (IsPair<T>::value) {
    return json::array({ToJson(v.first), ToJson(v.second)});
  } else if constexpr (IsVariant<T>::value) {
    return json::array({v.index(), std::visit([](const auto& alt) { return ToJson(alt); }, v)});
  } else if constexpr (std::is_same_v<T, std::monostate>) {
    return nullptr;
  } else if constexpr (std::is_same_v<T, Diagnostics>) {
    return ToJson(v.entries());
  } else {
    json o = json::object();
    Writer w{o};
    SummaryFields(w, const_cast<T&>(v));  // the writer only reads
    return o;
  }
}

template <typename T> void FromScan(Pull& p, T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    v = p.Bool();
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = p.String();
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_unsigned_v<T>) {
      const uint64_t n = p.UInt();
      if (n > std::numeric_limits<T>::max()) p.Fail("integer out of range");
      v = static_cast<T>(n);
    } else {
      const int64_t n = p.Int();
      if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max()) p.Fail("integer out of range");
      v = static_cast<T>(n);
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    v = p.Null() ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(p.Double());
  } else if constexpr (std::is_enum_v<T>) {
    using U = std::underlying_type_t<T>;
    const int64_t n = p.Int();
    if (n < static_cast<int64_t>(std::numeric_limits<U>::min()) || n > static_cast<int64_t>(std::numeric_limits<U>::max()))
      p.Fail("enum value out of range");
    v = static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, const char*>) {
    v = p.Null() ? nullptr : Intern(p.String());
  } else if constexpr (IsOptional<T>::value) {
    if (p.Null()) {
      v.reset();
    } else {
      typename T::value_type x{};
      FromScan(p, x);
      v = std::move(x);
    }
  } else if constexpr (IsSharedConst<T>::value) {
    if (p.Null()) {
      v.reset();
    } else {
      auto x = std::make_shared<std::remove_const_t<typename T::element_type>>();
      FromScan(p, *x);
      v = std::move(x);
    }
  } else if constexpr (IsVector<T>::value) {
    v.clear();
    p.Array([&] {
      typename T::value_type x{};
      FromScan(p, x);
      v.push_back(std::move(x));
    });
  } else if constexpr (IsArray<T>::value) {
    size_t n = 0;
    p.Array([&] {
      if (n == v.size()) return p.Fail("array of the wrong size");
      FromScan(p, v[n++]);
    });
    if (n != v.size()) p.Fail("array of the wrong size");
  } else if constexpr (IsMap<T>::value) {
    v.clear();
    p.Array([&] {
      std::pair<typename T::key_type, typename T::mapped_type> x{};
      FromScan(p, x);
      v.insert(std::move(x));
    });
  } else if constexpr (IsPair<T>::value) {
    int n = 0;
    p.Array([&] {
      if (n == 0) FromScan(p, v.first);
      else if (n == 1) FromScan(p, v.second);
      else p.Fail("pair expected");
      ++n;
    });
    if (n != 2) p.Fail("pair expected");
  } else if constexpr (IsVariant<T>::value) {
    int n = 0;
    size_t index = 0;
    p.Array([&] {
      if (n == 0) FromScan(p, index);
      else if (n == 1) VariantFrom(index, p, v);
      else p.Fail("variant expected");
      ++n;
    });
    if (n != 2) p.Fail("variant expected");
  } else if constexpr (std::is_same_v<T, std::monostate>) {
    if (!p.Null()) p.Fail("null expected");
  } else if constexpr (std::is_same_v<T, graph::CriticalPathSteps>) {
    v = graph::CriticalPathSteps();
    p.Array([&] {
      graph::CriticalPathStep x{};
      FromScan(p, x);
      v.Add(x);
    });
  } else if constexpr (std::is_same_v<T, Diagnostics>) {
    std::map<std::string, DiagnosticEntry> entries;
    FromScan(p, entries);
    v = Diagnostics();
    for (const auto& [code, e] : entries) v.Restore(code, e);
  } else {
    uint64_t seen = 0;
    p.Object([&](std::string_view key) {
      MemberReader r{p, key, &seen};
      SummaryFields(r, v);
      if (!r.found) p.Skip();  // a member this version does not read
    });
    MissingField m{seen};
    SummaryFields(m, v);
    if (m.missing != nullptr) p.Fail(std::string("missing field '") + m.missing + "'");
  }
}

}  // namespace summary

// ---- the field lists: one line per field ----------------------------------------------------
// Found by argument-dependent lookup from summary::ToJson / FromJson, so they live in the
// namespaces of their types. Left out on purpose: GpuTimeAnalysis::idle_gaps and
// SyncAnalysis::points (only the exporters draw them), KernelSummary::name (an id into the
// trace's string table; name_str is the name).
#define F(field) a(#field, t.field)

template <class A> void SummaryFields(A& a, StepWindow& t) { F(number); F(name); F(cpu_start_ns); F(cpu_end_ns); F(start_ns); F(end_ns); }
template <class A> void SummaryFields(A& a, FlaggedStep& t) { F(window); F(kind); F(excluded); F(reason); }
template <class A> void SummaryFields(A& a, StepSampling& t) {
  F(steps_in_trace); F(steps_kept); F(every); F(rule); F(events_left_out); F(mean_us); F(median_us); F(p90_us); F(min_us); F(max_us);
}
template <class A> void SummaryFields(A& a, StepAnalysis& t) {
  F(source); F(anchor); F(detected); F(flagged); F(steps); F(sampling); F(window_start_ns); F(window_end_ns);
}
template <class A> void SummaryFields(A& a, IdleBreakdownNs& t) {
  F(host_wait_ns); F(kernel_wait_ns); F(other_ns); F(host_wait_gaps); F(kernel_wait_gaps); F(other_gaps);
}
template <class A> void SummaryFields(A& a, GpuTimeAnalysis& t) {
  F(window_ns); F(busy_ns); F(kernel_busy_ns); F(memcpy_busy_ns); F(memset_busy_ns); F(idle);
  F(kernel_time_by_category_ns); F(kernel_time_by_precision_ns); F(kernel_time_total_ns); F(kernel_count);
  F(kernels_under_10us); F(busy_by_device_ns);
}
template <class A> void SummaryFields(A& a, MemcpyKindStats& t) { F(count); F(bytes); F(time_ns); F(pageable_count); F(pageable_bytes); }
template <class A> void SummaryFields(A& a, MemoryTrafficAnalysis& t) { F(memcpy_by_kind); F(memset_count); F(memset_bytes); F(memset_time_ns); }
template <class A> void SummaryFields(A& a, SyncAnalysis& t) {
  F(api_sync_count); F(cuda_sync_event_count); F(by_api); F(api_sync_time_ns); F(syncs_per_step); F(input_copy_count);
}
template <class A> void SummaryFields(A& a, LaunchAnalysis& t) {
  F(kernels); F(kernels_per_step); F(launch_api_calls); F(launch_api_time_ns); F(median_kernel_ns);
  F(pct_kernels_under_10us); F(graph_launched_kernels);
}
template <class A> void SummaryFields(A& a, KernelClass& t) {
  F(category); F(precision); F(tensor_core); F(fp32_simt_gemm); F(rocm); F(fused_cast); F(role); F(multi_tensor_apply); F(rule);
}
template <class A> void SummaryFields(A& a, KernelSummary& t) { F(name_str); F(count); F(total_ns); F(min_ns); F(max_ns); F(cls); }
template <class A> void SummaryFields(A& a, StepStats& t) { F(durations_us); F(mean_us); F(median_us); F(p90_us); F(min_us); F(max_us); }
template <class A> void SummaryFields(A& a, StepMetrics& t) {
  F(number); F(name); F(start_ns); F(end_ns); F(busy_pct); F(kernel_busy_pct); F(tensor_core_kernel_pct); F(kernels);
  F(syncs); F(slowest_rank);
}
template <class A> void SummaryFields(A& a, KernelShare& t) { F(name); F(count); F(time_us); F(pct_of_kernel_time); F(category); F(precision); }
template <class A> void SummaryFields(A& a, TensorCoreResult& t) {
  F(computed); F(kernel_time_pct); F(tc_kernel_time_us); F(kernel_time_us); F(unknown_tc_kernel_time_pct); F(top_kernels);
  F(unknown_top_kernels); F(rocm_kernel_time_pct); F(rocm_note); F(active_pct); F(active_samples);
}
template <class A> void SummaryFields(A& a, Tf32Result& t) {
  F(used); F(gpu_supports); F(compute_capability_major); F(tf32_kernel_time_pct); F(tf32_pct_of_gemm);
  F(fp32_gemm_on_ampere); F(allow_tf32_matmul); F(allow_tf32_cudnn); F(top);
}
template <class A> void SummaryFields(A& a, CastResult& t) { F(count); F(count_per_step); F(time_us); F(time_pct); F(top); F(fused_count); F(fused_time_us); }
template <class A> void SummaryFields(A& a, OpKernel& t) { F(name); F(count); F(time_us); F(precision); F(tensor_core); }
template <class A> void SummaryFields(A& a, OpPrecision& t) {
  F(name); F(dtype); F(dtype_source); F(kernel_precision); F(calls); F(kernel_time_us); F(pct_of_eligible);
  F(tensor_core_pct); F(kernels);
}
template <class A> void SummaryFields(A& a, OpLevelPrecision& t) {
  F(available); F(reason); F(has_input_types); F(op_kernel_time_us); F(eligible_kernel_time_us); F(eligible_kernel_time_pct);
  F(eligible_pct_of_all_kernel_time); F(unattributed_kernel_time_us); F(lowp_share_pct); F(fp32_share_pct);
  F(unknown_dtype_pct); F(eligible_time_by_dtype_us); F(ops); F(fp32_ops_top);
}
template <class A> void SummaryFields(A& a, EligibleWork& t) {
  F(time_us); F(pct_of_kernel_time); F(tensor_core_time_us); F(time_by_precision_us); F(basis);
}
template <class A> void SummaryFields(A& a, PrecisionResult& t) {
  F(computed); F(kernel_time_us); F(kernel_count); F(kernel_time_by_category_pct); F(kernel_time_by_precision_pct);
  F(gemm_conv_time_us); F(fp32_simt_gemm_time_us); F(fp32_simt_gemm_pct_of_gemm); F(fp32_simt_top); F(top_fp16);
  F(top_bf16); F(top_tf32); F(top_fp32); F(tf32); F(casts); F(op_level); F(eligible);
}
template <class A> void SummaryFields(A& a, Headline& t) { F(name); F(value); F(unit); F(source); }
template <class A> void SummaryFields(A& a, KernelTime& t) { F(name); F(count); F(time_us); }
template <class A> void SummaryFields(A& a, TimeSpan& t) { F(start_us); F(end_us); F(dur_us); }
template <class A> void SummaryFields(A& a, Field& t) { F(key); F(value); F(unit); }
template <class A> void SummaryFields(A& a, DimensionResult& t) { F(id); F(status); F(headline); F(metrics); F(findings); }
template <class A> void SummaryFields(A& a, ChecklistItem& t) {
  F(id); F(status); F(value); F(unit); F(threshold); F(source); F(evidence); F(how_to_know); F(findings);
}
template <class A> void SummaryFields(A& a, Finding& t) {
  F(id); F(severity); F(dimension); F(checklist); F(title); F(evidence); F(recommendation); F(est_saving_pct); F(time_ranges);
  F(confidence); F(confidence_reason);
}
template <class A> void SummaryFields(A& a, IntegrityCheck& t) { F(id); F(status); F(evidence); F(affects); F(values); F(ranks); }
template <class A> void SummaryFields(A& a, TraceIntegrity& t) { F(checks); }
template <class A> void SummaryFields(A& a, GpuPeak& t) {
  F(id); F(fp16_tflops); F(tf32_tflops); F(fp32_tflops); F(hbm_gbs); F(nvlink_gbs); F(pcie_gbs); F(bf16); F(bf16_tflops);
  F(fp64_tflops); F(fp64_matrix_tflops); F(fp32_matrix_tflops); F(fp8_tflops); F(int8_tops); F(fp4_tflops); F(name);
  F(vendor); F(sm_count); F(source); F(device_names);
}
template <class A> void SummaryFields(A& a, Device& t) {
  F(id); F(name); F(vendor); F(cc_major); F(cc_minor); F(sm_count); F(total_memory_bytes); F(max_threads_per_sm);
  F(regs_per_sm); F(shared_mem_per_sm); F(arch_basis);
}
template <class A> void SummaryFields(A& a, DeviceInfo& t) { F(device); F(peak); F(peak_match); }
template <class A> void SummaryFields(A& a, DiagnosticEntry& t) { F(severity); F(count); F(first_offset); F(first_message); }
template <class A> void SummaryFields(A& a, InputInfo& t) {
  F(path); F(format); F(events); F(bytes); F(file_bytes); F(trace_rank); F(world_size); F(host); F(driver_version);
  F(cuda_runtime_version); F(cupti_version); F(framework_version); F(devices); F(diagnostics);
}
template <class A> void SummaryFields(A& a, AnalysisOptions& t) {
  F(step_range_pattern); F(first_step); F(last_step); F(include_warmup); F(gpu_override); F(gpu_peaks_path);
}
template <class A> void SummaryFields(A& a, RankAnalysis& t) {
  F(rank); F(input_path); F(format); F(input_events); F(steps); F(gpu); F(memory); F(syncs); F(launches); F(top_kernels);
  F(step_stats); F(per_step); F(gpu_activity_recorded); F(tensor_cores); F(precision); F(matrix); F(checklist);
  F(findings); F(joint_saving_pct); F(tensor_active_per_step_pct); F(roofline); F(input); F(critical_path); F(integrity);
}

namespace graph {
template <class A> void SummaryFields(A& a, PathBreakdown& t) { F(ns); F(gpu_gap_ns); F(length_ns); }
template <class A> void SummaryFields(A& a, CriticalPathStep& t) { F(number); F(measured_ns); F(replayed_ns); F(path); }
// The path's segments are for the trace export, which needs the trace: a summary leaves them out.
template <class A> void SummaryFields(A& a, CriticalPathResult& t) {
  F(available); F(reason); F(steps); F(window); F(measured_window_ns); F(replayed_window_ns); F(replay_error_pct);
  F(worst_step); F(nodes); F(edges); F(launch_latency_ns); F(hidden_waits);
}
}  // namespace graph

namespace roofline {
template <class A> void SummaryFields(A& a, GemmDims& t) { F(batch); F(m); F(n); F(k); }
template <class A> void SummaryFields(A& a, RooflineGpu& t) { F(device); F(device_name); F(peak); F(match); }
template <class A> void SummaryFields(A& a, OpRow::Identity& t) { F(op); F(input_dims); F(input_types); F(precision); F(family); F(unit); F(backward); }
template <class A> void SummaryFields(A& a, OpRow::Work& t) { F(known); F(gflop); F(bytes); F(flop_per_byte); F(note); F(gemm); }
template <class A> void SummaryFields(A& a, OpRow::Timing& t) { F(count); F(calls_with_kernels); F(kernel_time_us); F(tflops); F(tbps); }
template <class A> void SummaryFields(A& a, OpRow::Roof& t) { F(bound); F(peak_tflops); F(pct_of_peak); F(note); }
template <class A> void SummaryFields(A& a, OpRow& t) { F(id); F(work); F(timing); F(roof); }
template <class A> void SummaryFields(A& a, StepRoofline& t) {
  F(number); F(time_us); F(model_gflop); F(hardware_gflop); F(achieved_tflops); F(mfu_pct); F(hfu_pct);
}
template <class A> void SummaryFields(A& a, RooflineSummary& t) {
  F(step_gflop); F(achieved_tflops); F(peak_precision); F(peak_tflops); F(peak_source); F(mfu_pct); F(mfu_reason);
  F(hfu_pct); F(recompute_gflop); F(activation_recompute); F(steps_used);
}
template <class A> void SummaryFields(A& a, RooflineCoverage::Unmodelled& t) { F(op); F(reason); F(count); F(kernel_time_us); }
template <class A> void SummaryFields(A& a, RooflineCoverage& t) {
  F(kernel_time_us); F(modelled_kernel_time_us); F(modelled_calls); F(unknown_calls); F(top_unknown);
}
template <class A> void SummaryFields(A& a, AttentionUse& t) {
  F(impl); F(op); F(input_dims); F(input_types); F(backward); F(calls); F(kernel_time_us);
}
template <class A> void SummaryFields(A& a, EagerAttention::GemmRow& t) { F(op); F(input_dims); F(backward); }
template <class A> void SummaryFields(A& a, EagerAttention& t) {
  F(qk_op); F(softmax_op); F(pv_op); F(qk_input_dims); F(pv_input_dims); F(batch_heads); F(batch); F(heads); F(seq_q);
  F(seq_kv); F(head_dim); F(shape_basis); F(precision); F(matrix_bytes); F(calls); F(kernel_time_us); F(gemm_time_us);
  F(softmax_time_us); F(backward_time_us); F(gemm_rows);
}
template <class A> void SummaryFields(A& a, RooflineResult& t) {
  F(available); F(reason); F(gpu); F(ops); F(ops_total); F(math_used); F(steps); F(summary); F(coverage); F(attention);
  F(eager_attention);
}
}  // namespace roofline

#undef F

nlohmann::json RankSummaryJson(const RankAnalysis& rank, const AnalysisOptions& options) {
  nlohmann::json r = summary::ToJson(rank);
  // Of the roofline's op rows, those the report shows (ops_total and math_used tell the rest).
  if (nlohmann::json& ops = r["roofline"]; ops.is_object() && ops["ops"].size() > kRooflineReportOps)
    ops["ops"].erase(ops["ops"].begin() + static_cast<std::ptrdiff_t>(kRooflineReportOps), ops["ops"].end());
  return {{"schema", kSummarySchema},
          {"tool_version", AMPSCOPE_VERSION},
          {"analysis_options", summary::ToJson(options)},
          {"rank", std::move(r)},
          // The rank's NCCL calls, for the cross-rank view (their own field list: collectives_json.h).
          {"collectives", RankCollectivesToJson(rank.collectives, rank.comm)}};
}

std::string RankSummaryText(const RankAnalysis& rank, const AnalysisOptions& options) {
  return RankSummaryJson(rank, options).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

StatusOr<RankSummary> ParseRankSummary(std::string_view text, const std::string& path) {
  // Every error names the file and the byte offset in its (uncompressed) text.
  auto error = [&path](uint64_t offset, const std::string& what) {
    return Status::Error(path + ": byte " + std::to_string(offset) + ": " + what);
  };
  // First the top level only (each member's value is bracket-matched, not parsed): the schema
  // and version are checked before any of the rank is read.
  std::string_view options_text, rank_text, collectives_text;
  std::optional<std::string> schema, version;
  uint64_t version_at = 0;
  {
    summary::Pull top(text);
    top.Object([&](std::string_view key) {
      if (key == "schema" && top.Peek() == '"') schema = top.String();
      else if (key == "tool_version" && top.Peek() == '"') version_at = top.Offset(), version = top.String();
      else if (key == "analysis_options") options_text = top.Raw();
      else if (key == "rank") rank_text = top.Raw();
      else if (key == "collectives") collectives_text = top.Raw();
      else top.Skip();
    });
    top.End();
    if (top.failed()) {  // JSON, but not an object of members (an array, a number ...), goes on to the schema check
      summary::Pull any(text);
      any.Skip();
      any.End();
      if (any.failed())
        return error(any.error_offset(), std::string("not JSON (expected an ampscope rank summary): ") + any.error());
    }
  }
  if (schema != kSummarySchema)
    return error(0, std::string("not an ampscope rank summary (expected \"schema\": \"") + kSummarySchema + "\")");
  if (version != AMPSCOPE_VERSION)
    return error(version_at, "written by ampscope " + version.value_or("?") + "; this is " + AMPSCOPE_VERSION +
                                 ": write the summaries again with this version");
  auto at = [&text](std::string_view part) { return static_cast<uint64_t>(part.data() - text.data()); };
  for (auto [name, raw] : {std::pair{"analysis_options", options_text}, {"rank", rank_text}, {"collectives", collectives_text}})
    if (raw.empty()) return error(0, std::string("bad rank summary: missing field '") + name + "'");
  RankSummary out;
  summary::Pull options(options_text, at(options_text));
  summary::FromScan(options, out.options);
  if (options.failed()) return error(options.error_offset(), "bad rank summary: " + options.error());
  summary::Pull rank(rank_text, at(rank_text));
  summary::FromScan(rank, out.rank);
  if (rank.failed()) return error(rank.error_offset(), "bad rank summary: " + rank.error());
  // The NCCL calls are a few kB a rank, read by their own field list (collectives_json.h).
  const nlohmann::json collectives = nlohmann::json::parse(collectives_text, nullptr, /*allow_exceptions=*/false);
  if (collectives.is_discarded()) return error(at(collectives_text), "bad rank summary: \"collectives\" is not JSON");
  if (Status c = RankCollectivesFromJson(collectives, &out.rank.collectives, &out.rank.comm); !c.ok())
    return error(at(collectives_text), "bad rank summary: " + c.message());
  return out;
}

namespace {

bool SummaryPathIsGzip(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

// One gzip member (header with no name and no time, so the same summary gives the same bytes).
StatusOr<std::string> Gzip(std::string_view text) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Status::Error("cannot compress the rank summary (zlib's deflateInit2 failed)");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::Error("cannot compress the rank summary (zlib's deflate did not finish)");
  return out;
}

}  // namespace

StatusOr<std::string> RankSummaryBytes(const RankAnalysis& rank, const AnalysisOptions& options, std::string_view path) {
  std::string text = RankSummaryText(rank, options);
  if (!SummaryPathIsGzip(path)) return text;
  return Gzip(text);
}

StatusOr<RankSummary> ReadRankSummary(const std::string& path) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  ByteSource& in = **source;
  std::string text;
  const double expected = in.expected_uncompressed_bytes();
  if (expected > 0 && expected < static_cast<double>(kMaxSummaryBytes)) text.reserve(static_cast<size_t>(expected));
  char buf[1 << 16];
  for (;;) {
    StatusOr<size_t> n = in.Read(buf, sizeof buf);
    if (!n.ok()) return Status::Error(path + ": " + n.status().message());
    if (*n == 0) break;
    if (text.size() + *n > kMaxSummaryBytes)
      return Status::Error(path + ": byte " + std::to_string(kMaxSummaryBytes) + ": over " +
                           std::to_string(kMaxSummaryBytes >> 20) + " MiB: not a rank summary ampscope wrote");
    text.append(buf, *n);
  }
  return ParseRankSummary(text, path);
}

}  // namespace ampscope
