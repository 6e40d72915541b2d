// The key tables of trace/formats/kineto/kineto_keys.h (pure data).
#include "trace/formats/kineto/kineto_keys.h"

namespace ampscope::kineto {

const char* const kArgDisplayNames[kArgCount] = {
    "correlation", "External id", "device", "stream", "grid", "block", "registers per thread", "shared memory",
    "blocks per SM", "est. achieved occupancy %", "bytes", "cbid", "cuda_sync_kind", "Input Dims", "Input type",
    "Input Strides", "Concrete Inputs", "Sequence number", "Fwd thread id", "kernel_backend", "Collective name",
    "In msg nelems", "Out msg nelems", "Group size", "dtype", "Process Group Name", "Process Group Description", "Seq",
    "Addr", "Bytes", "Total Allocated", "Total Reserved", "Device Type", "Device Id", "name", "labels", "size"};

const KeyTable<ArgKey>& ArgKeys() {
  static const KeyTable<ArgKey> table = {
      {"correlation", kArgCorrelation},
      {"External id", kArgExternalId},
      {"external id", kArgExternalId},  // 2021 format
      {"device", kArgDevice},
      {"stream", kArgStream},
      {"grid", kArgGrid},
      {"block", kArgBlock},
      {"registers per thread", kArgRegisters},
      {"shared memory", kArgSharedMemory},
      {"blocks per SM", kArgBlocksPerSm},
      {"est. achieved occupancy %", kArgOccupancy},
      {"bytes", kArgBytes},
      {"cbid", kArgCbid},
      {"cid", kArgCbid},  // ROCm
      {"cuda_sync_kind", kArgSyncKind},
      {"Input Dims", kArgInputDims},
      {"Input type", kArgInputType},
      {"Input Strides", kArgInputStrides},
      {"Concrete Inputs", kArgConcreteInputs},
      {"Sequence number", kArgSequenceNumber},
      {"Fwd thread id", kArgFwdThreadId},
      {"kernel_backend", kArgKernelBackend},
      {"Collective name", kArgCollective},
      {"In msg nelems", kArgInNelems},
      {"Out msg nelems", kArgOutNelems},
      {"Group size", kArgGroupSize},
      {"dtype", kArgDtype},
      {"Process Group Name", kArgPgName},
      {"Process Group Description", kArgPgDesc},
      {"Seq", kArgSeq},
      {"Addr", kArgAddr},
      {"Bytes", kArgMemBytes},
      {"Total Allocated", kArgTotalAllocated},
      {"Total Reserved", kArgTotalReserved},
      {"Device Type", kArgDeviceType},
      {"Device Id", kArgDeviceId},
      {"name", kArgMetaName},
      {"labels", kArgMetaLabels},
      {"size", kArgRocmSize},  // ROCm runtime calls carry the copy size here
  };
  return table;
}

const KeyTable<EventClass>& EventClasses() {
  static const KeyTable<EventClass> table = {
      {"kernel", EventClass::kKernel},
      {"Kernel", EventClass::kKernel},
      {"gpu_memcpy", EventClass::kMemcpy},
      {"Memcpy", EventClass::kMemcpy},
      {"gpu_memset", EventClass::kMemset},
      {"Memset", EventClass::kMemset},
      {"cuda_runtime", EventClass::kRuntime},
      {"Runtime", EventClass::kRuntime},
      {"cuda_driver", EventClass::kDriver},
      {"Driver", EventClass::kDriver},
      {"cuda_sync", EventClass::kSync},
      {"cpu_op", EventClass::kCpuOp},
      {"Operator", EventClass::kCpuOp},
      {"user_annotation", EventClass::kUserAnnotation},
      {"gpu_user_annotation", EventClass::kGpuAnnotation},
      {"python_function", EventClass::kKnownOther},
      {"Python", EventClass::kKnownOther},
      {"Trace", EventClass::kKnownOther},
      {"cpu_instant_event", EventClass::kKnownOther},
      {"overhead", EventClass::kKnownOther},
      {"Overhead", EventClass::kKnownOther},
      {"cuda_profiler_range", EventClass::kKnownOther},
      {"ac2g", EventClass::kKnownOther},
      {"fwdbwd", EventClass::kKnownOther},
      {"async", EventClass::kKnownOther},
  };
  return table;
}

const KeyTable<SyncType>& SyncKinds() {
  static const KeyTable<SyncType> table = {
      {"Event Sync", SyncType::kEventSync},
      {"Stream Wait Event", SyncType::kStreamWaitEvent},
      {"Stream Sync", SyncType::kStreamSync},
      {"Context Sync", SyncType::kContextSync},
  };
  return table;
}

const KeyTable<MemcpyKind>& MemcpyKinds() {
  static const KeyTable<MemcpyKind> table = {
      {"HtoD", MemcpyKind::kHtoD}, {"DtoH", MemcpyKind::kDtoH}, {"DtoD", MemcpyKind::kDtoD},
      {"HtoH", MemcpyKind::kHtoH}, {"PtoP", MemcpyKind::kPtoP},
  };
  return table;
}

const KeyTable<MemoryKind>& MemoryKinds() {
  static const KeyTable<MemoryKind> table = {
      {"Pageable", MemoryKind::kPageable}, {"Pinned", MemoryKind::kPinned}, {"Device", MemoryKind::kDevice},
      {"Managed", MemoryKind::kManaged},   {"Array", MemoryKind::kArray},
  };
  return table;
}

}  // namespace ampscope::kineto
