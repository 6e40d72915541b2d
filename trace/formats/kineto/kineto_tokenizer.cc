// The Kineto tokenizer: window management and framing (see kineto_tokenizer.h).
#include "trace/formats/kineto/kineto_tokenizer.h"

#include <algorithm>
#include <cstring>

namespace ampscope::kineto {

namespace {

using json::Kind;
using json::Result;
using json::Scanner;
using json::Value;

// The input window: 4 MiB for large inputs (smaller for small ones), grown only for a single
// unit (event, top-level member) larger than that.
constexpr size_t kWindowBytes = size_t{4} << 20;
constexpr size_t kMinWindowBytes = size_t{4} << 10;
constexpr uint64_t kProgressEveryBytes = uint64_t{4} << 20;

// "64 MiB", or the byte count when it is not a whole number of MiB.
std::string UnitLimitText(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Status Tokenizer::Fill() {
  if (begin_ > 0) {
    std::memmove(window_.data(), window_.data() + begin_, end_ - begin_);
    window_offset_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (window_.empty()) {
    // Small inputs get a small window (tests read thousands of them); gzip may expand ~10x.
    // A stream (pipe, stdin) has no size: it gets the large window.
    const uint64_t raw_total = source_.raw_bytes_total();
    const uint64_t total = raw_total == 0 ? kWindowBytes : raw_total * (source_.compressed() ? 10 : 1) + 16;
    const size_t first = initial_window_bytes_ > 0
                             ? initial_window_bytes_
                             : static_cast<size_t>(std::clamp<uint64_t>(total, kMinWindowBytes, kWindowBytes));
    window_.Resize(std::min(first, max_window_bytes_), 0);
  }
  if (end_ == window_.size()) {  // a unit larger than the window
    if (window_.size() >= max_window_bytes_) {
      window_cap_hit_ = true;
      return FatalAt(window_offset_, "a single JSON value (one event, or one top-level member) is larger than " +
                                         UnitLimitText(max_window_bytes_) + ", the most ampscope reads as one unit");
    }
    window_.Resize(std::min(window_.size() * 2, max_window_bytes_), end_);
  }
  StatusOr<size_t> n = source_.Read(window_.data() + end_, window_.size() - end_);
  if (!n.ok()) return Status::Error(name_ + ": " + n.status().message());
  if (*n == 0) eof_ = true;
  end_ += *n;
  if (source_.raw_bytes_done() > 0) {
    // Uncompressed bytes per raw byte so far: 1 for plain input, the ratio for gzip.
    const double ratio = static_cast<double>(window_offset_ + end_) / static_cast<double>(source_.raw_bytes_done());
    expected_input_bytes_ = static_cast<double>(source_.raw_bytes_total()) * ratio;
  }
  if (progress_) {
    uint64_t done = source_.raw_bytes_done();
    if (done - last_progress_ >= kProgressEveryBytes) {
      last_progress_ = done;
      progress_(done, source_.raw_bytes_total());
    }
  }
  return Status::Ok();
}


Status Tokenizer::Truncated() const {
  uint64_t at = window_offset_ + end_;
  switch (frame_.stage) {
    case Stage::kStart:
      return FatalAt(at, "no JSON data: expected a Kineto trace (a JSON object), found end of input");
    case Stage::kTopMember:
      return FatalAt(at, "truncated JSON: the input ends inside the top-level object (expected a member or '}')");
    case Stage::kEvents:
      return FatalAt(at, "truncated JSON: the input ends inside traceEvents (expected an event, ',' or ']')");
    default: return FatalAt(at, "truncated JSON");
  }
}

Result Tokenizer::ParseArgs(Scanner& sc, RawEvent* ev) {
  char c;
  if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
  if (c != '{') {
    Value skipped;
    Result r = sc.ParseValue(&skipped);
    if (r == Result::kOk) ev->args = skipped;
    return r;
  }
  ev->args.kind = Kind::kObject;
  ev->args.where = sc.pos();
  sc.Advance();
  const bool keep_all = !(ev->ph.kind == Kind::kString && ev->ph.text != "C");
  const KeyTable<ArgKey>& keys = ArgKeys();
  bool first = true;
  while (true) {
    Value key;
    bool done = false;
    Result r = sc.NextMember(first, &key, &done);
    if (r != Result::kOk) return r;
    if (done) return Result::kOk;
    first = false;
    Value v;
    r = sc.ParseValue(&v);
    if (r != Result::kOk) return r;
    ArgKey k;
    if (keys.Find(key.text, &k)) {
      ev->arg[k] = v;
      ev->arg_mask |= uint64_t{1} << k;
    }
    if (keep_all) ev->all_args.emplace_back(key, v);
  }
}

Result Tokenizer::ParseEvent(Scanner& sc, RawEvent* ev) {
  char c;
  if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
  if (c != '{') return sc.Fail(sc.pos(), "expected an event object ('{') in traceEvents, found " + sc.Describe(sc.pos()));
  ev->Reset();
  ev->begin = sc.pos();
  sc.Advance();
  bool first = true;
  while (true) {
    Value key;
    bool done = false;
    Result r = sc.NextMember(first, &key, &done);
    if (r != Result::kOk) return r;
    if (done) {
      ev->end = sc.pos();
      return Result::kOk;
    }
    first = false;
    Value* dst = nullptr;
    switch (LookupEventField(key.text)) {
      case EventField::kPh: dst = &ev->ph; break;
      case EventField::kCat: dst = &ev->cat; break;
      case EventField::kName: dst = &ev->name; break;
      case EventField::kPid: dst = &ev->pid; break;
      case EventField::kTid: dst = &ev->tid; break;
      case EventField::kTs: dst = &ev->ts; break;
      case EventField::kDur: dst = &ev->dur; break;
      case EventField::kId: dst = &ev->id; break;
      case EventField::kBp: dst = &ev->bp; break;
      case EventField::kArgs: r = ParseArgs(sc, ev); break;
      case EventField::kOther: {
        Value skipped;
        r = sc.ParseValue(&skipped);
        break;
      }
    }
    if (dst != nullptr) r = sc.ParseValue(dst);
    if (r != Result::kOk) return r;
  }
}

// One step of traceEvents: the ',' between two events (with the whitespace around it, committed
// on its own), the ']' that ends the list, or one event.
Result Tokenizer::StepEvents(Scanner& sc, Status* fatal, EventSink& sink) {
  // Whitespace around the ',' between two events is skipped and committed, never buffered
  // (a gigabyte of spaces between events costs no memory); only an event is a unit.
  char c;
  if (sc.Peek(&c) != Result::kOk) {
    Commit(sc);
    return Result::kNeedMore;
  }
  Commit(sc);
  if (!frame_.events_first && !frame_.after_comma) {
    const uint64_t at = OffsetOf(sc.pos());
    if ((c == ',' && at >= stop_boundary_) || (c == ']' && stop_at_events_end_)) {
      pause_ = c == ',' ? Pause::kBoundary : Pause::kEventsEnd;
      pause_offset_ = at;
      return Result::kOk;
    }
    if (c == ',') {
      sc.Advance();
      frame_.after_comma = true;
      Commit(sc);
      return Result::kOk;
    }
    if (c != ']') return sc.Fail(sc.pos(), "expected ',' or ']' after an array element, found " + sc.Describe(sc.pos()));
  }
  if (c == ']' && !frame_.after_comma) {
    sc.Advance();
    frame_.stage = frame_.top_is_array ? Stage::kTrailing : Stage::kTopMember;
    frame_.first_in_container = false;
    Commit(sc);
    return Result::kOk;
  }
  Result r = ParseEvent(sc, &event_);
  if (r != Result::kOk) return r;
  Status st = sink.OnEvent(event_);
  if (!st.ok()) {
    *fatal = st;
    return Result::kError;
  }
  frame_.events_first = false;
  frame_.after_comma = false;
  Commit(sc);
  return Result::kOk;
}

// Parses as many units as the window holds. begin_ moves past each completed unit, so a
// kNeedMore restarts the unit that was cut.
Result Tokenizer::Step(Scanner& sc, Status* fatal, EventSink& sink) {
  auto commit = [&] { begin_ = static_cast<size_t>(sc.pos() - window_.data()); };
  while (true) {
    switch (frame_.stage) {
      case Stage::kStart: {
        // A UTF-8 byte order mark is tolerated (some editors add one); JSON itself has none.
        static constexpr char kBom[] = "\xEF\xBB\xBF";
        const size_t avail = static_cast<size_t>(sc.end() - sc.pos());
        if (avail > 0 && sc.pos()[0] == kBom[0]) {
          if (avail < 3 && !eof_ && std::memcmp(sc.pos(), kBom, avail) == 0) return Result::kNeedMore;
          if (avail >= 3 && std::memcmp(sc.pos(), kBom, 3) == 0) sc.set_pos(sc.pos() + 3);
        }
        char c;
        if (sc.Peek(&c) != Result::kOk) {
          commit();  // whitespace before the top-level value: skipped, not buffered
          return Result::kNeedMore;
        }
        if (c == '{') {
          frame_.stage = Stage::kTopMember;
        } else if (c == '[') {  // Chrome's "JSON Array Format": the array is the event list
          frame_.top_is_array = true;
          frame_.saw_trace_events = true;
          frame_.events_first = true;
          frame_.stage = Stage::kEvents;
        } else {
          std::string found = c == '"'                                     ? "a string"
                              : (c == '-' || (c >= '0' && c <= '9'))        ? "a number"
                              : (c == 't' || c == 'f' || c == 'n')          ? "a JSON literal"
                                                                            : sc.Describe(sc.pos());
          *fatal = Fatal(sc.pos(), "expected a Kineto trace (a JSON object starting with '{'), found " + found);
          return Result::kError;
        }
        sc.Advance();
        frame_.first_in_container = true;
        commit();
        break;
      }
      case Stage::kTopMember: {
        // As between events: whitespace and the ',' between two members are committed alone.
        char c;
        if (sc.Peek(&c) != Result::kOk) {
          commit();
          return Result::kNeedMore;
        }
        commit();
        if (!frame_.first_in_container && !frame_.after_comma && c == ',') {
          sc.Advance();
          frame_.after_comma = true;
          commit();
          break;
        }
        if (frame_.after_comma && c == '}')
          return sc.Fail(sc.pos(), "expected a member name (a string) in an object, found '}'");
        Value key;
        bool done = false;
        Result r = sc.NextMember(frame_.first_in_container || frame_.after_comma, &key, &done);
        if (r != Result::kOk) return r;
        if (done) {
          if (!frame_.saw_trace_events) {
            *fatal = Fatal(sc.pos() - 1, "expected a \"traceEvents\" array in the top-level object; this is not a Kineto trace");
            return Result::kError;
          }
          frame_.stage = Stage::kTrailing;
          commit();
          break;
        }
        if (key.text == "traceEvents") {
          char c;
          if (sc.Peek(&c) != Result::kOk) return Result::kNeedMore;
          if (c != '[') {
            Value v;
            Result vr = sc.ParseValue(&v);
            std::string found = vr == Result::kOk ? json::KindName(v.kind) : sc.Describe(sc.pos());
            *fatal = Fatal(v.where ? v.where : sc.pos(), "expected traceEvents to be an array ('['), found " + found);
            return Result::kError;
          }
          sc.Advance();
          frame_.saw_trace_events = true;
          frame_.first_in_container = false;  // for the enclosing object, once we return to it
          frame_.after_comma = false;
          frame_.stage = Stage::kEvents;
          frame_.events_first = true;
          commit();
          break;
        }
        Value v;
        r = sc.ParseValue(&v);
        if (r != Result::kOk) return r;
        sink.OnTopLevelMember(key.text, v);
        frame_.first_in_container = false;
        frame_.after_comma = false;
        commit();
        break;
      }
      case Stage::kEvents: {
        const Result r = StepEvents(sc, fatal, sink);
        if (r != Result::kOk || pause_ != Pause::kNone) return r;
        break;
      }
      case Stage::kTrailing: {
        if (!sc.SkipWs()) {
          commit();
          if (eof_) {
            frame_.stage = Stage::kDone;
            return Result::kOk;
          }
          return Result::kNeedMore;
        }
        *fatal = Fatal(sc.pos(), "expected the end of the input after the top-level JSON value, found " +
                                     sc.Describe(sc.pos()));
        return Result::kError;
      }
      case Stage::kDone: return Result::kOk;
    }
  }
}

Status Tokenizer::Run(EventSink& sink) {
  if (window_.empty()) AMPSCOPE_RETURN_IF_ERROR(Fill());
  pause_ = Pause::kNone;
  while (frame_.stage != Stage::kDone) {
    Scanner sc(window_.data() + begin_, window_.data() + end_);
    Status fatal;
    Result r = Step(sc, &fatal, sink);
    if (pause_ != Pause::kNone) return Status::Ok();
    if (r == Result::kError) {
      if (!fatal.ok()) return fatal;
      return Fatal(sc.error_at(), sc.error());
    }
    if (r == Result::kNeedMore) {
      if (eof_) return Truncated();
      const uint64_t committed = window_offset_ + begin_;
      if (begin_ == end_ && drained_pause_bytes_ > 0 && committed - last_drained_pause_ >= drained_pause_bytes_) {
        last_drained_pause_ = committed;
        pause_ = Pause::kDrained;
        pause_offset_ = committed;
        return Status::Ok();
      }
      if (window_offset_ + end_ >= give_up_at_) {
        window_cap_hit_ = true;
        return FatalAt(committed, "a speculative piece ran past its limit");
      }
      AMPSCOPE_RETURN_IF_ERROR(Fill());
    }
  }
  // Drain the source so a damaged gzip tail (CRC, truncation) is still reported.
  while (!eof_) {
    AMPSCOPE_RETURN_IF_ERROR(Fill());
    Scanner sc(window_.data() + begin_, window_.data() + end_);
    if (sc.SkipWs()) return Fatal(sc.pos(), "expected the end of the input after the top-level JSON value, found " +
                                                sc.Describe(sc.pos()));
    begin_ = end_;
  }
  return Status::Ok();
}


}  // namespace ampscope::kineto
