// The annotated trace in Perfetto's protobuf format (`ampscope analyze --perfetto out.pftrace`).
//
// Same content as the Chrome trace (chrome_trace.h): every input event plus the analysis
// tracks, but written as TracePacket/TrackDescriptor/TrackEvent protobuf by our own small
// encoder, with interned event names, categories and argument names. It is 3-5x smaller
// than the JSON and has no size limit in ui.perfetto.dev (the JSON importer of browsers
// fails over about 512 MB), and timestamps stay exact int64 ns.
//
// Layout: one packet sequence. Track descriptors first (a process track per input process,
// a thread track per CPU thread, named child tracks for GPU streams and for slices that
// overlap without nesting, counter tracks), then the events in timestamp order
// (TYPE_SLICE_BEGIN/END, TYPE_INSTANT, TYPE_COUNTER). Flows become flow_ids /
// terminating_flow_ids on the slices they bind to.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

// Fails when `out` fails or a timestamp is negative (protobuf timestamps are unsigned).
Status WritePerfettoTrace(const std::vector<Trace>& traces, const JobAnalysis& analysis, std::ostream& out);

namespace perfetto_proto {

// A minimal append-only protobuf encoder (proto2 wire format).
class Encoder {
 public:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };
  std::string& data() { return data_; }
  const std::string& data() const { return data_; }
  size_t size() const { return data_.size(); }
  void clear() { data_.clear(); }

  void Varint(uint64_t v);
  void Key(uint32_t field, WireType type) { Varint((static_cast<uint64_t>(field) << 3) | type); }
  void Uint(uint32_t field, uint64_t v) {
    Key(field, kVarint);
    Varint(v);
  }
  // int32/int64 fields: negative values are the 10-byte two's complement varint.
  void Int(uint32_t field, int64_t v) { Uint(field, static_cast<uint64_t>(v)); }
  void Bool(uint32_t field, bool v) { Uint(field, v ? 1 : 0); }
  void Fixed64(uint32_t field, uint64_t v);
  void Double(uint32_t field, double v);
  void Bytes(uint32_t field, std::string_view bytes);
  // Like Bytes, with invalid UTF-8 replaced by U+FFFD (string fields must be UTF-8).
  void String(uint32_t field, std::string_view s);
  void Message(uint32_t field, const Encoder& m) { Bytes(field, m.data_); }

 private:
  std::string data_;
};

}  // namespace perfetto_proto
}  // namespace ampscope
