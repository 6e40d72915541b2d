// Collector settings, read from the environment that `ampscope record` sets (docs/collector.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope::collector {

struct SessionConfig {
  std::string output_dir = ".";     // AMPSCOPE_OUTPUT_DIR
  std::string host;                 // gethostname()
  std::string command_line;         // /proc/self/cmdline, arguments joined with spaces (quoted when needed)
  uint32_t pid = 0;
  int32_t rank = -1;                // RANK
  int32_t local_rank = -1;          // LOCAL_RANK
  int32_t world_size = -1;          // WORLD_SIZE

  // Recording window: when gate_range_name is set, only the occurrences gate_first..gate_last
  // (0-based, inclusive) of the NVTX range with that name are recorded, counted across the
  // process. AMPSCOPE_STEPS=N..M with AMPSCOPE_STEP_RANGE_NAME (default "step"), or
  // AMPSCOPE_CAPTURE_NVTX=NAME (its first occurrence, like nsys --capture-range=nvtx).
  std::string gate_range_name;
  int64_t gate_first = 0;
  int64_t gate_last = -1;
  // AMPSCOPE_CAPTURE_NVTX: only the exact name counts, and a window cut short is no warning.
  bool gate_is_capture_range = false;

  bool tensor_metrics = false;        // AMPSCOPE_TENSOR_METRICS=1
  uint32_t pm_sample_interval_ns = 1000000;  // AMPSCOPE_PM_INTERVAL_US (default 1000 us)
  bool record_driver_api = false;     // AMPSCOPE_DRIVER_API=1
  size_t buffer_bytes = 8u << 20;     // AMPSCOPE_BUFFER_MB (CUPTI activity buffer size)
  size_t max_buffers = 32;            // AMPSCOPE_MAX_BUFFERS (the bounded pool)
  int flush_interval_ms = 1000;       // AMPSCOPE_FLUSH_MS
  size_t max_pending_nvtx = 1u << 20; // NVTX events queued between two flushes before dropping
  bool install_process_hooks = true;  // atexit, SIGINT/SIGTERM, pthread_atfork (tests turn it off)
  bool print_warnings = true;         // the one "ampscope: ..." stderr line (AMPSCOPE_PRINT_WARNINGS=0:
                                      // `ampscope record` prints every warning itself afterwards)

  std::string FilePath() const;       // <dir>/<host>.<pid>[.rank<RANK>].amptrace
};

// Reads the AMPSCOPE_* variables, RANK/LOCAL_RANK/WORLD_SIZE, the host name and command line.
// Malformed values fall back to defaults and are described in `problems` (collector warnings).
SessionConfig ConfigFromEnvironment(std::vector<std::string>* problems);

// "N..M" (inclusive), "N" (one step) or "N.." (from N on). False if malformed or out of range.
bool ParseStepRange(const std::string& text, int64_t* first, int64_t* last);

// True if an NVTX range called `name` is the recording window's range: exactly
// config.gate_range_name, or (with --steps) that name followed by a step number, as in
// "step 7", "step#7" or "step_7". *number is the number in the name, else -1.
bool GateRangeMatches(const SessionConfig& config, std::string_view name, int64_t* number);

}  // namespace ampscope::collector
