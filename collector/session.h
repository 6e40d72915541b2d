// One recording session: one process, one .amptrace file.
//
// Threads and who does what:
// - CUPTI's threads call OnBufferRequested/OnBufferCompleted. They only hand out buffers from
//   a bounded pool and queue completed ones (plus the dropped-record count CUPTI reports).
// - Application threads call the NVTX entry points: a timestamp, an interned name and a
//   32-byte append to the writer's pending chunk.
// - The writer thread converts queued buffers, asks CUPTI to flush about once a second, and
//   writes chunks. It sleeps in poll() on a self-pipe, which is also how signal handlers and
//   other threads wake it (writing one byte is async-signal-safe).
// - Shutdown (atexit, a terminating signal, or an explicit call) flushes CUPTI with FORCED,
//   drains, writes the footer and fsyncs.
//
// Safety rule: nothing here may change the program's behaviour. Every failure becomes a
// warning in the file (and at most one "ampscope: ..." line on stderr) and disables the part
// that failed; NVTX recording survives a CUPTI failure.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "collector/config.h"
#include "collector/cupti_api.h"
#include "collector/record_converter.h"
#include "trace/formats/amptrace/amptrace_writer.h"

namespace ampscope::collector {

class PmSampler;

class Session {
 public:
  explicit Session(SessionConfig config);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Creates the file, writes the header and starts the writer thread.
  Status Open();
  bool is_open() const { return writer_ != nullptr; }

  // Binds CUPTI through `api` (the real table or a fake), subscribes, registers the buffer
  // callbacks and enables the activity kinds. Returns false, with a warning, when CUDA
  // activity cannot be recorded; the session then records NVTX only.
  bool StartCupti(const CuptiApi* api);
  bool cupti_active() const { return cupti_ready_.load(); }

  // NVTX (any thread). Domain "" is NVTX's default domain.
  void NvtxPush(std::string_view name, std::string_view domain);
  void NvtxPop(std::string_view domain);
  uint64_t NvtxStart(std::string_view name, std::string_view domain);
  void NvtxEnd(uint64_t id);
  void NvtxMark(std::string_view name, std::string_view domain);
  void NameThread(uint32_t tid, std::string_view name);
  bool recording() const { return recording_.load(std::memory_order_relaxed); }

  // Appends a sampled counter (PM sampling) while recording.
  void AddCounter(std::string_view name, int32_t device, int64_t time_ns, double value);

  // Wakes the writer thread for a flush; returns at once.
  void RequestFlush();
  // Flushes CUPTI (forced), drains and writes everything now; returns when done (tests, and
  // context destruction).
  void FlushNow();
  // Idempotent: final flush, footer, fsync, close. Safe to call from atexit.
  void Shutdown();
  // Async-signal-safe: asks the writer thread to flush (and to close the file when the
  // process is about to die) and waits at most timeout_ms for it.
  void FlushFromSignalHandler(bool terminating, int timeout_ms);

  // Records a warning in the file; the first one with print=true also goes to stderr as one
  // line starting with "ampscope:".
  // `severity`: kInfo for facts about the run that lose no data (e.g. a CPU-only program).
  void Warn(const std::string& code, const std::string& message, bool print,
            AmpSeverity severity = AmpSeverity::kWarning);

  // CUPTI callbacks, reached through static trampolines.
  void OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size, size_t valid_size);
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

  const SessionConfig& config() const { return config_; }
  uint32_t pid() const { return config_.pid; }
  const std::string& path() const { return path_; }
  bool finished() const { return finished_.load(); }
  std::vector<std::string> warning_codes() const;
  AmpStatsRecord Stats() const;

 private:
  struct Completed {
    uint8_t* buffer;
    size_t valid_size;
  };

  void WriterLoop();
  void Wake(char reason);
  void DrainQueue();
  void FlushCycle(bool forced, bool sync);
  void Finish(bool from_signal);
  void ReleaseBuffer(uint8_t* buffer);
  bool EnableKinds();
  void DisableKinds();
  void OpenGate();
  void CloseGate();
  void RecordNvtx(AmpNvtxType type, std::string_view name, std::string_view domain, uint64_t range_id,
                  uint32_t tid = 0);
  // The --steps / --capture-range window. A range of the window's name gets a step number (the
  // one in its name with --steps, e.g. "step 7", else its occurrence index); the window opens
  // at the first step number in [gate_first, gate_last] and closes after gate_last.
  int64_t GateStepNumber(std::string_view name);  // -1: not the window's range
  void GateRangeBegins(int64_t number, uint32_t tid);
  void GateRangeEnds(int64_t number);
  void WarnAboutTheWindow();
  AmpClockRecord Clock() const;
  void StartPmSampler(CUcontext context);

  const SessionConfig config_;
  std::string path_;
  std::unique_ptr<AmptraceWriter> writer_;
  std::unique_ptr<RecordConverter> converter_;
  const CuptiApi* api_ = nullptr;
  CUpti_SubscriberHandle subscriber_ = nullptr;

  std::atomic<bool> cupti_ready_{false};    // subscribed and buffer callbacks registered
  std::atomic<bool> kinds_enabled_{false};
  std::atomic<bool> recording_{false};
  std::atomic<bool> finished_{false};
  std::atomic<bool> gate_done_{false};
  std::mutex cupti_mu_;  // serializes enabling/disabling activity kinds

  // Buffer pool and completed-buffer queue.
  std::mutex buffer_mu_;
  std::vector<uint8_t*> free_buffers_;
  std::vector<uint8_t*> all_buffers_;
  std::vector<Completed> completed_;

  // Stats (running totals).
  std::atomic<uint64_t> cupti_dropped_{0};
  std::atomic<uint64_t> buffers_refused_{0};
  std::atomic<uint64_t> nvtx_dropped_{0};
  std::atomic<uint64_t> filtered_{0};
  std::atomic<uint64_t> unknown_{0};
  std::atomic<uint64_t> buffers_completed_{0};
  std::atomic<uint64_t> nvtx_pending_{0};
  AmpStatsRecord last_stats_written_ = {};

  // NVTX gate (the --steps / --capture-range window).
  std::atomic<int64_t> gate_count_{0};
  std::atomic<uint64_t> next_range_id_{1};
  std::mutex gate_mu_;
  std::unordered_map<uint64_t, int64_t> gate_ranges_;  // start/end id -> step number
  std::mutex gate_state_mu_;                            // guards the five fields below
  bool gate_opened_ = false;
  int64_t last_step_seen_ = -1;
  int64_t first_step_recorded_ = -1;
  int64_t last_step_recorded_ = -1;
  int64_t steps_recorded_ = 0;

  // Writer thread and its wake-up pipes.
  std::thread writer_thread_;
  int wake_pipe_[2] = {-1, -1};
  int done_pipe_[2] = {-1, -1};
  // Serializes conversion and writing cycles (writer thread, FlushNow, Finish): the
  // converter's caches are single-threaded.
  std::mutex cycle_mu_;
  std::mutex finish_mu_;
  bool writer_finished_ = false;  // guarded by finish_mu_
  std::mutex shutdown_mu_;
  bool shut_down_ = false;

  mutable std::mutex warn_mu_;
  std::vector<std::string> warning_codes_;
  bool printed_ = false;

  std::unique_ptr<PmSampler> pm_sampler_;
  std::atomic<bool> pm_requested_{false};
};

// CUPTI trampolines: CUPTI's buffer callbacks carry no user pointer, so they reach the session
// through this process-wide pointer (set by StartCupti).
void SetCallbackSession(Session* session);

}  // namespace ampscope::collector
