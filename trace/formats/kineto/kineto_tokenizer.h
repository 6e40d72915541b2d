// The framing layer of the Kineto reader: pulls bytes from a ByteSource into a growable window
// and tokenizes the trace one unit at a time (a traceEvents element, or a top-level member such
// as deviceProperties), never the whole file. Chunk boundaries do not matter: a unit cut by the
// end of the window is parsed again once more bytes are in (Perfetto's json_trace_tokenizer
// plays the same part). Internal to trace/formats/kineto/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "trace/formats/kineto/kineto_keys.h"
#include "trace/io/input_stream.h"
#include "trace/io/json_scanner.h"

namespace ampscope::kineto {

// What the tokenizer hands its units to (the event parser).
class EventSink {
 public:
  virtual ~EventSink() = default;
  // One traceEvents element. An error stops reading (a fatal input error).
  virtual Status OnEvent(const RawEvent& ev) = 0;
  // A top-level member other than traceEvents ("deviceProperties", "distributedInfo", ...).
  virtual void OnTopLevelMember(std::string_view key, const json::Value& value) = 0;
};

class Tokenizer {
 public:
  enum class Stage : uint8_t {
    kStart,           // before the top-level value
    kTopMember,       // in the top-level object: expecting a member or '}'
    kEvents,          // in traceEvents: expecting an event or ']'
    kTrailing,        // after the top-level value: only whitespace may follow
    kDone
  };
  // Where the tokenizer is in the trace's structure.
  struct Framing {
    Stage stage = Stage::kStart;
    bool top_is_array = false;
    bool saw_trace_events = false;
    bool first_in_container = true;
    bool events_first = true;
    bool after_comma = false;  // kEvents: the ',' before the next event is consumed (and committed)
  };
  // Why Run returned before the end of the input (see the stop rules below).
  // kDrained: every byte read so far is parsed and committed (whitespace between units): the
  // caller may let go of the input before pause_offset() and call Run again.
  enum class Pause : uint8_t { kNone, kBoundary, kEventsEnd, kDrained };
  static constexpr uint64_t kNoStop = ~uint64_t{0};

  // `progress` may be empty; it is called every few MB with (raw bytes consumed, raw total).
  // `source` starts at input offset `start_offset`, where the structure is `framing` (a
  // tokenizer that resumes at an event boundary, kineto_parallel.cc).
  Tokenizer(ByteSource& source, const std::string& display_name,
            const std::function<void(uint64_t, uint64_t)>& progress, uint64_t start_offset, const Framing& framing)
      : source_(source), name_(display_name), progress_(progress), window_offset_(start_offset), frame_(framing) {}
  Tokenizer(ByteSource& source, const std::string& display_name,
            const std::function<void(uint64_t, uint64_t)>& progress)
      : Tokenizer(source, display_name, progress, 0, Framing{}) {}

  // Reads the input into `sink` until its end, or until a stop rule pauses it (then Run may be
  // called again, with other stop rules). Errors are "<file>: byte <offset>: <what>".
  Status Run(EventSink& sink);

  // Stop rules, checked between two events of traceEvents (at the ',' that separates them):
  // pause at the first such ',' at input offset >= `offset` (an event boundary), or at the ']'
  // that ends traceEvents. The pause offset is that of the ',' or the ']'.
  void set_stop_at_boundary(uint64_t offset) { stop_boundary_ = offset; }
  void set_stop_at_events_end(bool stop) { stop_at_events_end_ = stop; }
  // Pause (kDrained) when the window is empty of unparsed bytes and at least `bytes` more of
  // the input were committed since the last such pause: a long run of whitespace between two
  // units then never keeps the input it has passed (the parallel reader releases it). 0: never.
  void set_drained_pause_bytes(uint64_t bytes) {
    drained_pause_bytes_ = bytes;
    last_drained_pause_ = window_offset_ + begin_;
  }
  // A speculative tokenizer that must read past this offset gives up (window_cap_hit()), as for
  // a unit over the window cap: whitespace that runs far past its piece is the calling
  // thread's to read.
  void set_give_up_at(uint64_t offset) { give_up_at_ = offset; }
  // A unit larger than this (the window would have to grow past it) ends Run with an error and
  // window_cap_hit() (a speculative tokenizer gives up rather than buffer a runaway unit). The
  // default is kMaxUnitBytes: the most one event or one top-level member may take.
  void set_max_window_bytes(size_t bytes) { max_window_bytes_ = bytes; }
  static constexpr size_t kMaxUnitBytes = size_t{64} << 20;
  // The window's first size (default: 4 MiB for large inputs, less for small ones).
  void set_window_bytes(size_t bytes) { initial_window_bytes_ = bytes; }
  Pause paused() const { return pause_; }
  uint64_t pause_offset() const { return pause_offset_; }
  bool window_cap_hit() const { return window_cap_hit_; }
  const Framing& framing() const { return frame_; }

