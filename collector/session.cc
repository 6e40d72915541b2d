#include "collector/session.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "collector/cupti_advice.h"
#include "collector/pm_sampler.h"

namespace ampscope::collector {

namespace {

std::atomic<Session*> g_callback_session{nullptr};

void CUPTIAPI BufferRequestedTrampoline(uint8_t** buffer, size_t* size, size_t* max_records) {
  Session* s = g_callback_session.load();
  if (s == nullptr) {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  s->OnBufferRequested(buffer, size, max_records);
}

void CUPTIAPI BufferCompletedTrampoline(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size,
                                        size_t valid_size) {
  Session* s = g_callback_session.load();
  if (s != nullptr) s->OnBufferCompleted(context, stream_id, buffer, size, valid_size);
  // With no session (a forked child) the buffer belongs to a pool that no longer exists here:
  // leaking it is the only safe choice.
}

void CUPTIAPI CallbackTrampoline(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* data) {
  auto* s = static_cast<Session*>(userdata);
  if (s != nullptr && g_callback_session.load() == s) s->OnCallback(domain, cbid, data);
}

int64_t ClockNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

uint32_t ThreadId() {
  static thread_local uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return tid;
}

// Per thread: for each open default-domain push, the gate occurrence it opened (-1 if none).
std::vector<int64_t>& GateStack() {
  static thread_local std::vector<int64_t> stack;
  return stack;
}

struct KindInfo {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;  // without it the recording is not worth having
};
// DESIGN.md's list. CONCURRENT_KERNEL, never KERNEL: KERNEL serializes kernel execution.
constexpr KindInfo kKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", false},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", false},
    {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", false},
    {CUPTI_ACTIVITY_KIND_NAME, "NAME", false},
    {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false},
};

}  // namespace

void SetCallbackSession(Session* session) { g_callback_session.store(session); }

Session::Session(SessionConfig config)
    : config_(std::move(config)), pool_(config_.buffer_bytes, config_.max_buffers), gate_(config_) {
  recording_.store(!gate_.enabled());
}

Session::~Session() {
  Shutdown();
  if (g_callback_session.load() == this) g_callback_session.store(nullptr);
}

AmpClockRecord Session::Clock() const {
  AmpClockRecord c = {0, 0, 0};
  uint64_t cupti_ns = 0;
  const CuptiApi* api = cupti_.api;
  if (api != nullptr && api->GetTimestamp != nullptr && api->GetTimestamp(&cupti_ns) == CUPTI_SUCCESS)
    c.cupti_ns = static_cast<int64_t>(cupti_ns);
  c.monotonic_ns = ClockNs(CLOCK_MONOTONIC);
  c.realtime_ns = ClockNs(CLOCK_REALTIME);
  return c;
}

Status Session::Open() {
  path_ = config_.FilePath();
  AmptraceHeaderInfo info;
  info.pid = config_.pid;
  info.rank = config_.rank;
  info.local_rank = config_.local_rank;
  info.world_size = config_.world_size;
  info.host = config_.host;
  info.command_line = config_.command_line;
  info.start_clock = Clock();
  auto writer = AmptraceWriter::Create(path_, info);
  if (!writer.ok()) return writer.status();
  writer_ = std::move(writer.value());

  if (!writer_thread_.pipes.Open())
    return Status::Error(std::string("cannot create the writer's pipes: ") + std::strerror(errno));

  // The writer thread must never take SIGINT/SIGTERM: the handler waits for this thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    writer_thread_.thread = std::thread([this] { WriterLoop(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return Status::Error("cannot start the writer thread");
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return Status::Ok();
}

void Session::Warn(const std::string& code, const std::string& message, bool print, AmpSeverity severity) {
  std::lock_guard<std::mutex> lock(warnings_.mu);
  for (const std::string& c : warnings_.codes)
    if (c == code) return;  // once per code
  warnings_.codes.push_back(code);
  if (writer_) writer_->AddWarning(severity, code, message);
  if (print && config_.print_warnings && !warnings_.printed) {
    warnings_.printed = true;
    // One write() to fd 2: never touches the program's stdio buffers or their locks.
    std::string line = "ampscope: " + message + "\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  }
}

std::vector<std::string> Session::warning_codes() const {
  std::lock_guard<std::mutex> lock(warnings_.mu);
  return warnings_.codes;
}

// ---------------------------------------------------------------------------------------
// CUPTI

bool Session::StartCupti(const CuptiApi* api) {
  if (!writer_ || finished_.load()) return false;
  std::lock_guard<std::mutex> lock(cupti_.mu);
  if (cupti_.ready.load()) return true;
  cupti_.api = api;
  const char* kNvtxStill = "; NVTX ranges are still recorded";
  uint32_t version = 0;
  if (api->GetVersion(&version) != CUPTI_SUCCESS || version / 10000 != CUPTI_API_VERSION / 10000) {
    Warn("cupti_version_mismatch",
         "CUDA activity is not recorded: libcupti reports API version " + std::to_string(version) +
             ", this collector was built for " + std::to_string(CUPTI_API_VERSION / 10000) + ".x" + kNvtxStill,
         true);
    return false;
  }
  writer_->Append(Clock());

  CUptiResult r = api->Subscribe(&cupti_.subscriber, &CallbackTrampoline, this);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    cupti_.subscriber = nullptr;
    Warn("another_cupti_subscriber",
         "CUDA activity is not recorded: cuptiSubscribe failed with " + CuptiErrorWithFix(r, api->ResultName(r)) +
             kNvtxStill,
         true);
    return false;
  }
  if (r != CUPTI_SUCCESS) {
    cupti_.subscriber = nullptr;
    Warn("cupti_unavailable",
         "CUDA activity is not recorded: cuptiSubscribe failed with " + CuptiErrorWithFix(r, api->ResultName(r)) +
             kNvtxStill,
         true);
    return false;
  }
  // Flush at context destruction (the last chance for its records), and start PM sampling
  // when the first context exists.
  api->EnableCallback(1, cupti_.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  api->EnableCallback(1, cupti_.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);

  converter_ = std::make_unique<RecordConverter>(*api, *writer_);
  SetCallbackSession(this);
  r = api->ActivityRegisterCallbacks(&BufferRequestedTrampoline, &BufferCompletedTrampoline);
  if (r != CUPTI_SUCCESS) {
    Warn("cupti_unavailable",
         "CUDA activity is not recorded: cuptiActivityRegisterCallbacks failed with " +
             CuptiErrorWithFix(r, api->ResultName(r)) + kNvtxStill,
         true);
    api->Unsubscribe(cupti_.subscriber);
    cupti_.subscriber = nullptr;
    SetCallbackSession(nullptr);
    return false;
  }
  // High-rate trivial APIs are switched off at the source where CUPTI allows it; the
  // converter filters them too.
  if (api->ActivityEnableRuntimeApi != nullptr) {
    size_t n;
    const uint32_t* cbids = RecordConverter::NoisyRuntimeCbids(&n);
    for (size_t i = 0; i < n; ++i) api->ActivityEnableRuntimeApi(cbids[i], 0);
  }
  if (config_.record_driver_api && api->ActivityEnableDriverApi != nullptr) {
    size_t n;
    const uint32_t* cbids = RecordConverter::NoisyDriverCbids(&n);
    for (size_t i = 0; i < n; ++i) api->ActivityEnableDriverApi(cbids[i], 0);
  }
  if (recording_.load() && !EnableKinds()) {
    api->Unsubscribe(cupti_.subscriber);
    cupti_.subscriber = nullptr;
    return false;
  }
  cupti_.ready.store(true);
  if (config_.tensor_metrics && !api->HasPmSampling())
    Warn("tensor_metrics_unavailable",
         "--tensor-metrics: this libcupti has no PM sampling API; Tensor Core activity is estimated from kernel names",
         true);
  return true;
}

bool Session::EnableKinds() {
  if (cupti_.kinds_enabled.load()) return true;
  for (const KindInfo& k : kKinds) {
    CUptiResult r = cupti_.api->ActivityEnable(k.kind);
    if (r == CUPTI_SUCCESS) continue;
    if (k.required) {
      for (const KindInfo& undo : kKinds) {
        if (&undo == &k) break;
        cupti_.api->ActivityDisable(undo.kind);
      }
      Warn("cupti_unavailable",
           std::string("CUDA activity is not recorded: cuptiActivityEnable(") + k.name + ") failed with " +
               CuptiErrorWithFix(r, cupti_.api->ResultName(r)) + "; NVTX ranges are still recorded",
           true);
      return false;
    }
    Warn(std::string("activity_kind_unavailable_") + k.name,
         std::string("CUPTI activity kind ") + k.name + " could not be enabled: cuptiActivityEnable failed with " +
             CuptiErrorWithFix(r, cupti_.api->ResultName(r)) + "; those records are missing",
         false);
  }
  if (config_.record_driver_api) {
    CUptiResult r = cupti_.api->ActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (r != CUPTI_SUCCESS)
      Warn("activity_kind_unavailable_DRIVER",
           "CUPTI activity kind DRIVER could not be enabled: cuptiActivityEnable failed with " +
               CuptiErrorWithFix(r, cupti_.api->ResultName(r)) + "; those records are missing",
           false);
  }
  cupti_.kinds_enabled.store(true);
  return true;
}

void Session::DisableKinds() {
  if (!cupti_.kinds_enabled.exchange(false)) return;
  for (const KindInfo& k : kKinds) cupti_.api->ActivityDisable(k.kind);
  if (config_.record_driver_api) cupti_.api->ActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
}

void Session::OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = nullptr;
  *size = 0;
  if (finished_.load()) return;
  // An exhausted pool refuses (and counts it): CUPTI drops records until a buffer comes back.
  uint8_t* b = pool_.Acquire();
  if (b == nullptr) return;
  *buffer = b;
  *size = pool_.buffer_bytes();
}

void Session::OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                                size_t valid_size) {
  size_t dropped = 0;
  if (cupti_.api != nullptr && cupti_.api->ActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
      dropped > 0)
    counters_.cupti_dropped.fetch_add(dropped);
  if (buffer == nullptr) return;
  pool_.Complete(buffer, valid_size);
  Wake('B');
}

