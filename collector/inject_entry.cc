// The two symbols libampscope_inject.so exports. Everything else in the library is hidden
// (-fvisibility=hidden), so it cannot clash with the program's own symbols.
#include "collector/nvtx_injection.h"
#include "collector/process.h"

extern "C" {

// CUDA_INJECTION64_PATH: the driver calls this once, inside cuInit. It must never fail the
// program: every problem becomes a warning and the program goes on.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    ampscope::collector::StartFromCudaInjection();
  } catch (...) {
    // Out of memory or similar: the program matters more than the recording.
  }
  return 1;
}

// NVTX_INJECTION64_PATH: each NVTX-using module calls this on its first NVTX call.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  try {
    return ampscope::collector::InstallNvtxInjection(get_export_table);
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
