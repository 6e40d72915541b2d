// The C++ equivalent of Python's `with torch.autocast(device_type, dtype, enabled):`, written
// against whichever autocast API the LibTorch in use has:
//   - LibTorch 1.13 .. 2.3: at::autocast::set_enabled / set_autocast_gpu_dtype (CUDA) and
//     set_cpu_enabled / set_autocast_cpu_dtype (CPU);
//   - LibTorch 2.4 and later: set_autocast_enabled(device, bool) / set_autocast_dtype(device, dtype);
//     the old names are deprecated there.
// Like Python's autocast, the region saves and restores the previous state, and the outermost
// region clears the cast cache on exit (the cache holds low-precision copies of the weights,
// valid for one region only).
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

namespace amp_trainer {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define AMP_TRAINER_AUTOCAST_DEVICE_API 1
#else
#define AMP_TRAINER_AUTOCAST_DEVICE_API 0
#endif

inline bool AutocastEnabled(c10::DeviceType device) {
#if AMP_TRAINER_AUTOCAST_DEVICE_API
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline void SetAutocastEnabled(c10::DeviceType device, bool enabled) {
#if AMP_TRAINER_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

inline c10::ScalarType AutocastDtype(c10::DeviceType device) {
#if AMP_TRAINER_AUTOCAST_DEVICE_API
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void SetAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
#if AMP_TRAINER_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

// RAII autocast region for one device type. Not copyable; regions nest like Python's.
class AutocastRegion {
 public:
  AutocastRegion(c10::DeviceType device, c10::ScalarType dtype, bool enabled)
      : device_(device), previous_enabled_(AutocastEnabled(device)), previous_dtype_(AutocastDtype(device)) {
    SetAutocastEnabled(device_, enabled);
    SetAutocastDtype(device_, dtype);
    at::autocast::increment_nesting();
  }
  ~AutocastRegion() {
    // Python's autocast.__exit__: the outermost region drops the cached weight casts.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    SetAutocastEnabled(device_, previous_enabled_);
    SetAutocastDtype(device_, previous_dtype_);
  }
  AutocastRegion(const AutocastRegion&) = delete;
  AutocastRegion& operator=(const AutocastRegion&) = delete;

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

}  // namespace amp_trainer
