// The reader keeps a cpu_op's "Input Strides" and "Concrete Inputs" (the FLOP models need the
// strides, and stride/padding/causal flags that only "Concrete Inputs" records). Expected values
// are read off the inline JSON below; the event is the shape of a real one from the shared
// TraceLens MI300X Qwen trace (aten::_scaled_dot_product_flash_attention).
#include <string>

#include <gtest/gtest.h>

#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kineto_op_args_test {
namespace {

const std::string kTrace = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::_scaled_dot_product_flash_attention", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
   "args": {"External id": 7, "Input Dims": [[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"],
            "Input Strides": [[572416, 35776, 64, 1], [572416, 35776, 64, 1], [572416, 35776, 64, 1], [], [], [], []],
            "Concrete Inputs": ["", "", "", "0.", "True", "False", "0.125"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
   "args": {"External id": 8, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}}
]})JSON";

TEST(KinetoOpArgs, KeepsInputStridesAndConcreteInputs) {
  auto t = ReadKinetoTraceFromString(kTrace, "inline.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->cpu_ops.size(), 2u);
  const CpuOp& sdpa = t->cpu_ops[0];
  EXPECT_EQ(t->str(sdpa.input_strides), "[[572416,35776,64,1],[572416,35776,64,1],[572416,35776,64,1],[],[],[],[]]");
  EXPECT_EQ(t->str(sdpa.concrete_inputs), R"(["","","","0.","True","False","0.125"])");
  // Absent in the event: no text (the 2021 format and record_shapes without them).
  const CpuOp& mm = t->cpu_ops[1];
  EXPECT_EQ(mm.input_strides, kNoString);
  EXPECT_EQ(mm.concrete_inputs, kNoString);
  EXPECT_EQ(t->str(mm.input_dims), "[[2,3],[3,4]]");
}

TEST(KinetoOpArgs, ANonArrayValueIsCountedNotFatal) {
  const std::string bad = R"JSON({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
     "args": {"Input Dims": [[2, 3], [3, 4]], "Concrete Inputs": "oops"}}]})JSON";
  auto t = ReadKinetoTraceFromString(bad, "inline.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->cpu_ops.size(), 1u);
  EXPECT_EQ(t->cpu_ops[0].concrete_inputs, kNoString);
  EXPECT_FALSE(t->diagnostics.empty());  // counted as a bad arg type, the event is kept
}

}  // namespace
}  // namespace kineto_op_args_test
}  // namespace ampscope
