// Several threads on one Kineto trace: see kineto_parallel.h for the method and why the result
// is the sequential reader's.
#include "trace/formats/kineto/kineto_parallel.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "trace/formats/kineto/kineto_event_parser.h"
#include "trace/formats/kineto/kineto_tokenizer.h"
#include "trace/io/shared_input.h"

namespace ampscope::kineto {

namespace {

// How far before a piece's nominal start its boundary search begins: the '}' of the pattern
// may lie before it. (Longer whitespace only costs a missed guess.)
constexpr uint64_t kLookBehindBytes = 256;
// A speculative piece gives up on a unit larger than this (the calling thread, which has no
// limit, then parses that stretch).
constexpr size_t kPieceMaxWindowBytes = size_t{64} << 20;
// A piece's first window: 1 MiB, or twice the piece when pieces are small (tests cut pieces
// of a few bytes; the window still grows for a larger unit).
constexpr size_t kPieceWindowBytes = size_t{1} << 20;
constexpr size_t kMinPieceWindowBytes = size_t{4} << 10;
constexpr uint64_t kProgressEveryBytes = uint64_t{4} << 20;
// The calling thread lets go of the input behind it after this much whitespace between units.
constexpr uint64_t kDrainedPauseBytes = uint64_t{16} << 20;

const std::function<void(uint64_t, uint64_t)>& NoProgress() {
  static const std::function<void(uint64_t, uint64_t)> none;
  return none;
}

// One piece of traceEvents, parsed ahead by a helper thread.
struct Piece {
  enum class State : uint8_t { kUnclaimed, kRunning, kDone, kTakenByMain };
  State state = State::kUnclaimed;
  bool has_candidate = false;
  uint64_t candidate = 0;    // offset of the ',' where the piece started
  Status status;
  bool gave_up = false;      // a unit larger than kPieceMaxWindowBytes
  Tokenizer::Pause pause = Tokenizer::Pause::kNone;
  uint64_t pause_offset = 0;
  std::unique_ptr<TraceBuilder> builder;
};

// The first ',' at offset >= `from_offset` with '}' before and '{' after it (whitespace
// aside), searched up to `limit`. Reads from `reader`, positioned at `reader_offset`.
bool FindBoundaryCandidate(ByteSource& reader, uint64_t reader_offset, uint64_t from_offset, uint64_t limit,
                           uint64_t* comma) {
  enum class After : uint8_t { kOther, kBrace, kComma } after = After::kOther;
  uint64_t comma_at = 0;
  char buf[4096];  // a boundary is near: most searches end in the first few hundred bytes
  uint64_t offset = reader_offset;
  while (offset < limit) {
    StatusOr<size_t> n = reader.Read(buf, sizeof(buf));
    if (!n.ok() || *n == 0) return false;
    for (size_t i = 0; i < *n; ++i, ++offset) {
      const char c = buf[i];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (c == '{' && after == After::kComma && comma_at >= from_offset) {
        *comma = comma_at;
        return true;
      }
      if (c == ',' && after == After::kBrace) {
        after = After::kComma;
        comma_at = offset;
      } else {
        after = c == '}' ? After::kBrace : After::kOther;
      }
      if (offset >= limit) return false;
    }
  }
  return false;
}

class ParallelRead {
 public:
  ParallelRead(ByteSource& source, const std::string& name, const KinetoReadOptions& options, const ParallelPlan& plan,
               uint64_t budget)
      : name_(name),
        options_(options),
        plan_(plan),
        budget_(budget),
        max_ahead_(static_cast<int64_t>(std::max(1, plan.parse_threads - 1)) + 1),
        input_(MakeSharedInput(source, SharedInputOptions{plan.block_bytes,
                                                          static_cast<size_t>(max_ahead_ + 2) * plan.chunk_bytes})) {}

  ~ParallelRead() { Stop(); }

