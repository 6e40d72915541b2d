// The one place that says which NVIDIA architectures have bf16 and TF32 Tensor Cores
// (base/tensor_cores.h). Expected values from NVIDIA's architecture whitepapers: Volta (sm70)
// and Turing (sm75) Tensor Cores take fp16 only; Ampere (sm80, A100; sm86, GA10x) added bf16 and
// TF32, which Ada (sm89), Hopper (sm90) and Blackwell (sm100, sm120) keep.
#include <gtest/gtest.h>

#include "base/tensor_cores.h"

namespace ampscope {
namespace tensor_cores_test {
namespace {

TEST(TensorCores, Bf16AndTf32FromSm80On) {
  for (int major : {5, 6, 7}) {
    EXPECT_FALSE(HasBf16TensorCores(major)) << major;
    EXPECT_FALSE(HasTf32TensorCores(major)) << major;
  }
  for (int major : {8, 9, 10, 12}) {
    EXPECT_TRUE(HasBf16TensorCores(major)) << major;
    EXPECT_TRUE(HasTf32TensorCores(major)) << major;
  }
  EXPECT_EQ(Bf16TensorCoreArch(), "sm80");
}

TEST(TensorCores, APeakRowWithoutACapabilityHasBf16WhenItHasTf32) {
  EXPECT_TRUE(RowHasBf16TensorCores(156, false));   // A100: TF32 156 TFLOP/s
  EXPECT_FALSE(RowHasBf16TensorCores(0, false));    // V100: no TF32
  EXPECT_FALSE(RowHasBf16TensorCores(156, true));   // a row that says "no bf16"
}

}  // namespace
}  // namespace tensor_cores_test
}  // namespace ampscope