void Session::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || finished_.load()) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    if (config_.tensor_metrics && recording_.load() && rd != nullptr && !pm_.requested.exchange(true))
      StartPmSampler(rd->context);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // The context's records must be flushed before it goes away. This runs on the thread that
    // destroys the context; completed buffers are only queued here.
    if (cupti_.kinds_enabled.load()) cupti_.api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Wake('F');
  }
}

void Session::StartPmSampler(CUcontext context) {
  pm_.sampler = std::make_unique<PmSampler>(*cupti_.api, *this, context, config_.pm_sample_interval_ns);
  pm_.sampler->Start();
}

// ---------------------------------------------------------------------------------------
// NVTX

void Session::RecordNvtx(AmpNvtxType type, std::string_view name, std::string_view domain, uint64_t range_id,
                         uint32_t tid) {
  if (!writer_ || finished_.load(std::memory_order_relaxed)) return;
  if (counters_.nvtx_pending.fetch_add(1, std::memory_order_relaxed) >= config_.max_pending_nvtx) {
    counters_.nvtx_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  AmpNvtxEvent e;
  std::memset(&e, 0, sizeof(e));
  e.time_ns = ClockNs(CLOCK_REALTIME);
  e.range_id = range_id;
  e.tid = tid != 0 ? tid : ThreadId();
  e.name = name.empty() ? 0 : writer_->InternString(name);
  e.domain = domain.empty() ? 0 : writer_->InternString(domain);
  e.type = static_cast<uint8_t>(type);
  writer_->Append(e);
}

void Session::RecordStepNumber(int64_t number, uint32_t tid) {
  RecordNvtx(AmpNvtxType::kStepNumber, {}, {}, static_cast<uint64_t>(number), tid);
}

void Session::NvtxPush(std::string_view name, std::string_view domain) {
  int64_t step = -1;
  if (domain.empty()) {
    step = gate_.StepNumber(name);
    gate_.RangeBegins(step, ThreadId(), *this);
    GateStack().push_back(step);
  }
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kPush, name, domain, 0);
}

