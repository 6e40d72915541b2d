#include "collector/record_converter.h"

#include <cstring>
#include <string>

namespace ampscope::collector {

// The .amptrace enums copy CUPTI's values; these checks fail the build if CUPTI ever renumbers.
static_assert(uint8_t(AmpMemcpyKind::kHtoD) == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kDtoH) == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kHtoA) == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kAtoH) == CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kAtoA) == CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kAtoD) == CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kDtoA) == CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kDtoD) == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kHtoH) == CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, "memcpy kind");
static_assert(uint8_t(AmpMemcpyKind::kPtoP) == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, "memcpy kind");
static_assert(uint8_t(AmpMemoryKind::kPageable) == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kPinned) == CUPTI_ACTIVITY_MEMORY_KIND_PINNED, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kDevice) == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kArray) == CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kManaged) == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kDeviceStatic) == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, "memory kind");
static_assert(uint8_t(AmpMemoryKind::kManagedStatic) == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC, "memory kind");
static_assert(uint8_t(AmpSyncType::kEventSynchronize) == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, "sync");
static_assert(uint8_t(AmpSyncType::kStreamWaitEvent) == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, "sync");
static_assert(uint8_t(AmpSyncType::kStreamSynchronize) == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, "sync");
static_assert(uint8_t(AmpSyncType::kContextSynchronize) == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, "sync");
static_assert(uint8_t(AmpMemoryOp::kAllocation) == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, "memory op");
static_assert(uint8_t(AmpMemoryOp::kRelease) == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, "memory op");
static_assert(uint8_t(AmpObjectKind::kThread) == CUPTI_ACTIVITY_OBJECT_THREAD, "object kind");
static_assert(uint8_t(AmpObjectKind::kStream) == CUPTI_ACTIVITY_OBJECT_STREAM, "object kind");

namespace {

constexpr uint32_t kNoisyRuntime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010, CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v12030,
};
constexpr uint32_t kNoisyDriver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,       CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,  CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,      CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
};

const char* OverheadName(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "cupti_buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "cupti_instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "cupti_resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "runtime_triggered_module_loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "activity_buffer_request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "uvm_activity_init";
    default: return "unknown_overhead";
  }
}

// The object a NAME/OVERHEAD/MARKER record refers to, packed as AmpNameRecord documents:
// thread -> tid; device -> device; context -> device << 32 | context; stream -> context << 32 | stream.
uint64_t PackObjectId(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id) {
  switch (kind) {
    case CUPTI_ACTIVITY_OBJECT_PROCESS: return id.pt.processId;
    case CUPTI_ACTIVITY_OBJECT_THREAD: return id.pt.threadId;
    case CUPTI_ACTIVITY_OBJECT_DEVICE: return id.dcs.deviceId;
    case CUPTI_ACTIVITY_OBJECT_CONTEXT: return (uint64_t{id.dcs.deviceId} << 32) | id.dcs.contextId;
    case CUPTI_ACTIVITY_OBJECT_STREAM: return (uint64_t{id.dcs.contextId} << 32) | id.dcs.streamId;
    default: return 0;
  }
}

template <typename T>
T Zeroed() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

}  // namespace

const uint32_t* RecordConverter::NoisyRuntimeCbids(size_t* count) {
  *count = sizeof(kNoisyRuntime) / sizeof(kNoisyRuntime[0]);
  return kNoisyRuntime;
}
const uint32_t* RecordConverter::NoisyDriverCbids(size_t* count) {
  *count = sizeof(kNoisyDriver) / sizeof(kNoisyDriver[0]);
  return kNoisyDriver;
}

bool RecordConverter::IsNoisyApi(CUpti_ActivityKind kind, uint32_t cbid) {
  if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
    for (uint32_t c : kNoisyRuntime)
      if (c == cbid) return true;
  } else if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
    for (uint32_t c : kNoisyDriver)
      if (c == cbid) return true;
  }
  return false;
}

uint32_t RecordConverter::ApiName(CUpti_CallbackDomain domain, uint32_t cbid) {
  const uint64_t key = (uint64_t{static_cast<uint32_t>(domain)} << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* name = nullptr;
  uint32_t id = 0;
  if (api_.GetCallbackName != nullptr && api_.GetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS &&
      name != nullptr && *name != '\0') {
    // CUPTI names runtime APIs with their version suffix ("cudaLaunchKernel_v7000"); reports
    // and Kineto use the plain name.
    std::string n(name);
    size_t v = n.rfind("_v");
    if (v != std::string::npos && v + 2 < n.size() && n.find_first_not_of("0123456789", v + 2) == std::string::npos)
      n.resize(v);
    id = writer_.InternString(n);
  }
  api_names_.emplace(key, id);
  return id;
}

RecordConverter::Result RecordConverter::Convert(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_MEMORY2: return ConvertGpuRecord(record);
    case CUPTI_ACTIVITY_KIND_MARKER: return ConvertMarker(record);
    default: return ConvertOtherRecord(record);
  }
}

