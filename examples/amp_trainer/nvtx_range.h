// NVTX push/pop ranges through the header-only nvtx3 API. With no tool attached every call is a
// cheap no-op; under `ampscope record` (NVTX_INJECTION64_PATH) the collector receives them, with
// or without a GPU. Built without the nvtx3 headers (AMP_TRAINER_HAVE_NVTX3 undefined), the
// ranges compile to nothing and CMake warns at configure time.
#pragma once

#if defined(AMP_TRAINER_HAVE_NVTX3)
#include <nvtx3/nvToolsExt.h>
#endif

namespace amp_trainer {

class NvtxRange {
 public:
  // `name` must outlive the call only (NVTX copies or consumes it before returning).
  explicit NvtxRange(const char* name) {
#if defined(AMP_TRAINER_HAVE_NVTX3)
    nvtxRangePushA(name);
#else
    (void)name;
#endif
  }
  ~NvtxRange() {
#if defined(AMP_TRAINER_HAVE_NVTX3)
    nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

constexpr bool kNvtxCompiledIn =
#if defined(AMP_TRAINER_HAVE_NVTX3)
    true;
#else
    false;
#endif

}  // namespace amp_trainer
