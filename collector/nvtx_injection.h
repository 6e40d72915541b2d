// NVTX injection: NVTX_INJECTION64_PATH points at libampscope_inject.so, and each module that
// uses NVTX (the program, libtorch, ...) calls InitializeInjectionNvtx2 on its first NVTX
// call. We fill that module's CORE and CORE2 callback tables with handlers that record into
// the process's Session.
#pragma once

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

namespace ampscope::collector {

// Installs the handlers through NVTX's export table; returns 1 on success, 0 to tell NVTX to
// stay a no-op (collector disabled, or an NVTX too old to have the tables).
int InstallNvtxInjection(NvtxGetExportTableFunc_t get_export_table);

}  // namespace ampscope::collector
