// The process-wide side of the collector: the one Session of this process, and the hooks
// that tie it to the process's life (atexit, SIGINT/SIGTERM, fork).
#pragma once

#include "collector/cupti_api.h"
#include "collector/session.h"

namespace ampscope::collector {

// The session of this process, or null (none yet, disabled, or a forked child that has not
// initialized CUDA itself).
Session* CurrentSession();

// Called from InitializeInjection (inside cuInit): creates the session if needed (also in a
// forked child, which then records on its own) and starts CUDA activity recording.
void StartFromCudaInjection();

// Called from the NVTX injection: creates the session lazily so a program that only uses NVTX
// (or whose CUDA injection never runs, e.g. without a driver) still gets its file. Never in a
// forked child: it writes nothing unless it initializes CUDA itself.
Session* EnsureSessionForNvtx();

// Tests: use this table instead of loading libcupti (null restores the real loader).
void SetCuptiApiForTesting(const CuptiApi* api);

// AMPSCOPE_DISABLE=1 turns the collector into a no-op (the library stays loadable).
bool CollectorDisabled();

}  // namespace ampscope::collector
