#include "collector/session.h"

#include <fcntl.h>
#include <poll.h>
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
#include <limits>

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

Session::Session(SessionConfig config) : config_(std::move(config)) {
  recording_.store(config_.gate_range_name.empty());
}

Session::~Session() {
  Shutdown();
  if (g_callback_session.load() == this) g_callback_session.store(nullptr);
  for (int fd : {wake_pipe_[0], wake_pipe_[1], done_pipe_[0], done_pipe_[1]})
    if (fd >= 0) close(fd);
  std::lock_guard<std::mutex> lock(buffer_mu_);
  // Buffers still lent to CUPTI cannot be freed safely; those are only in all_buffers_ when
  // CUPTI never returned them, which Shutdown's forced flush prevents in practice.
  for (uint8_t* b : free_buffers_) std::free(b);
}

AmpClockRecord Session::Clock() const {
  AmpClockRecord c = {0, 0, 0};
  uint64_t cupti_ns = 0;
  if (api_ != nullptr && api_->GetTimestamp != nullptr && api_->GetTimestamp(&cupti_ns) == CUPTI_SUCCESS)
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

  if (pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(done_pipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    return Status::Error(std::string("cannot create the writer's pipes: ") + std::strerror(errno));

  // The writer thread must never take SIGINT/SIGTERM: the handler waits for this thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    writer_thread_ = std::thread([this] { WriterLoop(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return Status::Error("cannot start the writer thread");
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return Status::Ok();
}

void Session::Warn(const std::string& code, const std::string& message, bool print, AmpSeverity severity) {
  std::lock_guard<std::mutex> lock(warn_mu_);
  for (const std::string& c : warning_codes_)
    if (c == code) return;  // once per code
  warning_codes_.push_back(code);
  if (writer_) writer_->AddWarning(severity, code, message);
  if (print && config_.print_warnings && !printed_) {
    printed_ = true;
    // One write() to fd 2: never touches the program's stdio buffers or their locks.
    std::string line = "ampscope: " + message + "\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  }
}

std::vector<std::string> Session::warning_codes() const {
  std::lock_guard<std::mutex> lock(warn_mu_);
  return warning_codes_;
}

// ---------------------------------------------------------------------------------------
// CUPTI

bool Session::StartCupti(const CuptiApi* api) {
  if (!writer_ || finished_.load()) return false;
  std::lock_guard<std::mutex> lock(cupti_mu_);
  if (cupti_ready_.load()) return true;
  api_ = api;
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

  CUptiResult r = api->Subscribe(&subscriber_, &CallbackTrampoline, this);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    subscriber_ = nullptr;
    Warn("another_cupti_subscriber",
         "CUDA activity is not recorded: cuptiSubscribe failed with " + CuptiErrorWithFix(r, api->ResultName(r)) +
             kNvtxStill,
         true);
    return false;
  }
  if (r != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    Warn("cupti_unavailable",
         "CUDA activity is not recorded: cuptiSubscribe failed with " + CuptiErrorWithFix(r, api->ResultName(r)) +
             kNvtxStill,
         true);
    return false;
  }
  // Flush at context destruction (the last chance for its records), and start PM sampling
  // when the first context exists.
  api->EnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  api->EnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);

  converter_ = std::make_unique<RecordConverter>(*api, *writer_);
  SetCallbackSession(this);
  r = api->ActivityRegisterCallbacks(&BufferRequestedTrampoline, &BufferCompletedTrampoline);
  if (r != CUPTI_SUCCESS) {
    Warn("cupti_unavailable",
         "CUDA activity is not recorded: cuptiActivityRegisterCallbacks failed with " +
             CuptiErrorWithFix(r, api->ResultName(r)) + kNvtxStill,
         true);
    api->Unsubscribe(subscriber_);
    subscriber_ = nullptr;
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
    api->Unsubscribe(subscriber_);
    subscriber_ = nullptr;
    return false;
  }
  cupti_ready_.store(true);
  if (config_.tensor_metrics && !api->HasPmSampling())
    Warn("tensor_metrics_unavailable",
         "--tensor-metrics: this libcupti has no PM sampling API; Tensor Core activity is estimated from kernel names",
         true);
  return true;
}

bool Session::EnableKinds() {
  if (kinds_enabled_.load()) return true;
  for (const KindInfo& k : kKinds) {
    CUptiResult r = api_->ActivityEnable(k.kind);
    if (r == CUPTI_SUCCESS) continue;
    if (k.required) {
      for (const KindInfo& undo : kKinds) {
        if (&undo == &k) break;
        api_->ActivityDisable(undo.kind);
      }
      Warn("cupti_unavailable",
           std::string("CUDA activity is not recorded: cuptiActivityEnable(") + k.name + ") failed with " +
               CuptiErrorWithFix(r, api_->ResultName(r)) + "; NVTX ranges are still recorded",
           true);
      return false;
    }
    Warn(std::string("activity_kind_unavailable_") + k.name,
         std::string("CUPTI activity kind ") + k.name + " could not be enabled: cuptiActivityEnable failed with " +
             CuptiErrorWithFix(r, api_->ResultName(r)) + "; those records are missing",
         false);
  }
  if (config_.record_driver_api) {
    CUptiResult r = api_->ActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (r != CUPTI_SUCCESS)
      Warn("activity_kind_unavailable_DRIVER",
           "CUPTI activity kind DRIVER could not be enabled: cuptiActivityEnable failed with " +
               CuptiErrorWithFix(r, api_->ResultName(r)) + "; those records are missing",
           false);
  }
  kinds_enabled_.store(true);
  return true;
}

void Session::DisableKinds() {
  if (!kinds_enabled_.exchange(false)) return;
  for (const KindInfo& k : kKinds) api_->ActivityDisable(k.kind);
  if (config_.record_driver_api) api_->ActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
}

void Session::OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = nullptr;
  *size = 0;
  if (finished_.load()) return;
  std::lock_guard<std::mutex> lock(buffer_mu_);
  uint8_t* b = nullptr;
  if (!free_buffers_.empty()) {
    b = free_buffers_.back();
    free_buffers_.pop_back();
  } else if (all_buffers_.size() < config_.max_buffers) {
    void* p = nullptr;
    if (posix_memalign(&p, 8, config_.buffer_bytes) == 0) {  // CUPTI needs 8-byte alignment
      b = static_cast<uint8_t*>(p);
      all_buffers_.push_back(b);
    }
  }
  if (b == nullptr) {
    // The pool is empty: CUPTI drops records until a buffer comes back. Counted, never
    // blocking (this runs on CUPTI's thread, possibly inside a CUDA call).
    buffers_refused_.fetch_add(1);
    return;
  }
  *buffer = b;
  *size = config_.buffer_bytes;
}

