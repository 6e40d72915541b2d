// Kineto's "Seq" on NCCL kernels (PyTorch's ParamCommsUtils kSeqNum = "Seq": the process
// group's collective sequence number) is kept with the kernel's collective args.
#include <gtest/gtest.h>

#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kineto_seq_test {
namespace {

TEST(KinetoSeq, NcclKernelKeepsItsSequenceNumber) {
  const char* json = R"js({"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
  "pid": 0, "tid": 20, "ts": 100, "dur": 10,
  "args": {"device": 0, "stream": 20, "correlation": 5, "Collective name": "allreduce", "Process Group Name": "0",
           "Seq": 41}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
  "pid": 0, "tid": 20, "ts": 200, "dur": 10,
  "args": {"device": 0, "stream": 20, "correlation": 6, "Seq": 42}},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 300, "dur": 10,
  "args": {"device": 0, "stream": 7, "correlation": 7}}
]})js";
  auto t = ReadKinetoTraceFromString(json, "seq.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->kernels.size(), 3u);
  ASSERT_EQ(t->comm_infos.size(), 2u);  // "Seq" alone is enough to keep the args
  ASSERT_EQ(t->kernels[0].comm_index, 0);
  EXPECT_EQ(t->comm_infos[0].seq, 41);
  EXPECT_EQ(t->str(t->comm_infos[0].process_group), "0");
  ASSERT_EQ(t->kernels[1].comm_index, 1);
  EXPECT_EQ(t->comm_infos[1].seq, 42);
  EXPECT_EQ(t->kernels[2].comm_index, -1);
}

}  // namespace
}  // namespace kineto_seq_test
}  // namespace ampscope