  StatusOr<Trace> Run() {
    for (int i = 1; i < plan_.parse_threads; ++i) {
      try {
        helpers_.emplace_back([this] { HelperLoop(); });
        ++helpers_started_;
      } catch (const std::system_error&) {
        break;  // fewer helpers: the calling thread parses what they would have
      }
    }
    Status st = Main();
    Stop();
    if (options_.stats != nullptr) {
      *options_.stats = stats_;
      options_.stats->parse_threads = 1 + static_cast<int>(helpers_started_);
      options_.stats->direct_reads = input_->direct();
      options_.stats->peak_buffered_bytes = input_->peak_buffered_bytes();
    }
    if (!st.ok()) return st;
    AMPSCOPE_RETURN_IF_ERROR(caller_.builder->CheckTimes());
    Trace trace = caller_.builder->Finish(caller_.tokenizer->bytes_read(), plan_.parse_threads);
    caller_.tokenizer->ReportDone();
    return trace;
  }

 private:
  uint64_t PieceStart(int64_t k) const { return static_cast<uint64_t>(k) * plan_.chunk_bytes; }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(shared_.mu);
      shared_.stopping = true;
    }
    shared_.work_cv.notify_all();
    input_->Cancel();
    for (std::thread& t : helpers_) t.join();
    helpers_.clear();
  }

  // The piece object for k (k >= 1), created on first use. Caller holds shared_.mu.
  std::shared_ptr<Piece> PieceLocked(int64_t k) {
    while (shared_.first_piece + static_cast<int64_t>(shared_.pieces.size()) <= k) shared_.pieces.push_back(std::make_shared<Piece>());
    return shared_.pieces[static_cast<size_t>(k - shared_.first_piece)];
  }

  // The calling thread now needs piece k: everything before it is done with.
  void Focus(int64_t k) {
    {
      std::lock_guard<std::mutex> lock(shared_.mu);
      shared_.focus = k;
      while (shared_.first_piece < k && !shared_.pieces.empty()) {
        shared_.pieces.pop_front();
        ++shared_.first_piece;
      }
      if (shared_.pieces.empty()) shared_.first_piece = std::max(shared_.first_piece, k);
    }
    input_->set_privileged_rank(k);
    shared_.work_cv.notify_all();
  }

  // The first unclaimed piece the helpers may parse (after the focus, at most max_ahead_
  // beyond it), now claimed; nullptr when there is none. Caller holds shared_.mu.
  std::shared_ptr<Piece> ClaimLocked(int64_t* k) {
    for (int64_t i = std::max(shared_.focus + 1, shared_.first_piece); i <= shared_.focus + max_ahead_; ++i) {
      std::shared_ptr<Piece> p = PieceLocked(i);
      if (p->state == Piece::State::kUnclaimed) {
        p->state = Piece::State::kRunning;
        *k = i;
        return p;
      }
    }
    return nullptr;
  }

  // `reader_rank` is the SharedInput rank of the piece's readers (see ParsePiece).
  void ParseClaimed(int64_t k, int64_t reader_rank, Piece& piece) {
    ParsePiece(k, reader_rank, piece);
    {
      std::lock_guard<std::mutex> lock(shared_.mu);
      piece.state = Piece::State::kDone;
    }
    shared_.done_cv.notify_all();
  }

  void HelperLoop() {
    while (true) {
      int64_t k = 0;
      std::shared_ptr<Piece> piece;
      {
        std::unique_lock<std::mutex> lock(shared_.mu);
        while (true) {
          if (shared_.stopping) return;
          piece = ClaimLocked(&k);
          if (piece != nullptr) break;
          shared_.work_cv.wait(lock);
        }
      }
      ParseClaimed(k, k, *piece);
    }
  }

