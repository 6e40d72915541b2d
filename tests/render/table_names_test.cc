// Issue 36: text tables keep multi-line cells in their columns, and kernel names that a narrow
// column or the short-name rules would make look alike stay apart. Names and widths are chosen
// here by hand; the expected texts are hand-derived from the rules in render/kernel_names.h and
// render/text_table.h.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "render/kernel_names.h"
#include "render/text_table.h"

namespace ampscope::render {
namespace table_names_test {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TableNames, AMultiLineCellThatFitsKeepsTheOtherColumnsOnItsFirstLine) {
  TextTable t({TextTable::Column{"name", TextTable::Align::kLeft, TextTable::Overflow::kWrap, 8, true, 0},
               TextTable::Column{"time", TextTable::Align::kRight, TextTable::Overflow::kKeep, 8, false, 0}});
  t.AddRow({"fused_adam_step<bf16>\n  optimizer bf16", "12.5 ms"});
  TableStyle style;
  style.width = 100;
  const std::vector<std::string> lines = Lines(t.Render(style));
  ASSERT_EQ(lines.size(), 3u) << t.Render(style);  // header, name + time, class
  // The column is as wide as the widest line (21), not the two lines together.
  EXPECT_EQ(lines[1], "fused_adam_step<bf16>  12.5 ms");
  EXPECT_EQ(lines[2], "  optimizer bf16");
}

TEST(TableNames, DistinctKernelsWithOneShortNameAreToldApart) {
  // Two instances of one template differing in integer arguments (dropped by the short name),
  // and the first again: the same kernel keeps the same name.
  const std::vector<std::string> full = {"void my_conv_kernel<float, 64, 3>(float*)", "void my_conv_kernel<float, 128, 5>(float*)",
                                         "void my_conv_kernel<float, 64, 3>(float*)", "rms_norm_fwd"};
  const std::vector<std::string> shown = DistinctShortNames(full);
  ASSERT_EQ(shown.size(), 4u);
  EXPECT_EQ(shown[0], "my_conv_kernel<float> [64 3]");
  EXPECT_EQ(shown[1], "my_conv_kernel<float> [128 5]");
  EXPECT_EQ(shown[2], shown[0]);
  EXPECT_EQ(shown[3], "rms_norm_fwd");
}

TEST(TableNames, NarrowNameColumnKeepsThePartThatDiffers) {
  // 24 columns for names of 44-50: cut in the head, the functor kept; names that would still
  // read the same are cut where they part.
  TextTable t({TextTable::Column{"KERNEL", TextTable::Align::kLeft, TextTable::Overflow::kTruncateHead, 8, true, 0}});
  const std::vector<std::string> names = {"vectorized_elementwise_kernel<FillFunctor<half>>",
                                          "vectorized_elementwise_kernel<MulFunctor<half>>",
                                          "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128",
                                          "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128"};
  for (const std::string& n : names) t.AddRow({n});
  TableStyle style;
  style.width = 24;
  const std::vector<std::string> lines = Lines(t.Render(style));
  ASSERT_EQ(lines.size(), 5u);  // header, 4 rows
  std::set<std::string> seen;
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), 24u + 2) << lines[i];  // "…" is 3 bytes, 1 column
    EXPECT_TRUE(seen.insert(lines[i]).second) << lines[i];
  }
  // The functors (19 columns with "<") leave the head under 6 columns, so the head keeps 8 and the
  // name's last 15 ("lFunctor<half>>") follow: the same for both. Cut again where they part (after
  // "kernel<"): 4 columns of the start, "…", then the rest.
  EXPECT_EQ(lines[1], "vect…FillFunctor<half>>");
  EXPECT_EQ(lines[2], "vect…MulFunctor<half>>");
  EXPECT_NE(lines[3].find("128x128"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("256x128"), std::string::npos) << lines[4];
}

}  // namespace
}  // namespace table_names_test
}  // namespace ampscope::render
