// Converts CUPTI activity records into .amptrace records.
//
// This is the one place that knows CUPTI's record structs (CUDA 13: CUpti_ActivityKernel10,
// Memcpy6, MemcpyPtoP4, Memset4, API, Synchronization2, Memory4, Overhead3, Marker2, Device5,
// Context3, Name). Strings CUPTI owns (kernel names, marker names, device names) are copied
// into the writer's string table here, before the buffer goes back to CUPTI.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "collector/cupti_api.h"
#include "trace/formats/amptrace/amptrace_writer.h"

namespace ampscope::collector {

class RecordConverter {
 public:
  RecordConverter(const CuptiApi& api, AmptraceWriter& writer) : api_(api), writer_(writer) {}

  enum class Result { kConverted, kFiltered, kUnknown };
  Result Convert(const CUpti_Activity* record);

  struct BufferResult {
    uint64_t converted = 0;
    uint64_t filtered = 0;
    uint64_t unknown = 0;
    bool walk_error = false;  // the iterator returned something other than MAX_LIMIT_REACHED
  };
  // Walks a completed buffer with the table's cuptiActivityGetNextRecord.
  BufferResult ConvertBuffer(uint8_t* buffer, size_t valid_bytes);

  // Noisy runtime/driver APIs (cudaGetDevice, cudaPeekAtLastError, cuCtxGetCurrent, ...) that
  // PyTorch calls at very high rates and that explain nothing; Kineto skips the same ones.
  static bool IsNoisyApi(CUpti_ActivityKind kind, uint32_t cbid);
  static const uint32_t* NoisyRuntimeCbids(size_t* count);
  static const uint32_t* NoisyDriverCbids(size_t* count);

 private:
  // Convert's parts: GPU activity (kernels, copies, memsets, syncs, memory), NVTX markers, and
  // the rest (API calls, overhead, devices, contexts, names).
  Result ConvertGpuRecord(const CUpti_Activity* record);
  Result ConvertMarker(const CUpti_Activity* record);
  Result ConvertOtherRecord(const CUpti_Activity* record);
  uint32_t ApiName(CUpti_CallbackDomain domain, uint32_t cbid);

  const CuptiApi& api_;
  AmptraceWriter& writer_;
  std::unordered_map<uint64_t, uint32_t> api_names_;  // (domain << 32 | cbid) -> string id
};

}  // namespace ampscope::collector