  // A helper reads piece k with rank k: it waits for the stream's allowance, which moves as the
  // calling thread goes on. The calling thread reads a piece it parses ahead with its own
  // (privileged) rank instead: nothing else would move the allowance while it waits.
  void ParsePiece(int64_t k, int64_t reader_rank, Piece& piece) {
    const uint64_t start = PieceStart(k), end = PieceStart(k + 1);
    const uint64_t from = start >= kLookBehindBytes ? start - kLookBehindBytes : 0;
    std::unique_ptr<ByteSource> scan = input_->Reader(from, reader_rank);
    if (!FindBoundaryCandidate(*scan, from, start, end, &piece.candidate)) return;
    scan.reset();
    piece.has_candidate = true;
    std::unique_ptr<ByteSource> reader = input_->Reader(piece.candidate, reader_rank);
    Tokenizer::Framing framing;  // between two events of traceEvents, as the guess says
    framing.stage = Tokenizer::Stage::kEvents;
    framing.saw_trace_events = true;
    framing.first_in_container = false;
    framing.events_first = false;
    Tokenizer tokenizer(*reader, name_, NoProgress(), piece.candidate, framing);
    tokenizer.set_stop_at_boundary(end);
    tokenizer.set_stop_at_events_end(true);
    tokenizer.set_window_bytes(std::clamp(2 * plan_.chunk_bytes, kMinPieceWindowBytes, kPieceWindowBytes));
    tokenizer.set_max_window_bytes(kPieceMaxWindowBytes);
    tokenizer.set_give_up_at(end + kPieceMaxWindowBytes);  // far past its piece: whitespace, the caller's to read
    piece.builder = std::make_unique<TraceBuilder>(name_, options_, tokenizer, /*chunk=*/true);
    piece.status = tokenizer.Run(*piece.builder);
    piece.gave_up = tokenizer.window_cap_hit();
    piece.pause = tokenizer.paused();
    piece.pause_offset = tokenizer.pause_offset();
  }

  // Piece k for the calling thread: nullptr when no helper has started it (the calling thread
  // then parses that stretch itself), else the piece once done.
  // While a helper is still parsing piece k, the calling thread parses a later piece itself
  // (as a helper would) instead of waiting idle: with one helper, the two threads then take
  // turns on the pieces rather than the helper parsing all of them.
  std::shared_ptr<Piece> TakeOrWait(int64_t k) {
    std::unique_lock<std::mutex> lock(shared_.mu);
    std::shared_ptr<Piece> p = PieceLocked(k);
    if (p->state == Piece::State::kUnclaimed) {
      p->state = Piece::State::kTakenByMain;
      return nullptr;
    }
    while (p->state != Piece::State::kDone) {
      int64_t ahead = 0;
      std::shared_ptr<Piece> other = ClaimLocked(&ahead);
      if (other == nullptr) {
        shared_.done_cv.wait(lock, [&] { return p->state == Piece::State::kDone; });
        break;
      }
      lock.unlock();
      ++stats_.pieces_ahead_by_caller;
      ParseClaimed(ahead, k, *other);
      lock.lock();
    }
    return p;
  }

  // A tokenizer of the calling thread from `offset`, between two events.
  void ResumeAt(uint64_t offset, int64_t rank) {
    caller_.reader = input_->Reader(offset, rank);
    caller_.tokenizer = std::make_unique<Tokenizer>(*caller_.reader, name_, options_.progress, offset, caller_.events_framing);
    caller_.tokenizer->set_drained_pause_bytes(kDrainedPauseBytes);
    caller_.builder->set_input(*caller_.tokenizer);
  }

  void ReportProgress() {
    if (!options_.progress) return;
    const uint64_t done = input_->raw_bytes_done();
    if (done - caller_.last_progress < kProgressEveryBytes) return;
    caller_.last_progress = done;
    options_.progress(done, input_->raw_bytes_total());
  }