void Session::NvtxPop(std::string_view domain) {
  int64_t step = -1;
  if (domain.empty() && !GateStack().empty()) {
    step = GateStack().back();
    GateStack().pop_back();
  }
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kPop, {}, domain, 0);
  gate_.RangeEnds(step, *this);
}

uint64_t Session::NvtxStart(std::string_view name, std::string_view domain) {
  const uint64_t id = next_range_id_.fetch_add(1);
  if (domain.empty()) {
    const int64_t step = gate_.StepNumber(name);
    if (step >= 0) {
      gate_.RememberRange(id, step);
      gate_.RangeBegins(step, ThreadId(), *this);
    }
  }
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kStart, name, domain, id);
  return id;
}

void Session::NvtxEnd(uint64_t id) {
  const int64_t step = gate_.ForgetRange(id);
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kEnd, {}, {}, id);
  gate_.RangeEnds(step, *this);
}

void Session::NvtxMark(std::string_view name, std::string_view domain) {
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kMark, name, domain, 0);
}

void Session::NameThread(uint32_t tid, std::string_view name) {
  if (!writer_ || finished_.load()) return;
  AmpNameRecord r;
  std::memset(&r, 0, sizeof(r));
  r.object_id = tid;
  r.object_kind = static_cast<uint8_t>(AmpObjectKind::kThread);
  r.name = writer_->InternString(name);
  writer_->Append(r);
}

