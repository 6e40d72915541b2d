// What the timeline exporters (Chrome JSON, Perfetto protobuf) share about the input events:
// exact µs formatting, the pid mapping of ranks, the events' names, categories and arguments in
// Kineto's vocabulary, and the process/thread names of the tracks.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/classify/kernel_classifier.h"
#include "trace/model.h"

namespace ampscope {
namespace trace_export {

// ---- time formatting -------------------------------------------------------------------

// Appends `ns` as decimal microseconds with exactly 3 fractional digits ("-0.500",
// "1623143089861123.456"): the int64 is split, never converted to a double.
void AppendMicros(std::string& out, TimeNs ns);
std::string FormatMicros(TimeNs ns);

// Appends `s` as the body of a JSON string (no quotes): escapes '"', '\\' and control
// characters, and replaces invalid UTF-8 with U+FFFD so strict parsers accept the file.
void AppendJsonEscaped(std::string& out, std::string_view s);
// Appends `s` with invalid UTF-8 bytes replaced by U+FFFD.
void AppendValidUtf8(std::string& out, std::string_view s);

// ---- pids --------------------------------------------------------------------------------

// Output pids of one rank. One trace keeps its own pids (so the output lines up with the
// input); several traces get a dense block each: rank i uses [base_i, base_i + stride),
// which keeps pids small (browsers and Perfetto read them as 32-bit).
struct RankPids {
  std::map<int64_t, int64_t> by_input_pid;  // input pid -> output pid
  int64_t analysis_pid = 0;                 // the "ampscope analysis" process of this rank
  int64_t Map(int64_t input_pid) const;
};
std::vector<RankPids> AssignPids(const std::vector<Trace>& traces);

// The pid an event lands on in Kineto's convention: GPU events on the device "process".
// Collected here so the writer and the pid assignment agree.
std::vector<int64_t> UsedPids(const Trace& trace);

// The label shown for rank `index` ("rank 3"): the trace's rank when known, else its index.
std::string RankLabel(const Trace& trace, size_t index);

// ---- event arguments, written through a sink so JSON and protobuf share one description ----

class ArgSink {
 public:
  virtual ~ArgSink() = default;
  virtual void Int(std::string_view key, int64_t v) = 0;
  virtual void Double(std::string_view key, double v) = 0;
  virtual void String(std::string_view key, std::string_view v) = 0;
  virtual void Bool(std::string_view key, bool v) = 0;
  virtual void IntArray(std::string_view key, const int64_t* v, size_t n) = 0;
  // `json` is a complete JSON value (e.g. Kineto's "Input Dims" array text).
  virtual void RawJson(std::string_view key, std::string_view json) = 0;
  virtual void Json(std::string_view key, const nlohmann::json& v) = 0;
};

// Names, categories and arguments of the input events, in Kineto's vocabulary so that the
// output reads like the input (and can be read back by Kineto tools).
class EventDescriber {
 public:
  explicit EventDescriber(const Trace& trace);
  const Trace& trace() const { return trace_; }

  std::string_view MemcpyName(const MemcpyEvent& e) const;
  std::string_view MemsetName(const MemsetEvent& e) const;
  static const char* SyncName(SyncType t);
  static const char* RangeCategory(RangeKind k);
  // True when the interned string is valid JSON (cached per id).
  bool IsJson(StringId id) const;

  // `cls` is the analysis' class of the kernel (KernelAnnotations); nullptr writes none.
  void KernelArgs(const KernelEvent& e, const KernelClass* cls, ArgSink& sink) const;
  void MemcpyArgs(const MemcpyEvent& e, ArgSink& sink) const;
  void MemsetArgs(const MemsetEvent& e, ArgSink& sink) const;
  void ApiArgs(const ApiCall& e, ArgSink& sink) const;
  void SyncArgs(const SyncEvent& e, ArgSink& sink) const;
  void RangeArgs(const Range& e, ArgSink& sink) const;
  void CpuOpArgs(const CpuOp& e, ArgSink& sink) const;
  void MemoryArgs(const MemoryEvent& e, ArgSink& sink) const;

  // Track keys in Kineto's convention (pid, tid): GPU work on (device, stream).
  static std::pair<int64_t, int64_t> KernelTrack(const KernelEvent& e) { return {e.device, e.stream}; }
  static std::pair<int64_t, int64_t> MemcpyTrack(const MemcpyEvent& e) { return {e.device, e.stream}; }
  static std::pair<int64_t, int64_t> MemsetTrack(const MemsetEvent& e) { return {e.device, e.stream}; }
  static std::pair<int64_t, int64_t> SyncTrack(const SyncEvent& e);
  static std::pair<int64_t, int64_t> RangeTrack(const Range& e);
  // The host process of the trace ([memory] events and CPU counters land there).
  int64_t HostPid() const { return host_pid_; }

 private:
  const Trace& trace_;
  int64_t host_pid_ = -1;
  mutable std::vector<std::string> memcpy_names_;  // by (kind, src, dst) index
  mutable std::vector<uint8_t> json_state_;        // 0 unknown, 1 valid JSON, 2 not JSON
};

// Process and thread names for the (pid, tid) pairs a trace uses: the input's names where
// it has them, else names in Kineto's style ("GPU 0", "stream 7", "thread 1234").
struct TrackNames {
  std::map<int64_t, std::string> process;                       // input pid -> name
  std::map<int64_t, std::string> process_labels;                // input pid -> labels
  std::map<std::pair<int64_t, int64_t>, std::string> thread;    // (input pid, tid) -> name
  std::set<int64_t> gpu_pids;                                   // input pids that are GPU devices
};
TrackNames NameTracks(const Trace& trace);

}  // namespace trace_export
}  // namespace ampscope
