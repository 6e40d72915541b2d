// Every diagnostic code, declared once: its enum name, its stable snake_case id (a key under
// diagnostics.counters in the JSON report, so never rename one), its severity and what it
// means in one line (renderers show it next to the count). Modelled on Perfetto's stats.h.
//
// Severities: info = an oddity that loses nothing; data_loss = some input could not be used;
// error = an analysis step failed. Pure data: add a row here and refer to it by its enum
// (DiagCode::kName) at the call site.
//
// X(enum name, id, severity, description)
#pragma once

// clang-format off
#define AMPSCOPE_DIAGNOSTIC_CODES(X) \
  /* ---- reading any input ---------------------------------------------------------------- */ \
  X(kUnsortedEvents, "unsorted_events", kInfo, \
    "input events were not in time order; they were sorted after reading") \
  X(kTimeOutOfRange, "time_out_of_range", kDataLoss, \
    "a record had a time beyond +/-2^62 ns (or one that a clock offset moved there); it was skipped") \
  X(kUnnamedKernel, "unnamed_kernel", kDataLoss, \
    "kernels without a usable name (empty, not a string, or an id the file never defined); kept with the name \"\"") \
  /* ---- Kineto JSON ----------------------------------------------------------------------- */ \
  X(kBadFieldType, "bad_field_type", kDataLoss, \
    "a field had an unexpected JSON type or an invalid escape; the event was kept without that field") \
  X(kMissingField, "missing_field", kDataLoss, \
    "an event lacked a field it needs (ph, ts, dur or a flow id); it was skipped or read as zero-length") \
  X(kUnsupportedPhase, "unsupported_phase", kInfo, \
    "events of a Chrome-trace phase that ampscope does not model were skipped") \
  X(kNegativeDuration, "negative_duration", kDataLoss, \
    "an event ended before it started (a negative duration); it was read as zero-length") \
  X(kZeroDuration, "zero_duration", kInfo, \
    "complete events of zero duration (usual for some Kineto events)") \
  X(kUnknownCategory, "unknown_category", kInfo, \
    "complete events of a category ampscope does not know were kept as other events") \
  X(kUnknownSyncKind, "unknown_sync_kind", kInfo, \
    "cuda_sync events of a kind ampscope does not know") \
  X(kDuplicateMetadata, "duplicate_metadata", kInfo, \
    "a process name, thread name or device was described twice; the first description was kept") \
  X(kUnmatchedCorrelation, "unmatched_correlation", kDataLoss, \
    "GPU work whose correlation id has no runtime call in the trace, so its launch is unknown") \
  X(kKernelBeforeLaunch, "kernel_before_launch", kDataLoss, \
    "GPU work started before the runtime call that launched it: the host and GPU clocks disagree, so launch delays there are wrong") \
  X(kDuplicateProfilerStep, "duplicate_profiler_step", kDataLoss, \
    "a ProfilerStep#N name occurs twice with different times; step detection keeps one of them") \
  X(kOverlappingProfilerSteps, "overlapping_profiler_steps", kDataLoss, \
    "a ProfilerStep range starts before the previous one ends; step windows are cut where they overlap") \
  X(kTextCapped, "text_capped", kDataLoss, \
    "the trace has more distinct long names than its size justifies keeping; new long names were stored as their first bytes and a hash") \
  X(kMissingDeviceProperties, "missing_device_properties", kInfo, \
    "the trace has no deviceProperties; devices were inferred from GPU events") \
  /* ---- .amptrace ------------------------------------------------------------------------- */ \
  X(kTruncatedFile, "truncated_file", kDataLoss, \
    "the file ends without a footer or inside a chunk; it was read up to its last complete chunk") \
  X(kTrailingBytes, "trailing_bytes", kInfo, \
    "bytes after the file's footer were ignored") \
  X(kCorruptChunk, "corrupt_chunk", kDataLoss, \
    "a chunk failed its checksum or could not be read; its records were skipped") \
  X(kBadRecordSize, "bad_record_size", kDataLoss, \
    "a chunk's record size does not match its payload; the chunk was skipped") \
  X(kUnknownChunkType, "unknown_chunk_type", kInfo, \
    "chunks of a type this reader does not know (written by a newer collector) were skipped") \
  X(kUnknownStringId, "unknown_string_id", kDataLoss, \
    "records referred to a string id the file never defined; their names are empty") \
  X(kCollectorWarningsCapped, "collector_warnings_capped", kDataLoss, \
    "the file carries more distinct collector warnings than are kept (64); the others are counted here") \
  X(kCuptiDroppedRecords, "cupti_dropped_records", kDataLoss, \
    "CUPTI dropped activity records (its buffers were full or not returned in time)") \
  X(kCuptiBuffersRefused, "cupti_buffers_refused", kDataLoss, \
    "CUPTI asked for a buffer while the collector's pool was empty; those records were dropped") \
  X(kNvtxEventsDropped, "nvtx_events_dropped", kDataLoss, \
    "NVTX events were dropped because the collector's queue was full") \
  X(kProfilerStoppedEarly, "profiler_stopped_early", kDataLoss, \
    "the profiler's own log says CUPTI stopped collecting early (its GPU buffers were exhausted); GPU activity after that is missing") \
  X(kApiRecordsFiltered, "api_records_filtered", kInfo, \
    "high-rate trivial CUDA API calls (cudaGetDevice, cudaPeekAtLastError, ...) were not recorded") \
  X(kUnknownCuptiRecords, "unknown_cupti_records", kInfo, \
    "CUPTI records of kinds the collector does not convert were skipped") \
  X(kNvtxUnmatchedPop, "nvtx_unmatched_pop", kInfo, \
    "an NVTX pop had no open push on its thread") \
  X(kNvtxUnmatchedEnd, "nvtx_unmatched_end", kInfo, \
    "an NVTX range end had no start") \
  X(kUnknownNvtxEvent, "unknown_nvtx_event", kInfo, \
    "NVTX events of a type this reader does not know were skipped") \
  /* info in a file that ended cleanly; data_loss when the process died inside the range */ \
  X(kNvtxUnclosedRange, "nvtx_unclosed_range", kInfo, \
    "NVTX ranges were still open when the file ended; they end at the last timestamp") \
  /* ---- Nsight Systems SQLite exports (trace/formats/nsys/; docs/nsys.md). The nsys reader */ \
  /* ---- also counts negative_duration, unmatched_correlation and nvtx_unclosed_range.      */ \
  X(kNsysTableMissing, "nsys_table_missing", kInfo, \
    "an optional table is absent; what it would have given is unknown") \
  X(kNsysColumnMissing, "nsys_column_missing", kInfo, \
    "an optional column is absent in this schema version; its field is unknown") \
  X(kNsysBadValue, "nsys_bad_value", kDataLoss, \
    "a NULL or wrongly typed value where a number was needed; the row was skipped") \
  X(kNsysTimeOutOfRange, "nsys_time_out_of_range", kDataLoss, \
    "a timestamp outside -2^62..2^62 ns; the row was skipped") \
  X(kNsysUnknownString, "nsys_unknown_string", kDataLoss, \
    "a StringIds reference with no string; the name is empty") \
  X(kNsysGpuBeforeLaunch, "nsys_gpu_before_launch", kDataLoss, \
    "GPU work that starts before the API call that launched it (clock problem)") \
  X(kNsysBacktraceDuplicate, "nsys_backtrace_duplicate", kInfo, \
    "CUDA backtrace rows (eventClass 67) repeat API calls already read; skipped") \
  X(kNsysUnknownEventClass, "nsys_unknown_event_class", kInfo, \
    "a CUDA API row of an event class not known to be runtime or driver; read as runtime") \
  X(kNsysUnknownEnumValue, "nsys_unknown_enum_value", kInfo, \
    "a copy/memory/sync kind with no known meaning; read as unknown") \
  X(kNsysNvtxEventIgnored, "nsys_nvtx_event_ignored", kInfo, \
    "NVTX events of types that carry no range (categories, naming of CUDA objects)") \
  X(kNsysSchemaVersion, "nsys_schema_version", kInfo, \
    "an export schema version outside the ones this reader was checked against") \
  X(kNsysSeveralProcesses, "nsys_several_processes", kInfo, \
    "the export holds several processes; they are read as one trace") \
  X(kNsysGraphIdFromNode, "nsys_graph_id_from_node", kInfo, \
    "no graphId column: the kernel's graph node id stands in for its graph id") \
  X(kNsysGpuMetricsDevice, "nsys_gpu_metrics_device", kInfo, \
    "GPU metric samples of GPUs this export ran no work on were skipped, or their GPU ids match no GPU that did") \
  X(kNsysDuplicateDevice, "nsys_duplicate_device", kInfo, \
    "a device id listed twice in TARGET_INFO_GPU (several hosts?); the first is kept") \
  /* ---- PyTorch memory snapshots (trace/formats/memory_snapshot/; docs/memory_snapshot.md) -- */ \
  X(kSnapshotMissingField, "snapshot_missing_field", kDataLoss, \
    "a segment, block or trace event lacked a field it needs (or had one of the wrong type); it was read as 0 or skipped") \
  X(kSnapshotUnknownAction, "snapshot_unknown_action", kInfo, \
    "device_traces entries with an action ampscope does not know were skipped") \
  X(kSnapshotUnknownBlockState, "snapshot_unknown_block_state", kInfo, \
    "blocks in a state ampscope does not know; they count as neither allocated nor free") \
  X(kSnapshotBigInt, "snapshot_big_int", kDataLoss, \
    "an integer beyond 64 bits; it was read saturated") \
  X(kSnapshotNoRequestedSize, "snapshot_no_requested_size", kInfo, \
    "blocks without requested_size (older snapshots): their history's real_size, else their size, counts as allocated (as PyTorch's segsum)") \
  X(kSnapshotOrphanRows, "snapshot_orphan_rows", kInfo, \
    "dicts shaped like blocks or events outside segments and device_traces were ignored") \
  X(kSnapshotTraceStartsLate, "snapshot_trace_starts_late", kInfo, \
    "device_traces frees blocks it never saw allocated (its ring buffer dropped older entries); they count as live from the first event") \
  /* ---- Nsight Compute CSV exports (trace/formats/ncu/; docs/ncu.md) ---------------------- */ \
  X(kNcuRaggedRow, "ncu_ragged_row", kDataLoss, \
    "an Nsight Compute CSV row had more fields than its header, or too few to hold its metric; the row was skipped") \
  X(kNcuUnknownUnit, "ncu_unknown_unit", kInfo, \
    "Nsight Compute metrics in a unit ampscope does not know; they were kept unscaled (fields ampscope reads from them are unknown)") \
  X(kNcuBadValue, "ncu_bad_value", kDataLoss, \
    "a metric ampscope reads had a value it could not parse or a unit it could not scale; that field is unknown") \
  X(kNcuDuplicateMetric, "ncu_duplicate_metric", kInfo, \
    "a metric appeared twice for one kernel launch; the first value was kept") \
  X(kNcuPreamble, "ncu_preamble", kInfo, \
    "lines before the Nsight Compute CSV header (==PROF== messages, program output) were skipped") \
  /* ---- analysis -------------------------------------------------------------------------- */ \
  X(kAnalysisFailed, "analysis_failed", kError, \
    "the analysis of one input failed; the job report leaves that rank out") \
  X(kNoGpuActivity, "no_gpu_activity", kInfo, \
    "no kernels, copies or memsets were recorded; only host-side ranges and steps were analysed") \
  /* ---- written by the collector into a .amptrace warnings chunk (the file's own severity */ \
  /* ---- is kept when it is read back)                                                     */ \
  X(kCollectorBadSetting, "bad_setting", kDataLoss, \
    "an AMPSCOPE_* or rank environment setting could not be used and was ignored") \
  X(kCollectorCuptiLoadFailed, "cupti_load_failed", kDataLoss, \
    "libcupti could not be loaded; no CUDA activity was recorded") \
  X(kCollectorCuptiVersionMismatch, "cupti_version_mismatch", kDataLoss, \
    "the loaded libcupti has another major API version than the collector was built for; no CUDA activity was recorded") \
  X(kCollectorAnotherSubscriber, "another_cupti_subscriber", kDataLoss, \
    "another profiler already holds the CUPTI subscription; no CUDA activity was recorded") \
  X(kCollectorCuptiUnavailable, "cupti_unavailable", kDataLoss, \
    "CUPTI could not be initialised or an activity kind could not be enabled") \
  X(kCollectorBufferWalkError, "cupti_buffer_walk_error", kDataLoss, \
    "a CUPTI activity buffer could not be walked to its end; its remaining records were lost") \
  X(kCollectorWriteFailed, "write_failed", kDataLoss, \
    "the collector could not write its file and stopped recording") \
  X(kCollectorNoCudaActivity, "no_cuda_activity", kInfo, \
    "the process never initialised CUDA (or there is no driver); only NVTX ranges were recorded") \
  X(kCollectorCaptureRangeNotReached, "capture_range_not_reached", kDataLoss, \
    "the requested steps or NVTX capture range never started, so nothing was recorded") \
  X(kCollectorTensorMetricsUnavailable, "tensor_metrics_unavailable", kDataLoss, \
    "--tensor-metrics was asked for but PM sampling could not run (GPU, CUPTI or permissions)") \
  X(kCollectorTensorMetricsOverflow, "tensor_metrics_overflow", kDataLoss, \
    "PM sampling produced samples faster than they were read; some were lost")
// clang-format on