void Session::AddCounter(std::string_view name, int32_t device, int64_t time_ns, double value) {
  if (!writer_ || finished_.load() || !recording_.load()) return;
  AmpCounterRecord r;
  r.time_ns = time_ns;
  r.value = value;
  r.name = writer_->InternString(name);
  r.device = device;
  writer_->Append(r);
}

void Session::OpenWindow() {
  if (gate_.done() || recording_.exchange(true)) return;
  std::lock_guard<std::mutex> lock(cupti_.mu);
  if (cupti_.ready.load()) EnableKinds();
}

void Session::CloseWindow() {
  if (!gate_.MarkDone()) return;
  recording_.store(false);
  {
    std::lock_guard<std::mutex> lock(cupti_.mu);
    if (cupti_.ready.load()) DisableKinds();
  }
  Wake('F');
}

// ---------------------------------------------------------------------------------------
// Writer thread

void Session::RequestFlush() { Wake('F'); }

void Session::DrainQueue() {
  for (const BufferPool::Completed& c : pool_.TakeCompleted()) {
    if (converter_ && c.valid_size > 0) {
      RecordConverter::BufferResult r = converter_->ConvertBuffer(c.buffer, c.valid_size);
      counters_.filtered.fetch_add(r.filtered);
      counters_.unknown.fetch_add(r.unknown);
      if (r.walk_error)
        Warn("cupti_buffer_walk_error", "cuptiActivityGetNextRecord failed inside a buffer; its remaining records were lost",
             false);
    }
    pool_.Release(c.buffer);
  }
}

AmpStatsRecord Session::Stats() const {
  AmpStatsRecord s;
  std::memset(&s, 0, sizeof(s));
  s.records_written = writer_ ? writer_->records_written() : 0;
  s.cupti_dropped_records = counters_.cupti_dropped.load();
  s.buffers_refused = pool_.refused();
  s.nvtx_events_dropped = counters_.nvtx_dropped.load();
  s.records_filtered = counters_.filtered.load();
  s.buffers_completed = pool_.completed();
  s.realtime_ns = ClockNs(CLOCK_REALTIME);
  s.unknown_records = counters_.unknown.load();
  return s;
}

void Session::FlushCycle(bool forced, bool sync) {
  std::lock_guard<std::mutex> lock(writer_thread_.cycle_mu);
  if (cupti_.kinds_enabled.load() || (forced && cupti_.ready.load()))
    cupti_.api->ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  DrainQueue();
  AmpStatsRecord s = Stats();
  const bool changed = s.cupti_dropped_records != counters_.last_written.cupti_dropped_records ||
                       s.buffers_refused != counters_.last_written.buffers_refused ||
                       s.nvtx_events_dropped != counters_.last_written.nvtx_events_dropped ||
                       s.records_filtered != counters_.last_written.records_filtered ||
                       s.buffers_completed != counters_.last_written.buffers_completed;
  if (changed) {
    writer_->Append(s);
    counters_.last_written = s;
  }
  counters_.nvtx_pending.store(0, std::memory_order_relaxed);
  Status st = writer_->Flush();
  if (st.ok() && sync) st = writer_->Sync();
  if (!st.ok()) {
    // The disk is full or gone: stop recording rather than retry forever.
    Warn("write_failed", "recording stopped: " + st.message(), true);
    finished_.store(true);
  }
}

