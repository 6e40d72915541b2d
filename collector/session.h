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
#include <vector>

#include "collector/buffer_pool.h"
#include "collector/config.h"
#include "collector/cupti_api.h"
#include "collector/record_converter.h"
#include "collector/step_gate.h"
#include "collector/wake_pipes.h"
#include "trace/formats/amptrace/amptrace_writer.h"

namespace ampscope::collector {

class PmSampler;

class Session final : private StepGate::Actions {
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
  bool cupti_active() const { return cupti_.ready.load(); }

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
  void WriterLoop();
  void Wake(char reason) { writer_thread_.pipes.Wake(reason); }
  void DrainQueue();
  void FlushCycle(bool forced, bool sync);
  void Finish(bool from_signal);
  bool EnableKinds();
  void DisableKinds();
  void RecordNvtx(AmpNvtxType type, std::string_view name, std::string_view domain, uint64_t range_id,
                  uint32_t tid = 0);
  AmpClockRecord Clock() const;
  void StartPmSampler(CUcontext context);

  // StepGate::Actions: the window opens and closes the CUDA activity kinds.
  bool IsRecording() const override { return recording_.load(); }
  void OpenWindow() override;
  void CloseWindow() override;
  void RecordStepNumber(int64_t number, uint32_t tid) override;

  const SessionConfig config_;
  std::string path_;
  std::unique_ptr<AmptraceWriter> writer_;
  std::unique_ptr<RecordConverter> converter_;

  struct Cupti {
    const CuptiApi* api = nullptr;
    CUpti_SubscriberHandle subscriber = nullptr;
    std::atomic<bool> ready{false};          // subscribed and buffer callbacks registered
    std::atomic<bool> kinds_enabled{false};
    std::mutex mu;                           // serializes enabling/disabling activity kinds
  } cupti_;

  std::atomic<bool> recording_{false};
  std::atomic<bool> finished_{false};

  BufferPool pool_;

  // Running totals for the stats records (the pool counts its own refusals and completions).
  struct Counters {
    std::atomic<uint64_t> cupti_dropped{0};
    std::atomic<uint64_t> nvtx_dropped{0};
    std::atomic<uint64_t> filtered{0};
    std::atomic<uint64_t> unknown{0};
    std::atomic<uint64_t> nvtx_pending{0};  // NVTX events since the last flush
    AmpStatsRecord last_written = {};       // writer thread only (under cycle_mu)
  } counters_;

  StepGate gate_;
  std::atomic<uint64_t> next_range_id_{1};

  struct WriterThread {
    std::thread thread;
    WakePipes pipes;
    // Serializes conversion and writing cycles (writer thread, FlushNow, Finish): the
    // converter's caches are single-threaded.
    std::mutex cycle_mu;
  } writer_thread_;

  struct Lifecycle {
    std::mutex finish_mu;
    bool writer_finished = false;  // guarded by finish_mu
    std::mutex shutdown_mu;
    bool shut_down = false;        // guarded by shutdown_mu
  } lifecycle_;

  struct Warnings {
    mutable std::mutex mu;
    std::vector<std::string> codes;
    bool printed = false;
  } warnings_;

  struct Pm {
    std::unique_ptr<PmSampler> sampler;
    std::atomic<bool> requested{false};
  } pm_;
};

// CUPTI trampolines: CUPTI's buffer callbacks carry no user pointer, so they reach the session
// through this process-wide pointer (set by StartCupti).
void SetCallbackSession(Session* session);

}  // namespace ampscope::collector