  Status Main() {
    caller_.reader = input_->Reader(0, 0);
    caller_.tokenizer = std::make_unique<Tokenizer>(*caller_.reader, name_, options_.progress);
    caller_.builder = std::make_unique<TraceBuilder>(name_, options_, *caller_.tokenizer);
    caller_.builder->SetNameTextBudget(budget_);
    Focus(0);
    caller_.tokenizer->set_stop_at_boundary(PieceStart(1));
    caller_.tokenizer->set_drained_pause_bytes(kDrainedPauseBytes);
    Status st = caller_.tokenizer->Run(*caller_.builder);
    bool have_framing = false;
    while (true) {
      AMPSCOPE_RETURN_IF_ERROR(st);
      if (caller_.tokenizer->paused() == Tokenizer::Pause::kNone) return Status::Ok();  // the end
      if (caller_.tokenizer->paused() == Tokenizer::Pause::kDrained) {
        // Far into whitespace between two units: what lies behind is done with. The same stop
        // rule holds (the next event boundary still pauses and merges as usual).
        const int64_t at = static_cast<int64_t>(caller_.tokenizer->pause_offset() / plan_.chunk_bytes);
        if (at > shared_.focus) Focus(at);
        const uint64_t keep = PieceStart(at) >= kLookBehindBytes ? PieceStart(at) - kLookBehindBytes : 0;
        input_->Release(std::min(caller_.tokenizer->pause_offset(), keep));
        st = caller_.tokenizer->Run(*caller_.builder);
        continue;
      }
      // Paused at the first event boundary at or after the start of the next piece.
      uint64_t boundary = caller_.tokenizer->pause_offset();
      uint64_t tokenizer_at = boundary;
      if (!have_framing) {
        caller_.events_framing = caller_.tokenizer->framing();
        have_framing = true;
      }
      bool merged_to_end = false;
      int64_t k = 0;
      while (true) {
        k = static_cast<int64_t>(boundary / plan_.chunk_bytes);
        Focus(k);
        const uint64_t keep = PieceStart(k) >= kLookBehindBytes ? PieceStart(k) - kLookBehindBytes : 0;
        input_->Release(std::min(boundary, keep));
        std::shared_ptr<Piece> piece = TakeOrWait(k);
        if (piece == nullptr) {
          ++stats_.pieces_by_caller;
          break;
        }
        if (!piece->has_candidate || piece->candidate != boundary || piece->gave_up) {
          ++stats_.pieces_reparsed;
          break;
        }
        ++stats_.pieces_merged;
        // The guess was right: the piece is what the sequential parse would have produced.
        AMPSCOPE_RETURN_IF_ERROR(piece->status);
        caller_.builder->MergeChunk(std::move(*piece->builder), piece->pause_offset);
        piece->builder.reset();
        ReportProgress();
        if (piece->pause == Tokenizer::Pause::kBoundary) {
          boundary = piece->pause_offset;
          continue;
        }
        // The piece reached the ']' of traceEvents: the rest is the calling thread's.
        ResumeAt(piece->pause_offset, k);
        st = caller_.tokenizer->Run(*caller_.builder);
        merged_to_end = true;
        break;
      }
      if (merged_to_end) continue;
      if (tokenizer_at != boundary) ResumeAt(boundary, k);
      caller_.tokenizer->set_stop_at_boundary(PieceStart(k + 1));
      st = caller_.tokenizer->Run(*caller_.builder);
    }
  }

  const std::string& name_;
  const KinetoReadOptions& options_;
  const ParallelPlan plan_;
  const uint64_t budget_;
  const int64_t max_ahead_;  // pieces beyond the calling thread's that helpers may parse
  std::unique_ptr<SharedInput> input_;

  // What the calling thread and the helpers share, under `mu`.
  struct Shared {
    std::mutex mu;
    std::condition_variable work_cv;  // pieces became claimable, or stop
    std::condition_variable done_cv;  // a piece is done
    std::deque<std::shared_ptr<Piece>> pieces;  // pieces first_piece ...
    int64_t first_piece = 1;
    int64_t focus = 0;
    bool stopping = false;
  } shared_;
  std::vector<std::thread> helpers_;
  size_t helpers_started_ = 0;

  // The calling thread's parse.
  struct CallerParse {
    std::unique_ptr<ByteSource> reader;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<TraceBuilder> builder;
    Tokenizer::Framing events_framing;
    uint64_t last_progress = 0;
  } caller_;
  KinetoReadStats stats_;
};

}  // namespace

StatusOr<Trace> ReadKinetoParallel(ByteSource& source, const std::string& display_name,
                                   const KinetoReadOptions& options, const ParallelPlan& plan, uint64_t budget) {
  ParallelRead read(source, display_name, options, plan, budget);
  return read.Run();
}

}  // namespace ampscope::kineto