void Session::WriterLoop() {
  int64_t next_periodic = ClockNs(CLOCK_MONOTONIC) + int64_t{config_.flush_interval_ms} * 1000000;
  while (true) {
    int64_t now = ClockNs(CLOCK_MONOTONIC);
    int timeout_ms = static_cast<int>(std::max<int64_t>(0, (next_periodic - now) / 1000000));
    const WakePipes& pipes = writer_thread_.pipes;
    bool flush = false, signal_flush = false, signal_finish = false, stop = false, drain = false;
    if (pipes.Poll(timeout_ms)) {
      char buf[256];
      ssize_t got;
      while ((got = pipes.Read(buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < got; ++i) {
          switch (buf[i]) {
            case 'B': drain = true; break;
            case 'F': flush = true; break;
            case 'S': signal_flush = true; break;
            case 'T': signal_finish = true; break;
            case 'X': stop = true; break;
            default: break;
          }
        }
      }
    }
    if (signal_finish) {
      Finish(/*from_signal=*/true);
      pipes.SignalDone();
      return;
    }
    if (stop) return;  // Shutdown() does the final flush on its own thread after joining
    if (finished_.load()) continue;
    if (signal_flush) {
      FlushCycle(/*forced=*/true, /*sync=*/true);
      pipes.SignalDone();
      continue;
    }
    now = ClockNs(CLOCK_MONOTONIC);
    if (flush || now >= next_periodic) {
      FlushCycle(/*forced=*/flush, /*sync=*/false);
      next_periodic = now + int64_t{config_.flush_interval_ms} * 1000000;
    } else if (drain) {
      std::lock_guard<std::mutex> lock(writer_thread_.cycle_mu);
      DrainQueue();
      Status st = writer_->Flush();
      if (!st.ok()) {
        Warn("write_failed", "recording stopped: " + st.message(), true);
        finished_.store(true);
      }
    }
  }
}

void Session::FlushNow() {
  if (!writer_ || finished_.load()) return;
  FlushCycle(/*forced=*/true, /*sync=*/false);
}

void Session::FlushFromSignalHandler(bool terminating, int timeout_ms) {
  const WakePipes& pipes = writer_thread_.pipes;
  if (!writer_thread_.thread.joinable() || !pipes.is_open()) return;
  pipes.DiscardDone();
  Wake(terminating ? 'T' : 'S');
  pipes.WaitDone(timeout_ms);
}

void Session::Finish(bool from_signal) {
  std::lock_guard<std::mutex> lock(lifecycle_.finish_mu);
  if (!writer_ || lifecycle_.writer_finished) return;
  if (pm_.sampler) pm_.sampler->Stop();
  const bool write_ok = !finished_.load();  // false after a write failure
  if (write_ok) FlushCycle(/*forced=*/true, /*sync=*/false);
  finished_.store(true);
  lifecycle_.writer_finished = true;
  if (!write_ok) return;
  std::vector<std::string> codes = warning_codes();
  bool cupti_warned = false;
  for (const std::string& c : codes)
    if (c == "cupti_unavailable" || c == "another_cupti_subscriber" || c == "cupti_version_mismatch" ||
        c == "cupti_load_failed")
      cupti_warned = true;
  if (cupti_.api == nullptr && !cupti_warned)
    Warn("no_cuda_activity",
         "no CUDA activity was recorded: the program never initialized CUDA (or there is no driver); "
         "only NVTX ranges are in this file",
         false, AmpSeverity::kInfo);
  if (std::optional<StepGate::Warning> w = gate_.EndOfRunWarning()) Warn(w->code, w->message, true);
  AmpFooterRecord f;
  std::memset(&f, 0, sizeof(f));
  f.stats = Stats();
  f.end_clock = Clock();
  f.flags = (cupti_.ready.load() ? kAmpFooterFlagCuptiActive : 0u) | (from_signal ? kAmpFooterFlagSignal : 0u);
  Status st = writer_->Finish(f);
  (void)st;  // nowhere left to report it: the file reads as truncated, which is the truth
}

void Session::Shutdown() {
  std::lock_guard<std::mutex> lock(lifecycle_.shutdown_mu);
  if (lifecycle_.shut_down) return;
  lifecycle_.shut_down = true;
  if (writer_thread_.thread.joinable()) {
    Wake('X');
    writer_thread_.thread.join();
  }
  Finish(/*from_signal=*/false);
  std::lock_guard<std::mutex> cupti_lock(cupti_.mu);
  if (cupti_.ready.load()) {
    DisableKinds();
    if (g_callback_session.load() == this) g_callback_session.store(nullptr);
  }
}

}  // namespace ampscope::collector
