// What a CUPTI error means for a recording and how to fix it, in one place: the session, the
// PM sampler and (through the warnings they write) `ampscope record` all say the same thing.
#pragma once

#include <cupti_result.h>

#include <string>

namespace ampscope::collector {

// A short cause and fix for `r`, e.g. for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: "GPU performance
// counters are restricted to admin users: run as root, or set the driver option
// NVreg_RestrictProfilingToAdminUsers=0 ...". Empty when there is nothing useful to add.
std::string CuptiErrorFix(CUptiResult r);

// "<name>" or "<name> (<fix>)": what the warning lines print after "failed with".
std::string CuptiErrorWithFix(CUptiResult r, const std::string& name);

}  // namespace ampscope::collector
