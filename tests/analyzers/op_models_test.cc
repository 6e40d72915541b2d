// Tests of analyzers/roofline/op_models: every expected FLOP and byte count is worked out by hand
// in the comment next to it (a multiply-add is 2 FLOP; bytes = each input read once + each output
// written once). GEMM/attention conventions are TraceLens's (bias adds M·N FLOP and N elements;
// causal attention counts half); dgrad and wgrad of a convolution each cost what the forward does
// (PyTorch's torch/utils/flop_counter.py conv_backward_flop).
#include <string>

#include <gtest/gtest.h>

#include "analyzers/roofline/op_models.h"
#include "analyzers/roofline/op_table.h"
#include "trace/classify/host_roles.h"

namespace ampscope::roofline {
namespace op_models_test {
namespace {

OpArgs Args(const std::string& dims, const std::string& types, const std::string& concrete = "") {
  auto a = ParseOpArgs(dims, types, "", concrete);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? a.value() : OpArgs();
}

TEST(OpArgs, ParsesTheRecordedTexts) {
  auto a = ParseOpArgs("[[16,16,559,64],[],[[2,3],[2,3]]]", R"(["c10::BFloat16","Scalar","TensorList"])",
                       "[[572416,35776,64,1],[],[]]", R"(["","0.",null,1])");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->dims.size(), 3u);
  EXPECT_EQ(a->dims[0], (std::vector<int64_t>{16, 16, 559, 64}));
  EXPECT_TRUE(a->dims[1].empty());
  EXPECT_TRUE(a->dims[2].empty());  // a TensorList has no single shape
  EXPECT_EQ(a->types[0], "c10::BFloat16");
  EXPECT_TRUE(a->has_strides);
  ASSERT_EQ(a->concrete.size(), 4u);
  EXPECT_EQ(a->concrete[1], "0.");
  EXPECT_EQ(a->concrete[2], "");
  EXPECT_EQ(a->concrete[3], "1");
  EXPECT_FALSE(ParseOpArgs("[[1,2]", "", "", "").ok());
  EXPECT_FALSE(ParseOpArgs("[[1.5]]", "", "", "").ok());
  const OpArgs none = Args("", "");
  EXPECT_FALSE(none.has_concrete);
}

TEST(Dtypes, SizesAndPrecisions) {
  EXPECT_EQ(DtypeOf("c10::BFloat16").bytes, 2);
  EXPECT_EQ(DtypeOf("c10::BFloat16").precision, Precision::kBf16);
  EXPECT_EQ(DtypeOf("c10::Half").precision, Precision::kFp16);
  EXPECT_EQ(DtypeOf("float").bytes, 4);
  EXPECT_EQ(DtypeOf("double").precision, Precision::kFp64);
  EXPECT_EQ(DtypeOf("c10::Float8_e4m3fn").bytes, 1);
  EXPECT_EQ(DtypeOf("long int").bytes, 8);
  EXPECT_EQ(DtypeOf("Scalar").bytes, 0);
  EXPECT_EQ(DtypeOf("GenericList").bytes, 0);
}

TEST(GemmModels, MmAddmmBmmBaddbmmMatmulLinear) {
  // mm [8,16] x [16,32]: 2·8·32·16 = 8192 FLOP; bytes (8·16 + 16·32 + 8·32)·2 = 1792.
  OpCost c = ModelOp("aten::mm", Args("[[8,16],[16,32]]", R"(["c10::Half","c10::Half"])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 8192);
  EXPECT_DOUBLE_EQ(c.bytes, 1792);
  EXPECT_EQ(c.precision, Precision::kFp16);
  EXPECT_EQ(c.unit, MathUnit::kMatrix);
  // addmm (bias [32]): + 8·32 = 256 FLOP, + 32·2 bytes.
  c = ModelOp("aten::addmm", Args("[[32],[8,16],[16,32],[],[]]", R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.flop, 8448);
  EXPECT_DOUBLE_EQ(c.bytes, 1856);
  // bmm [4,8,16] x [4,16,32]: 4·8192 = 32768; bytes 4·(128 + 512 + 256)·4 = 14336 (float).
  c = ModelOp("aten::bmm", Args("[[4,8,16],[4,16,32]]", R"(["float","float"])"));
  EXPECT_DOUBLE_EQ(c.flop, 32768);
  EXPECT_DOUBLE_EQ(c.bytes, 14336);
  // baddbmm: 4·(8192 + 256) = 33792.
  c = ModelOp("aten::baddbmm", Args("[[4,8,32],[4,8,16],[4,16,32],[],[]]", R"(["float","float","float","Scalar","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.flop, 33792);
  // matmul [2,3,8,16] x [16,32] broadcasts to 6 batches: 6·8192 = 49152.
  c = ModelOp("aten::matmul", Args("[[2,3,8,16],[16,32]]", R"(["float","float"])"));
  EXPECT_DOUBLE_EQ(c.flop, 49152);
  // linear x [2,4,16], w [32,16], b [32]: M = 8, 2·8·32·16 + 8·32 = 8448.
  c = ModelOp("aten::linear", Args("[[2,4,16],[32,16],[32]]", R"(["float","float","float"])"));
  EXPECT_DOUBLE_EQ(c.flop, 8448);
  c = ModelOp("aten::linear", Args("[[2,4,16],[32,16],[]]", R"(["float","float",""])"));
  EXPECT_DOUBLE_EQ(c.flop, 8192);
  // Shapes that do not multiply: unknown with the reason, nothing guessed.
  c = ModelOp("aten::mm", Args("[[8,16],[15,32]]", R"(["float","float"])"));
  EXPECT_FALSE(c.known);
  EXPECT_NE(c.note.find("inner dimensions"), std::string::npos);
}

TEST(ConvModels, ForwardDgradWgradByHand) {
  // x [8,3,32,32], w [16,3,3,3], bias [16], stride 1, padding 1 -> out [8,16,32,32] (131072 elements).
  // Forward: 2 · 131072 · (3·3·3) = 7077888, + bias 131072 = 7208960.
  // Bytes (float): (24576 + 432 + 16 + 131072) · 4 = 624384.
  const std::string types = R"(["float","float","float","ScalarList","ScalarList","ScalarList","Bool","ScalarList","Int"])";
  OpCost c = ModelOp("aten::convolution", Args("[[8,3,32,32],[16,3,3,3],[16],[],[],[],[],[],[]]", types,
                                               R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 7208960);
  EXPECT_DOUBLE_EQ(c.bytes, 624384);
  EXPECT_EQ(c.family, OpFamily::kConvFwd);
  // Stride 2: out 16x16 (32768 elements): 2 · 32768 · 27 = 1769472, + 32768.
  c = ModelOp("aten::convolution", Args("[[8,3,32,32],[16,3,3,3],[16],[],[],[],[],[],[]]", types,
                                        R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"])"));
  EXPECT_DOUBLE_EQ(c.flop, 1769472 + 32768);
  // Grouped (depthwise) conv: x [1,8,10,10], w [8,1,3,3], groups 8, padding 1: out [1,8,10,10] = 800,
  // 2 · 800 · 9 = 14400 (w[1] is C_in/groups).
  c = ModelOp("aten::convolution", Args("[[1,8,10,10],[8,1,3,3],[],[],[],[],[],[],[]]", types,
                                        R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","8"])"));
  EXPECT_DOUBLE_EQ(c.flop, 14400);

  // convolution_backward(grad_output [8,16,32,32], input, weight, bias_sizes, stride, padding,
  // dilation, transposed, output_padding, groups, output_mask):
  // dgrad 7077888 + wgrad 7077888 = 14155776; with the bias gradient + 131072.
  const std::string bwd_dims = "[[8,16,32,32],[8,3,32,32],[16,3,3,3],[],[],[],[],[],[],[],[]]";
  const std::string bwd_types =
      R"(["float","float","float","ScalarList","ScalarList","ScalarList","ScalarList","Bool","ScalarList","Int","BoolList"])";
  auto bwd = [&](const char* mask) {
    return ModelOp("aten::convolution_backward",
                   Args(bwd_dims, bwd_types,
                        std::string(R"(["","","","[16]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1",")") + mask +
                            "\"]"));
  };
  c = bwd("[True, True, False]");
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 14155776);
  EXPECT_TRUE(c.backward);
  EXPECT_DOUBLE_EQ(bwd("[True, True, True]").flop, 14155776 + 131072);
  EXPECT_DOUBLE_EQ(bwd("[False, True, False]").flop, 7077888);  // the first layer: no dgrad
  // Bytes of dgrad + wgrad: 2 · (131072 + 432 + 24576) · 4 = 1248640.
  EXPECT_DOUBLE_EQ(c.bytes, 1248640);
}

TEST(ConvModels, TheTwentyTwentyOneFormatNeedsTheOutputShapeFromTheTrace) {
  // aten::cudnn_convolution(self, weight, padding, stride, dilation, groups, ...), no Concrete Inputs
  // (PyTorch 1.9): stride/padding are not recorded.
  const std::string dims = "[[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]]";
  const std::string types = R"(["float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])";
  OpCost c = ModelOp("aten::cudnn_convolution", Args(dims, types));
  EXPECT_FALSE(c.known);
  EXPECT_NE(c.note.find("not recorded"), std::string::npos);
  // With the output shape from the trace (ResNet's 7x7/2 stem: 224 -> 112):
  // 2 · (32·64·112·112 = 25690112) · (3·7·7 = 147) = 7552892928.
  OpHints h;
  h.conv_output = {32, 64, 112, 112};
  c = ModelOp("aten::cudnn_convolution", Args(dims, types), h);
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 7552892928.0);
  EXPECT_NE(c.note.find("taken from the trace"), std::string::npos);
  // A shape that does not fit the input is refused.
  h.conv_output = {16, 64, 112, 112};
  EXPECT_FALSE(ModelOp("aten::cudnn_convolution", Args(dims, types), h).known);

  // cudnn_convolution_backward(self, grad_output, weight, ...): the children say which grads ran.
  const std::string bdims = "[[32,64,56,56],[32,256,56,56],[256,64,1,1],[],[],[],[],[],[],[],[]]";
  const std::string btypes =
      R"(["float","float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool","GenericList"])";
  // one grad: 2 · (32·256·56·56 = 25690112) · 64 = 3288334336
  OpHints wgrad_only;
  wgrad_only.grad_input = 0;
  wgrad_only.grad_weight = 1;
  c = ModelOp("aten::cudnn_convolution_backward", Args(bdims, btypes), wgrad_only);
  EXPECT_DOUBLE_EQ(c.flop, 3288334336.0);
  // Mask unknown: both, as TraceLens counts them, and the note says so.
  c = ModelOp("aten::cudnn_convolution_backward", Args(bdims, btypes));
  EXPECT_DOUBLE_EQ(c.flop, 2 * 3288334336.0);
  EXPECT_NE(c.note.find("output_mask not recorded"), std::string::npos);
}

TEST(ConvModels, OutputSize) {
  EXPECT_EQ(ConvOutputSize(224, 7, 2, 3, 1), 112);
  EXPECT_EQ(ConvOutputSize(56, 3, 1, 1, 1), 56);
  EXPECT_EQ(ConvOutputSize(56, 1, 2, 0, 1), 28);
  EXPECT_EQ(ConvOutputSize(7, 3, 1, 0, 2), 3);  // dilation 2: effective kernel 5
}

TEST(AttentionModels, CausalAndNonCausalForwardAndBackward) {
  // q, k, v [B=2, H=4, N=128, d=64]. One Q·K^T = 2·B·H·N·N·d = 2·2·4·128·128·64 = 16777216.
  // Forward = Q·K^T + P·V = 33554432; causal half = 16777216.
  // Bytes (bf16): q, k, v, out = 4 · (2·4·128·64 = 65536) · 2 = 524288.
  const std::string dims = "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]]";
  const std::string types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])";
  auto fwd = [&](const char* causal) {
    return ModelOp("aten::_scaled_dot_product_flash_attention",
                   Args(dims, types, std::string(R"(["","","","0.",")") + causal + R"(","False","0.125"])"));
  };
  OpCost c = fwd("False");
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 33554432);
  EXPECT_DOUBLE_EQ(c.bytes, 524288);
  EXPECT_EQ(c.precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(fwd("True").flop, 16777216);
  // No Concrete Inputs: is_causal unknown, so the FLOPs are unknown.
  EXPECT_FALSE(ModelOp("aten::_scaled_dot_product_flash_attention", Args(dims, types)).known);

  // Backward (grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
  // is_causal, ...): recompute Q·K^T, dV, dP, dQ, dK = 5 · 16777216 = 83886080, of which the
  // recompute is 16777216; causal halves both.
  const std::string bdims = "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[2,4,128,64],[2,4,128,64],[2,4,128],[],[],[],[],[],[],[],[]]";
  const std::string btypes = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","","","Int","Int","Double","Bool","",""])";
  auto bwd = [&](const char* causal) {
    return ModelOp("aten::_scaled_dot_product_flash_attention_backward",
                   Args(bdims, btypes, std::string(R"(["","","","","","","","","128","128","0.",")") + causal + R"(","",""])"));
  };
  c = bwd("False");
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 83886080);
  EXPECT_DOUBLE_EQ(c.recompute_flop, 16777216);
  EXPECT_TRUE(c.backward);
  EXPECT_EQ(c.family, OpFamily::kAttentionBwd);
  c = bwd("True");
  EXPECT_DOUBLE_EQ(c.flop, 41943040);
  EXPECT_DOUBLE_EQ(c.recompute_flop, 8388608);
  // Bytes: q, k, v, dO read and dq, dk, dv written = 7 · 65536 · 2 = 917504.
  EXPECT_DOUBLE_EQ(c.bytes, 917504);

  // GQA: H_Q = 8, H_KV = 2 (enable_gqa). Forward 2·2·8·128·128·(64+64) = 67108864.
  // Backward adds the head reduction of dK and dV: B·N_KV·(d_v + d_qk)·(H_Q/H_KV − 1)
  // = 2·128·128·3 = 98304 on top of 5 · 33554432 = 167772160.
  const std::string gq = "[[2,8,128,64],[2,8,128,64],[2,2,128,64],[2,2,128,64],[2,8,128,64],[2,8,128],[],[],[],[],[],[],[],[]]";
  c = ModelOp("aten::_scaled_dot_product_flash_attention_backward",
              Args(gq, btypes, R"(["","","","","","","","","128","128","0.","False","",""])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 167772160 + 98304);
  // The public op: scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa).
  c = ModelOp("aten::scaled_dot_product_attention",
              Args("[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[],[]]",
                   R"(["float","float","float","","Double","Bool","",""])", R"(["","","","","0.","True","","False"])"));
  EXPECT_DOUBLE_EQ(c.flop, 16777216);
  // Causal with N_Q != N_KV (decode with a KV cache): TraceLens has no formula either.
  c = ModelOp("aten::scaled_dot_product_attention",
              Args("[[2,4,1,64],[2,4,128,64],[2,4,128,64],[],[],[],[],[]]", R"(["float","float","float","","Double","Bool","",""])",
                   R"(["","","","","0.","True","","False"])"));
  EXPECT_FALSE(c.known);
}

// Issue 32: a Python number is recorded as a 0-d "double" tensor (OWLv2's aten::mul
// [[1, 5185, 4096], []] with types ["c10::BFloat16", "double"]): it was counted as an 8-byte
// output dtype, 2.5x the bytes, and the op showed 206% of the memory roof.
TEST(MemoryBoundModels, ZeroDimOperandIsAScalar) {
  // bf16 [1024, 512] x double 0-d: read 524288·2, write 524288·2 = 2,097,152 bytes.
  OpCost c = ModelOp("aten::mul", Args("[[1024,512],[]]", R"(["c10::BFloat16","double"])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 524288);
  EXPECT_DOUBLE_EQ(c.bytes, 2097152);
  // The 0-d operand first (rsub-like): the same bytes, the output in the dimensioned dtype.
  c = ModelOp("aten::mul", Args("[[],[1024,512]]", R"(["float","c10::Half"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 2097152);
  // A broadcast operand is read at its own size: half [64, 256] + half [256]:
  // 16384·2 + 256·2 + 16384·2 = 66,048 bytes.
  c = ModelOp("aten::add", Args("[[64,256],[256],[]]", R"(["c10::Half","c10::Half","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 66048);
  // copy_ from a broadcast source (expand then copy): write [64, 256] half, read [256] float:
  // 16384·2 + 256·4 = 33,792 bytes.
  c = ModelOp("aten::copy_", Args("[[64,256],[256],[]]", R"(["c10::Half","float","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 33792);
}

TEST(MemoryBoundModels, ElementwiseReductionsNormsSoftmaxEmbedding) {
  // add [4,8] + [8] float: 32 FLOP; bytes 32·4 + 8·4 + 32·4 = 288.
  OpCost c = ModelOp("aten::add", Args("[[4,8],[8],[]]", R"(["float","float","Scalar"])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 32);
  EXPECT_DOUBLE_EQ(c.bytes, 288);
  EXPECT_EQ(c.unit, MathUnit::kVector);
  // mul by a Scalar, half: 32 FLOP; read 32·2 and write 32·2 = 128 (the scalar is passed by value).
  c = ModelOp("aten::mul", Args("[[4,8],[]]", R"(["c10::Half","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 128);
  // copy_(self half [10], src float [10]): a cast, 10·2 + 10·4 = 60 bytes.
  c = ModelOp("aten::copy_", Args("[[10],[10],[]]", R"(["c10::Half","float","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 60);
  // fill_ [100] float: write only, 400 bytes, no FLOP.
  c = ModelOp("aten::fill_", Args("[[100],[]]", R"(["float","Scalar"])"));
  EXPECT_DOUBLE_EQ(c.flop, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 400);
  // mean over dim -1 of [4,8] float: read 128, write 4·4 = 16 -> 144; 32 FLOP.
  c = ModelOp("aten::mean", Args("[[4,8],[],[],[]]", R"(["float","ScalarList","Bool",""])", R"(["","[-1]","True",""])"));
  EXPECT_DOUBLE_EQ(c.flop, 32);
  EXPECT_DOUBLE_EQ(c.bytes, 144);
  // Without Concrete Inputs the reduced dims are unknown: the input read only, and it says so.
  c = ModelOp("aten::mean", Args("[[4,8],[],[],[]]", R"(["float","ScalarList","Bool",""])"));
  EXPECT_DOUBLE_EQ(c.bytes, 128);
  EXPECT_NE(c.note.find("lower bound"), std::string::npos);
  // layer_norm [4,8] over [8], weight and bias, half: 7 FLOP per element = 224; bytes
  // 2·32·2 (x, y) + 2·8·2 (weight, bias) = 160.
  c = ModelOp("aten::layer_norm", Args("[[4,8],[],[8],[8],[],[]]", R"(["c10::Half","ScalarList","c10::Half","c10::Half","Double","Bool"])",
                                       R"(["","[8]","","","1e-05","True"])"));
  ASSERT_TRUE(c.known) << c.note;
  EXPECT_DOUBLE_EQ(c.flop, 224);
  EXPECT_DOUBLE_EQ(c.bytes, 160);
  EXPECT_EQ(c.family, OpFamily::kNorm);
  // RMS norm (TraceLens): rows·(2C + 2) + 2 per element with a weight = 4·18 + 64 = 136.
  c = ModelOp("aten::rms_norm", Args("[[4,8],[],[8],[]]", R"(["float","ScalarList","float","Double"])", R"(["","[8]","",""])"));
  EXPECT_DOUBLE_EQ(c.flop, 136);
  // softmax [4,8] float (TraceLens): 3 FLOP per element = 96; read + write = 256.
  c = ModelOp("aten::_softmax", Args("[[4,8],[],[]]", R"(["float","Int","Bool"])"));
  EXPECT_DOUBLE_EQ(c.flop, 96);
  EXPECT_DOUBLE_EQ(c.bytes, 256);
  // embedding weight [1000,64] half, indices [4,16] long: gather 64 rows and write them
  // (2·64·64·2 = 16384) + read the ids (64·8 = 512) = 16896.
  c = ModelOp("aten::embedding", Args("[[1000,64],[4,16],[],[],[]]", R"(["c10::Half","long int","Int","Bool","Bool"])"));
  EXPECT_DOUBLE_EQ(c.bytes, 16896);
  EXPECT_EQ(c.family, OpFamily::kEmbedding);
}

TEST(OpModels, UnknownIsNeverGuessed) {
  OpCost c = ModelOp("aten::frobnicate", Args("[[4,8]]", R"(["float"])"));
  EXPECT_FALSE(c.known);
  EXPECT_NE(c.note.find("no model"), std::string::npos);
  EXPECT_FALSE(HasOpModel("aten::frobnicate"));
  EXPECT_TRUE(HasOpModel("aten::mm"));
  c = ModelOp("aten::mm", Args("", ""));
  EXPECT_FALSE(c.known);
  EXPECT_NE(c.note.find("record_shapes"), std::string::npos);
}

// The op table keeps its own GEMM rows (formula and argument positions: bmm's batch, matmul's
// broadcasting) rather than classify/'s three operand forms; where both know an op, they must
// agree on where A and B sit in "Input Dims" (ClassifyGemmOp's forms, trace/classify/host_roles.h).
TEST(OpTable, GemmRowsAgreeWithClassifyGemmOp) {
  struct Case {
    const char* op;
    GemmOpForm form;
  };
  const Case kCases[] = {{"aten::mm", GemmOpForm::kAB},          {"aten::bmm", GemmOpForm::kAB},
                         {"aten::matmul", GemmOpForm::kAB},      {"aten::addmm", GemmOpForm::kBiasAB},
                         {"aten::baddbmm", GemmOpForm::kBiasAB}, {"aten::linear", GemmOpForm::kLinear}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.op);
    const detail::OpSpec* spec = detail::FindOpSpec(c.op);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->family, OpFamily::kGemm);
    EXPECT_EQ(ClassifyGemmOp(c.op), c.form);
    switch (c.form) {
      case GemmOpForm::kAB:  // (A, B)
      case GemmOpForm::kLinear:  // (x, w)
        EXPECT_EQ(spec->x, 0);
        EXPECT_EQ(spec->w, 1);
        break;
      case GemmOpForm::kBiasAB:  // (bias, A, B)
        EXPECT_EQ(spec->v, 0);
        EXPECT_EQ(spec->x, 1);
        EXPECT_EQ(spec->w, 2);
        break;
      case GemmOpForm::kNone: break;
    }
  }
}

}  // namespace
}  // namespace op_models_test
}  // namespace ampscope::roofline