RecordConverter::Result RecordConverter::ConvertGpuRecord(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      auto r = Zeroed<AmpKernelRecord>();
      r.start_ns = static_cast<int64_t>(k->start);
      r.end_ns = static_cast<int64_t>(k->end);
      r.correlation = k->correlationId;
      r.device = k->deviceId;
      r.context = k->contextId;
      r.stream = k->streamId;
      r.grid[0] = k->gridX, r.grid[1] = k->gridY, r.grid[2] = k->gridZ;
      r.block[0] = k->blockX, r.block[1] = k->blockY, r.block[2] = k->blockZ;
      r.registers_per_thread = k->registersPerThread;
      r.static_shared_bytes = k->staticSharedMemory;
      r.dynamic_shared_bytes = k->dynamicSharedMemory;
      r.name = k->name != nullptr ? writer_.InternString(k->name) : 0;
      r.graph_id = k->graphId;
      r.graph_node_id = k->graphNodeId;
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      auto r = Zeroed<AmpMemcpyRecord>();
      r.start_ns = static_cast<int64_t>(m->start);
      r.end_ns = static_cast<int64_t>(m->end);
      r.bytes = m->bytes;
      r.correlation = m->correlationId;
      r.device = r.src_device = r.dst_device = m->deviceId;
      r.context = m->contextId;
      r.stream = m->streamId;
      r.copy_kind = m->copyKind;
      r.src_kind = m->srcKind;
      r.dst_kind = m->dstKind;
      r.flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? kAmpMemcpyFlagAsync : 0;
      r.graph_id = m->graphId;
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      auto r = Zeroed<AmpMemcpyRecord>();
      r.start_ns = static_cast<int64_t>(m->start);
      r.end_ns = static_cast<int64_t>(m->end);
      r.bytes = m->bytes;
      r.correlation = m->correlationId;
      r.device = m->deviceId;
      r.context = m->contextId;
      r.stream = m->streamId;
      r.src_device = m->srcDeviceId;
      r.dst_device = m->dstDeviceId;
      r.copy_kind = m->copyKind;
      r.src_kind = m->srcKind;
      r.dst_kind = m->dstKind;
      r.flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? kAmpMemcpyFlagAsync : 0;
      r.graph_id = m->graphId;
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      auto r = Zeroed<AmpMemsetRecord>();
      r.start_ns = static_cast<int64_t>(m->start);
      r.end_ns = static_cast<int64_t>(m->end);
      r.bytes = m->bytes;
      r.correlation = m->correlationId;
      r.device = m->deviceId;
      r.context = m->contextId;
      r.stream = m->streamId;
      r.value = m->value;
      r.memory_kind = static_cast<uint8_t>(m->memoryKind);
      r.flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0;
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      auto r = Zeroed<AmpSyncRecord>();
      r.start_ns = static_cast<int64_t>(s->start);
      r.end_ns = static_cast<int64_t>(s->end);
      r.correlation = s->correlationId;
      r.context = s->contextId;
      r.stream = s->streamId;
      r.cuda_event_id = s->cudaEventId;
      r.type = static_cast<uint8_t>(s->type);
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
      auto r = Zeroed<AmpMemoryRecord>();
      r.time_ns = static_cast<int64_t>(m->timestamp);
      r.address = m->address;
      r.bytes = m->bytes;
      r.correlation = m->correlationId;
      r.device = m->deviceId;
      r.context = m->contextId;
      r.stream = m->streamId;
      r.op = static_cast<uint8_t>(m->memoryOperationType);
      r.memory_kind = static_cast<uint8_t>(m->memoryKind);
      r.is_async = m->isAsync != 0;
      writer_.Append(r);
      return Result::kConverted;
    }
    default:
      return Result::kUnknown;
  }
}

