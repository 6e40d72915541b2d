// Which collective an NCCL/RCCL kernel, a Kineto "Collective name" or a c10d op runs. The one
// place where collective names are matched (analyzers/collectives/collectives.cc asks here).
#pragma once

#include <cstdint>
#include <string_view>

namespace ampscope {

enum class CollectiveType : uint8_t {
  kUnknown,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,  // point-to-point (NCCL runs all-to-all as grouped send/recv: SendRecv kernels)
  kBarrier,
  kCount
};
// "unknown", "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce",
// "send_recv", "barrier"
const char* CollectiveTypeName(CollectiveType t);

// From a communication kernel's name: ncclKernel_AllReduce_RING_LL_Sum_float(...),
// ncclDevKernel_SendRecv(...), ncclAllReduceRingLLKernel_sum_f32 (NCCL 2.7 and older), the RCCL
// forms of the same. kUnknown for any other name.
CollectiveType CollectiveTypeOfKernel(std::string_view kernel_name);

// From a collective's name as PyTorch writes it: Kineto's "Collective name" ("allreduce",
// "all_to_all", "_allgather_base", "allgather_into_tensor_coalesced"), the c10d op
// ("c10d::alltoall_base_", "c10d::_reduce_scatter_base_") or its NCCL annotation
// ("nccl:all_reduce", "nccl:_all_gather_base"). kUnknown for names that are not collectives.
CollectiveType CollectiveTypeOfName(std::string_view name);

}  // namespace ampscope
