// A fake CUPTI behind the collector's function table, so the session logic (buffer pool,
// drops, flushing, shutdown, signals, fork) is tested without a GPU. It behaves like CUPTI in
// the ways the session depends on: it asks for buffers through the registered callback, fills
// them with the records the test "produced", and hands them back on cuptiActivityFlushAll.
#pragma once

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "collector/cupti_api.h"

namespace ampscope::testing {

class FakeCupti {
 public:
  FakeCupti() {
    instance_ = this;
    api.GetVersion = [](uint32_t* v) { *v = CUPTI_API_VERSION; return CUPTI_SUCCESS; };
    api.GetResultString = [](CUptiResult, const char** s) { *s = "CUPTI_ERROR_FAKE"; return CUPTI_SUCCESS; };
    api.GetTimestamp = [](uint64_t* t) {
      timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      *t = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
      return CUPTI_SUCCESS;
    };
    api.GetCallbackName = [](CUpti_CallbackDomain, uint32_t cbid, const char** name) {
      *name = cbid == 211 ? "cudaLaunchKernel_v7000" : "cudaSomething_v1";
      return CUPTI_SUCCESS;
    };
    api.Subscribe = [](CUpti_SubscriberHandle* h, CUpti_CallbackFunc, void*) {
      instance_->Log("subscribe");
      *h = reinterpret_cast<CUpti_SubscriberHandle>(instance_);
      return instance_->subscribe_result;
    };
    api.Unsubscribe = [](CUpti_SubscriberHandle) { instance_->Log("unsubscribe"); return CUPTI_SUCCESS; };
    api.EnableCallback = [](uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) {
      return CUPTI_SUCCESS;
    };
    api.ActivityEnable = [](CUpti_ActivityKind k) {
      instance_->Log("enable:" + std::to_string(int(k)));
      return instance_->enable_result;
    };
    api.ActivityDisable = [](CUpti_ActivityKind k) {
      instance_->Log("disable:" + std::to_string(int(k)));
      return CUPTI_SUCCESS;
    };
    api.ActivityRegisterCallbacks = [](CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done) {
      instance_->request_ = req;
      instance_->complete_ = done;
      return CUPTI_SUCCESS;
    };
    api.ActivityGetNextRecord = [](uint8_t* buffer, size_t valid, CUpti_Activity** record) {
      // Only the record kinds this fake produces: runtime API records.
      uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityAPI);
      if (next + sizeof(CUpti_ActivityAPI) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
      *record = reinterpret_cast<CUpti_Activity*>(next);
      return CUPTI_SUCCESS;
    };
    api.ActivityGetNumDroppedRecords = [](CUcontext, uint32_t, size_t* dropped) {
      *dropped = instance_->dropped_per_completion;
      return CUPTI_SUCCESS;
    };
    api.ActivityFlushAll = [](uint32_t flag) {
      instance_->Log("flush:" + std::to_string(flag));
      instance_->DeliverPending();
      return CUPTI_SUCCESS;
    };
  }
  ~FakeCupti() {
    for (uint8_t* b : held_) (void)b;  // owned by the session's pool
    if (instance_ == this) instance_ = nullptr;
  }

  // "GPU work": a runtime API record with this correlation id, delivered at the next flush.
  void Produce(uint32_t correlation, uint64_t start_ns) {
    CUpti_ActivityAPI a;
    std::memset(&a, 0, sizeof(a));
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 211;
    a.start = start_ns;
    a.end = start_ns + 1000;
    a.processId = 1;
    a.threadId = 2;
    a.correlationId = correlation;
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(a);
  }

  // Asks the session for one buffer, as CUPTI does when it needs one; true if it got one.
  bool RequestBuffer() {
    uint8_t* b = nullptr;
    size_t size = 0, max_records = 0;
    request_(&b, &size, &max_records);
    if (b == nullptr) return false;
    std::lock_guard<std::mutex> lock(mu_);
    held_.push_back(b);
    held_size_.push_back(size);
    return true;
  }

  // Fills held buffers with pending records and completes them (what a flush does).
  void DeliverPending() {
    std::vector<std::pair<uint8_t*, size_t>> done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty() && held_.empty()) return;
      if (held_.empty()) {
        mu_.unlock();
        bool got = RequestBuffer();
        mu_.lock();
        if (!got) return;
      }
      while (!held_.empty()) {
        uint8_t* b = held_.back();
        size_t cap = held_size_.back();
        held_.pop_back();
        held_size_.pop_back();
        size_t n = std::min(pending_.size(), cap / sizeof(CUpti_ActivityAPI));
        std::memcpy(b, pending_.data(), n * sizeof(CUpti_ActivityAPI));
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(n));
        done.emplace_back(b, n * sizeof(CUpti_ActivityAPI));
      }
    }
    for (auto& [b, valid] : done) complete_(nullptr, 0, b, 0, valid);
  }

  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  size_t held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_.size();
  }

  collector::CuptiApi api;
  CUptiResult subscribe_result = CUPTI_SUCCESS;
  CUptiResult enable_result = CUPTI_SUCCESS;
  size_t dropped_per_completion = 0;

 private:
  void Log(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(s);
  }

  static inline FakeCupti* instance_ = nullptr;
  std::mutex mu_;
  CUpti_BuffersCallbackRequestFunc request_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete_ = nullptr;
  std::vector<CUpti_ActivityAPI> pending_;
  std::vector<uint8_t*> held_;
  std::vector<size_t> held_size_;
  std::vector<std::string> calls_;
};

}  // namespace ampscope::testing
