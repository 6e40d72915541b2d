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
  // `progress` may be empty; it is called every few MB with (raw bytes consumed, raw total).
  Tokenizer(ByteSource& source, const std::string& display_name,
            const std::function<void(uint64_t, uint64_t)>& progress)
      : source_(source), name_(display_name), progress_(progress) {}

  // Reads the whole input into `sink`. Errors are "<file>: byte <offset>: <what>".
  Status Run(EventSink& sink);

  // Input offset (uncompressed) of a byte inside the current window.
  uint64_t OffsetOf(const char* p) const { return window_offset_ + static_cast<uint64_t>(p - window_.data()); }
  // Uncompressed bytes parsed so far, and the size of the whole uncompressed input as far as it
  // can be told (extrapolated from the compression ratio so far for gzip; 0 before any read).
  double parsed_bytes() const { return static_cast<double>(window_offset_ + begin_); }
  double expected_input_bytes() const { return expected_input_bytes_; }
  // Uncompressed bytes read in all, after Run.
  uint64_t bytes_read() const { return window_offset_ + end_; }
  // The last progress call (bytes_done == bytes_total), after the trace is complete.
  void ReportDone() const {
    if (progress_) progress_(source_.raw_bytes_total(), source_.raw_bytes_total());
  }

 private:
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
  };
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
};

}  // namespace ampscope::kineto