void Session::OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                                size_t valid_size) {
  size_t dropped = 0;
  if (api_ != nullptr && api_->ActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
      dropped > 0)
    cupti_dropped_.fetch_add(dropped);
  if (buffer == nullptr) return;
  buffers_completed_.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(buffer_mu_);
    completed_.push_back(Completed{buffer, valid_size});
  }
  Wake('B');
}

void Session::ReleaseBuffer(uint8_t* buffer) {
  std::lock_guard<std::mutex> lock(buffer_mu_);
  free_buffers_.push_back(buffer);
}

void Session::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || finished_.load()) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    if (config_.tensor_metrics && recording_.load() && rd != nullptr && !pm_requested_.exchange(true))
      StartPmSampler(rd->context);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // The context's records must be flushed before it goes away. This runs on the thread that
    // destroys the context; completed buffers are only queued here.
    if (kinds_enabled_.load()) api_->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Wake('F');
  }
}

void Session::StartPmSampler(CUcontext context) {
  pm_sampler_ = std::make_unique<PmSampler>(*api_, *this, context, config_.pm_sample_interval_ns);
  pm_sampler_->Start();
}

// ---------------------------------------------------------------------------------------
// NVTX

void Session::RecordNvtx(AmpNvtxType type, std::string_view name, std::string_view domain, uint64_t range_id,
                         uint32_t tid) {
  if (!writer_ || finished_.load(std::memory_order_relaxed)) return;
  if (nvtx_pending_.fetch_add(1, std::memory_order_relaxed) >= config_.max_pending_nvtx) {
    nvtx_dropped_.fetch_add(1, std::memory_order_relaxed);
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

int64_t Session::GateStepNumber(std::string_view name) {
  if (config_.gate_range_name.empty()) return -1;
  int64_t number = -1;
  if (!GateRangeMatches(config_, name, &number)) return -1;
  const int64_t index = gate_count_.fetch_add(1);
  return number >= 0 ? number : index;
}

void Session::GateRangeBegins(int64_t number, uint32_t tid) {
  if (number < 0) return;
  std::lock_guard<std::mutex> lock(gate_state_mu_);
  if (!recording_.load() && !gate_done_.load() && number >= config_.gate_first && number <= config_.gate_last) {
    gate_opened_ = true;
    OpenGate();
  } else if (recording_.load() && number > config_.gate_last) {
    CloseGate();  // a step after the window: stop before it
  }
  if (number > last_step_seen_) last_step_seen_ = number;
  if (recording_.load() && number >= config_.gate_first && number <= config_.gate_last) {
    if (steps_recorded_ == 0) first_step_recorded_ = number;
    last_step_recorded_ = number;
    ++steps_recorded_;
    // The step keeps its own number in the file: the next push/start on this thread is it.
    RecordNvtx(AmpNvtxType::kStepNumber, {}, {}, static_cast<uint64_t>(number), tid);
  }
}

void Session::GateRangeEnds(int64_t number) {
  if (number >= 0 && number >= config_.gate_last) CloseGate();
}

void Session::NvtxPush(std::string_view name, std::string_view domain) {
  int64_t step = -1;
  if (domain.empty()) {
    step = GateStepNumber(name);
    GateRangeBegins(step, ThreadId());
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
  GateRangeEnds(step);
}

uint64_t Session::NvtxStart(std::string_view name, std::string_view domain) {
  const uint64_t id = next_range_id_.fetch_add(1);
  if (domain.empty()) {
    const int64_t step = GateStepNumber(name);
    if (step >= 0) {
      {
        std::lock_guard<std::mutex> lock(gate_mu_);
        gate_ranges_[id] = step;
      }
      GateRangeBegins(step, ThreadId());
    }
  }
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kStart, name, domain, id);
  return id;
}

void Session::NvtxEnd(uint64_t id) {
  int64_t step = -1;
  if (!config_.gate_range_name.empty()) {
    std::lock_guard<std::mutex> lock(gate_mu_);
    auto it = gate_ranges_.find(id);
    if (it != gate_ranges_.end()) {
      step = it->second;
      gate_ranges_.erase(it);
    }
  }
  if (recording_.load(std::memory_order_relaxed)) RecordNvtx(AmpNvtxType::kEnd, {}, {}, id);
  GateRangeEnds(step);
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

void Session::OpenGate() {
  if (gate_done_.load() || recording_.exchange(true)) return;
  std::lock_guard<std::mutex> lock(cupti_mu_);
  if (cupti_ready_.load()) EnableKinds();
}

void Session::CloseGate() {
  if (gate_done_.exchange(true)) return;
  recording_.store(false);
  {
    std::lock_guard<std::mutex> lock(cupti_mu_);
    if (cupti_ready_.load()) DisableKinds();
  }
  Wake('F');
}

// ---------------------------------------------------------------------------------------
// Writer thread

void Session::Wake(char reason) {
  if (wake_pipe_[1] < 0) return;
  // Non-blocking: a full pipe means the writer has plenty of wake-ups queued already.
  ssize_t ignored = write(wake_pipe_[1], &reason, 1);
  (void)ignored;
}

void Session::RequestFlush() { Wake('F'); }

void Session::DrainQueue() {
  std::vector<Completed> batch;
  {
    std::lock_guard<std::mutex> lock(buffer_mu_);
    batch.swap(completed_);
  }
  for (const Completed& c : batch) {
    if (converter_ && c.valid_size > 0) {
      RecordConverter::BufferResult r = converter_->ConvertBuffer(c.buffer, c.valid_size);
      filtered_.fetch_add(r.filtered);
      unknown_.fetch_add(r.unknown);
      if (r.walk_error)
        Warn("cupti_buffer_walk_error", "cuptiActivityGetNextRecord failed inside a buffer; its remaining records were lost",
             false);
    }
    ReleaseBuffer(c.buffer);
  }
}

AmpStatsRecord Session::Stats() const {
  AmpStatsRecord s;
  std::memset(&s, 0, sizeof(s));
  s.records_written = writer_ ? writer_->records_written() : 0;
  s.cupti_dropped_records = cupti_dropped_.load();
  s.buffers_refused = buffers_refused_.load();
  s.nvtx_events_dropped = nvtx_dropped_.load();
  s.records_filtered = filtered_.load();
  s.buffers_completed = buffers_completed_.load();
  s.realtime_ns = ClockNs(CLOCK_REALTIME);
  s.unknown_records = unknown_.load();
  return s;
}

void Session::FlushCycle(bool forced, bool sync) {
  std::lock_guard<std::mutex> lock(cycle_mu_);
  if (kinds_enabled_.load() || (forced && cupti_ready_.load()))
    api_->ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  DrainQueue();
  AmpStatsRecord s = Stats();
  const bool changed = s.cupti_dropped_records != last_stats_written_.cupti_dropped_records ||
                       s.buffers_refused != last_stats_written_.buffers_refused ||
                       s.nvtx_events_dropped != last_stats_written_.nvtx_events_dropped ||
                       s.records_filtered != last_stats_written_.records_filtered ||
                       s.buffers_completed != last_stats_written_.buffers_completed;
  if (changed) {
    writer_->Append(s);
    last_stats_written_ = s;
  }
  nvtx_pending_.store(0, std::memory_order_relaxed);
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
    pollfd p{wake_pipe_[0], POLLIN, 0};
    int n = poll(&p, 1, timeout_ms);
    bool flush = false, signal_flush = false, signal_finish = false, stop = false, drain = false;
    if (n > 0) {
      char buf[256];
      ssize_t got;
      while ((got = read(wake_pipe_[0], buf, sizeof(buf))) > 0) {
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
      char done = 'D';
      ssize_t ignored = write(done_pipe_[1], &done, 1);
      (void)ignored;
      return;
    }
    if (stop) return;  // Shutdown() does the final flush on its own thread after joining
    if (finished_.load()) continue;
    if (signal_flush) {
      FlushCycle(/*forced=*/true, /*sync=*/true);
      char done = 'D';
      ssize_t ignored = write(done_pipe_[1], &done, 1);
      (void)ignored;
      continue;
    }
    now = ClockNs(CLOCK_MONOTONIC);
    if (flush || now >= next_periodic) {
      FlushCycle(/*forced=*/flush, /*sync=*/false);
      next_periodic = now + int64_t{config_.flush_interval_ms} * 1000000;
    } else if (drain) {
      std::lock_guard<std::mutex> lock(cycle_mu_);
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
  if (!writer_thread_.joinable() || done_pipe_[0] < 0) return;
  char stale[64];
  while (read(done_pipe_[0], stale, sizeof(stale)) > 0) {
  }
  Wake(terminating ? 'T' : 'S');
  const int64_t deadline = ClockNs(CLOCK_MONOTONIC) + int64_t{timeout_ms} * 1000000;
  while (true) {
    int64_t left_ms = (deadline - ClockNs(CLOCK_MONOTONIC)) / 1000000;
    if (left_ms <= 0) return;
    pollfd p{done_pipe_[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left_ms));
    if (n > 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

void Session::Finish(bool from_signal) {
  std::lock_guard<std::mutex> lock(finish_mu_);
  if (!writer_ || writer_finished_) return;
  if (pm_sampler_) pm_sampler_->Stop();
  const bool write_ok = !finished_.load();  // false after a write failure
  if (write_ok) FlushCycle(/*forced=*/true, /*sync=*/false);
  finished_.store(true);
  writer_finished_ = true;
  if (!write_ok) return;
  std::vector<std::string> codes = warning_codes();
  bool cupti_warned = false;
  for (const std::string& c : codes)
    if (c == "cupti_unavailable" || c == "another_cupti_subscriber" || c == "cupti_version_mismatch" ||
        c == "cupti_load_failed")
      cupti_warned = true;
  if (api_ == nullptr && !cupti_warned)
    Warn("no_cuda_activity",
         "no CUDA activity was recorded: the program never initialized CUDA (or there is no driver); "
         "only NVTX ranges are in this file",
         false, AmpSeverity::kInfo);
  if (!config_.gate_range_name.empty()) WarnAboutTheWindow();
  AmpFooterRecord f;
  std::memset(&f, 0, sizeof(f));
  f.stats = Stats();
  f.end_clock = Clock();
  f.flags = (cupti_ready_.load() ? kAmpFooterFlagCuptiActive : 0u) | (from_signal ? kAmpFooterFlagSignal : 0u);
  Status st = writer_->Finish(f);
  (void)st;  // nowhere left to report it: the file reads as truncated, which is the truth
}

void Session::WarnAboutTheWindow() {
  std::lock_guard<std::mutex> lock(gate_state_mu_);
  const std::string range = "NVTX range '" + config_.gate_range_name + "'";
  const std::string window = config_.gate_last == std::numeric_limits<int64_t>::max()
                                 ? std::to_string(config_.gate_first) + ".."
                                 : std::to_string(config_.gate_first) + ".." + std::to_string(config_.gate_last);
  const int64_t seen = gate_count_.load();
  if (!gate_opened_) {
    std::string what = seen == 0 ? "the program never opened " + range
                                 : "the program opened " + range + " " + std::to_string(seen) +
                                       " times (last step number " + std::to_string(last_step_seen_) + ")";
    Warn("capture_range_not_reached",
         "the recording window never opened: " + what + ", the window is " + window +
             "; nothing inside it was recorded (name the step range with --step-range-name, or record fewer steps)",
         true);
    return;
  }
  if (!config_.gate_is_capture_range && config_.gate_last != std::numeric_limits<int64_t>::max() &&
      last_step_recorded_ < config_.gate_last)
    Warn("steps_window_cut",
         "--steps " + window + ": the program ended after step " + std::to_string(last_step_recorded_) +
             ", so only steps " + std::to_string(first_step_recorded_) + ".." + std::to_string(last_step_recorded_) +
             " (" + std::to_string(steps_recorded_) + " of " + std::to_string(config_.gate_last - config_.gate_first + 1) +
             ") were recorded",
         true);
}

void Session::Shutdown() {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  if (writer_thread_.joinable()) {
    Wake('X');
    writer_thread_.join();
  }
  Finish(/*from_signal=*/false);
  std::lock_guard<std::mutex> cupti_lock(cupti_mu_);
  if (cupti_ready_.load()) {
    DisableKinds();
    if (g_callback_session.load() == this) g_callback_session.store(nullptr);
  }
}

}  // namespace ampscope::collector