RecordConverter::Result RecordConverter::ConvertMarker(const CUpti_Activity* record) {
  // Only seen when libcupti itself is the NVTX injection; the collector's own NVTX hooks
  // are the usual path. START/END pair by id; ids get the top bit so they cannot collide
  // with the hooks' range ids.
  const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
  auto e = Zeroed<AmpNvtxEvent>();
  e.time_ns = static_cast<int64_t>(m->timestamp);
  e.tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    e.type = static_cast<uint8_t>(AmpNvtxType::kMark);
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    e.type = static_cast<uint8_t>(AmpNvtxType::kStart);
    e.range_id = (uint64_t{1} << 63) | m->id;
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    e.type = static_cast<uint8_t>(AmpNvtxType::kEnd);
    e.range_id = (uint64_t{1} << 63) | m->id;
  } else {
    return Result::kUnknown;  // sync-object markers: not ranges
  }
  if (e.type != static_cast<uint8_t>(AmpNvtxType::kEnd)) {
    e.name = m->name != nullptr ? writer_.InternString(m->name) : 0;
    e.domain = m->domain != nullptr ? writer_.InternString(m->domain) : 0;
  }
  writer_.Append(e);
  return Result::kConverted;
}

RecordConverter::Result RecordConverter::ConvertOtherRecord(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      if (IsNoisyApi(record->kind, a->cbid)) return Result::kFiltered;
      const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
      auto r = Zeroed<AmpApiRecord>();
      r.start_ns = static_cast<int64_t>(a->start);
      r.end_ns = static_cast<int64_t>(a->end);
      r.correlation = a->correlationId;
      r.cbid = a->cbid;
      r.pid = a->processId;
      r.tid = a->threadId;
      r.name = ApiName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid);
      r.return_value = a->returnValue;
      r.domain = static_cast<uint8_t>(driver ? AmpApiDomain::kDriver : AmpApiDomain::kRuntime);
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      auto r = Zeroed<AmpOverheadRecord>();
      r.start_ns = static_cast<int64_t>(o->start);
      r.end_ns = static_cast<int64_t>(o->end);
      r.overhead_kind = static_cast<uint32_t>(o->overheadKind);
      r.name = writer_.InternString(OverheadName(r.overhead_kind));
      r.object_kind = static_cast<uint8_t>(o->objectKind);
      r.object_id = PackObjectId(o->objectKind, o->objectId);
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      auto r = Zeroed<AmpDeviceRecord>();
      r.id = d->id;
      r.cc_major = d->computeCapabilityMajor;
      r.cc_minor = d->computeCapabilityMinor;
      r.sm_count = d->numMultiprocessors;
      r.global_memory_bytes = d->globalMemorySize;
      r.global_memory_bandwidth_kbs = d->globalMemoryBandwidth;
      r.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
      r.threads_per_warp = d->numThreadsPerWarp;
      r.max_registers_per_sm = d->maxRegistersPerMultiprocessor;
      r.max_shared_memory_per_sm = d->maxSharedMemoryPerMultiprocessor;
      r.core_clock_khz = d->coreClockRate;
      r.name = d->name != nullptr ? writer_.InternString(d->name) : 0;
      static_assert(sizeof(r.uuid) == sizeof(d->uuid), "CUuuid is 16 bytes");
      std::memcpy(r.uuid, &d->uuid, sizeof(r.uuid));
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(record);
      auto r = Zeroed<AmpContextRecord>();
      r.context = c->contextId;
      r.device = c->deviceId;
      r.null_stream = c->nullStreamId;
      writer_.Append(r);
      return Result::kConverted;
    }
    case CUPTI_ACTIVITY_KIND_NAME: {
      const auto* n = reinterpret_cast<const CUpti_ActivityName*>(record);
      auto r = Zeroed<AmpNameRecord>();
      r.object_kind = static_cast<uint8_t>(n->objectKind);
      r.object_id = PackObjectId(n->objectKind, n->objectId);
      r.name = n->name != nullptr ? writer_.InternString(n->name) : 0;
      writer_.Append(r);
      return Result::kConverted;
    }
    default:
      return Result::kUnknown;
  }
}

RecordConverter::BufferResult RecordConverter::ConvertBuffer(uint8_t* buffer, size_t valid_bytes) {
  BufferResult out;
  if (buffer == nullptr || valid_bytes == 0) return out;
  CUpti_Activity* record = nullptr;
  while (true) {
    CUptiResult st = api_.ActivityGetNextRecord(buffer, valid_bytes, &record);
    if (st == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (st != CUPTI_SUCCESS || record == nullptr) {
      out.walk_error = true;
      break;
    }
    switch (Convert(record)) {
      case Result::kConverted: ++out.converted; break;
      case Result::kFiltered: ++out.filtered; break;
      case Result::kUnknown: ++out.unknown; break;
    }
  }
  return out;
}

}  // namespace ampscope::collector