  // Input offset (uncompressed) of a byte inside the current window.
  uint64_t OffsetOf(const char* p) const { return window_offset_ + static_cast<uint64_t>(p - window_.data()); }
  // Uncompressed bytes parsed so far, and the size of the whole uncompressed input as far as it
  // can be told (extrapolated from the compression ratio so far for gzip; 0 before any read).
  double parsed_bytes() const { return static_cast<double>(window_offset_ + begin_); }
  double expected_input_bytes() const {
    const double from_source = source_.expected_uncompressed_bytes();
    return from_source >= 0 ? from_source : expected_input_bytes_;
  }
  // Uncompressed bytes read in all, after Run.
  uint64_t bytes_read() const { return window_offset_ + end_; }
  // The last progress call (bytes_done == bytes_total), after the trace is complete.
  void ReportDone() const {
    if (progress_) progress_(source_.raw_bytes_total(), source_.raw_bytes_total());
  }

 private:
  // The window's storage. Not a std::vector: no zero-filling of bytes that read() overwrites.
  class Window {
   public:
    char* data() const { return data_.get(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void Resize(size_t size, size_t keep) {  // keeps the first `keep` bytes
      std::unique_ptr<char[]> bigger(new char[size]);
      if (keep > 0) std::memcpy(bigger.get(), data_.get(), keep);
      data_ = std::move(bigger);
      size_ = size;
    }

   private:
    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
  };

  Status Fill();
  Status Fatal(const char* at, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(OffsetOf(at)) + ": " + what);
  }
  Status FatalAt(uint64_t offset, const std::string& what) const {
    return Status::Error(name_ + ": byte " + std::to_string(offset) + ": " + what);
  }
  Status Truncated() const;
  // Each returns kNeedMore when the window ends inside the unit.
  json::Result Step(json::Scanner& sc, Status* fatal, EventSink& sink);
  json::Result StepEvents(json::Scanner& sc, Status* fatal, EventSink& sink);
  // Everything before the scanner's position is done with: the window may drop it.
  void Commit(const json::Scanner& sc) { begin_ = static_cast<size_t>(sc.pos() - window_.data()); }
  json::Result ParseEvent(json::Scanner& sc, RawEvent* ev);
  json::Result ParseArgs(json::Scanner& sc, RawEvent* ev);

  ByteSource& source_;
  const std::string& name_;
  const std::function<void(uint64_t, uint64_t)>& progress_;
  Window window_;
  size_t begin_ = 0;            // first unparsed byte in window_
  size_t end_ = 0;              // end of buffered bytes in window_
  uint64_t window_offset_ = 0;  // input offset of window_[0]
  bool eof_ = false;
  uint64_t last_progress_ = 0;
  double expected_input_bytes_ = 0;  // uncompressed size of the whole input, extrapolated for gzip
  Framing frame_;
  RawEvent event_;
  uint64_t stop_boundary_ = kNoStop;
  bool stop_at_events_end_ = false;
  size_t max_window_bytes_ = kMaxUnitBytes;
  size_t initial_window_bytes_ = 0;
  Pause pause_ = Pause::kNone;
  uint64_t pause_offset_ = 0;
  bool window_cap_hit_ = false;
  uint64_t drained_pause_bytes_ = 0;
  uint64_t last_drained_pause_ = 0;
  uint64_t give_up_at_ = kNoStop;
};

}  // namespace ampscope::kineto
