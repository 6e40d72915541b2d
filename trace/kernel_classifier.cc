// The kernel classifier: one ordered pattern table (kRules) plus a type-tag pass for precision.
//
// How a name is classified (docs/classifier.md has the full story):
//   1. The first row of kRules whose pattern matches decides the category, the Tensor Core use,
//      whether the kernel is a CUDA-core ("SIMT") GEMM/conv, and how the precision is found.
//   2. The precision comes from the row: either fixed (the family implies it, e.g. sgemm = fp32,
//      hmma = fp16), or read from the name's type tags (f16, bf16, tf32, c10::Half, __nv_bfloat16,
//      cutlass::half_t, float, ...; the first tag in the name wins, because every naming scheme we
//      know lists the input type first), with the row's precision as the fallback when the name
//      carries no tag; or decoded from a family's own code (cuBLASLt nvjet_<abc>, Tensile Cijk_).
//   3. No row matches: category "other", no Tensor Cores, precision from the type tags.
//
// Everything here works on string_views of the name: no allocation, no std::regex. The name is
// scanned once for all table strings (an Aho-Corasick automaton built on first use) and once for
// type tags; ampscope also classifies each distinct name once and caches the result by StringId.
#include "trace/kernel_classifier.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

namespace ampscope {

const char* KernelCategoryName(KernelCategory c) {
  switch (c) {
    case KernelCategory::kGemm: return "gemm";
    case KernelCategory::kConv: return "conv";
    case KernelCategory::kAttention: return "attention";
    case KernelCategory::kElementwise: return "elementwise";
    case KernelCategory::kReduction: return "reduction";
    case KernelCategory::kNormalization: return "normalization";
    case KernelCategory::kSoftmax: return "softmax";
    case KernelCategory::kCast: return "cast";
    case KernelCategory::kOptimizer: return "optimizer";
    case KernelCategory::kAmpScaler: return "amp_scaler";
    case KernelCategory::kCommunication: return "communication";
    case KernelCategory::kMemcpyLike: return "memcpy_like";
    case KernelCategory::kLayoutTransform: return "layout_transform";
    case KernelCategory::kTritonFused: return "triton_fused";
    case KernelCategory::kOther:
    case KernelCategory::kCount: break;
  }
  return "other";
}

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp8: return "fp8";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kTf32: return "tf32";
    case Precision::kFp32: return "fp32";
    case Precision::kFp64: return "fp64";
    case Precision::kInt8: return "int8";
    case Precision::kUnknown:
    case Precision::kCount: break;
  }
  return "unknown";
}

const char* TensorCoreUseName(TensorCoreUse t) {
  switch (t) {
    case TensorCoreUse::kYes: return "yes";
    case TensorCoreUse::kNo: return "no";
    case TensorCoreUse::kUnknown: break;
  }
  return "unknown";
}

namespace {

using Cat = KernelCategory;
using P = Precision;
using Tc = TensorCoreUse;

// ---------------------------------------------------------------------------------------
// Type tags

inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A tag's meaning: a precision, or "neutral" (a valid tag that says nothing about the math
// precision: accumulator/integer index types, block-scale factor types).
struct Tag {
  std::string_view text;
  Precision precision;
  bool neutral;
};

// Whole words that name a type (C++ type names split at '::' and '_', and short tags).
// Case-sensitive on purpose: "Half"/"BFloat16" are c10 types, "FP8" in a function name is not a type.
// fp4/fp6 formats map to fp8 and int4 to int8 ("8-bit or narrower"): the Precision enum stops at 8 bits.
constexpr Tag kWordTags[] = {
    {"half", P::kFp16, false},       {"Half", P::kFp16, false},       {"half2", P::kFp16, false},
    {"float16", P::kFp16, false},    {"fp16", P::kFp16, false},       {"f16", P::kFp16, false},
    {"bfloat16", P::kBf16, false},   {"BFloat16", P::kBf16, false},   {"bfloat162", P::kBf16, false},
    {"bf16", P::kBf16, false},       {"tfloat32", P::kTf32, false},   {"tf32", P::kTf32, false},
    {"xf32", P::kTf32, false},       {"float", P::kFp32, false},      {"Float", P::kFp32, false},
    {"float32", P::kFp32, false},    {"float2", P::kFp32, false},     {"float4", P::kFp32, false},
    {"fp32", P::kFp32, false},       {"f32", P::kFp32, false},        {"double", P::kFp64, false},
    {"double2", P::kFp64, false},    {"float64", P::kFp64, false},    {"fp64", P::kFp64, false},
    {"f64", P::kFp64, false},        {"Float8", P::kFp8, false},      {"float8", P::kFp8, false},
    {"fp8", P::kFp8, false},         {"f8", P::kFp8, false},          {"e4m3", P::kFp8, false},
    {"e5m2", P::kFp8, false},        {"e4m3fn", P::kFp8, false},      {"e4m3fnuz", P::kFp8, false},
    {"e5m2fnuz", P::kFp8, false},    {"e2m1", P::kFp8, false},        {"e2m3", P::kFp8, false},
    {"e3m2", P::kFp8, false},        {"fp4", P::kFp8, false},         {"nvfp4", P::kFp8, false},
    {"mxfp4", P::kFp8, false},       {"mxfp8", P::kFp8, false},       {"fp6", P::kFp8, false},
    {"int8", P::kInt8, false},       {"qint8", P::kInt8, false},      {"uint8", P::kInt8, false},
    {"s8", P::kInt8, false},         {"i8", P::kInt8, false},         {"u8", P::kInt8, false},
    {"int4", P::kInt8, false},       {"s4", P::kInt8, false},         {"u4", P::kInt8, false},
    {"ue8m0", P::kUnknown, true},    {"ue4m3", P::kUnknown, true},    {"s32", P::kUnknown, true},
    {"i32", P::kUnknown, true},
};

// Short tags that may be written back to back inside one word: xmma's "f16f16_f16f32_f32",
// "tf32f32", "bf16bf16", "i8i8_i8i32"; block-scaled CUTLASS's "ue8m0xe4m3" ('x' joins a scale
// type and an element type).
constexpr Tag kConcatTags[] = {
    {"bf16", P::kBf16, false},  {"tf32", P::kTf32, false}, {"f16", P::kFp16, false},
    {"f32", P::kFp32, false},   {"f64", P::kFp64, false},  {"e4m3", P::kFp8, false},
    {"e5m2", P::kFp8, false},   {"e2m1", P::kFp8, false},  {"ue8m0", P::kUnknown, true},
    {"ue4m3", P::kUnknown, true}, {"s8", P::kInt8, false}, {"i8", P::kInt8, false},
    {"u8", P::kInt8, false},    {"s32", P::kUnknown, true}, {"i32", P::kUnknown, true},
    {"s4", P::kInt8, false},    {"u4", P::kInt8, false},
};

enum class WordType : uint8_t { kNotATag, kNeutral, kPrecision };

constexpr size_t kWordTagCount = sizeof(kWordTags) / sizeof(kWordTags[0]);
constexpr size_t kLongestWordTag = 9;  // "bfloat162"

// kWordTags sorted by text, for a binary search per word (the tag pass looks at every word).
const std::array<Tag, kWordTagCount>& SortedWordTags() {
  static const std::array<Tag, kWordTagCount> sorted = [] {
    std::array<Tag, kWordTagCount> a{};
    for (size_t i = 0; i < kWordTagCount; ++i) a[i] = kWordTags[i];
    std::sort(a.begin(), a.end(), [](const Tag& x, const Tag& y) { return x.text < y.text; });
    return a;
  }();
  return sorted;
}

// Classifies one word. `next_word` lets "float_e4m3_t" (cutlass::float_e4m3_t) read as fp8.
WordType WordPrecision(std::string_view word, std::string_view next_word, Precision* out) {
  if (word.size() <= kLongestWordTag) {
    const auto& tags = SortedWordTags();
    auto it = std::lower_bound(tags.begin(), tags.end(), word,
                               [](const Tag& t, std::string_view w) { return t.text < w; });
    if (it != tags.end() && it->text == word) {
      if (it->text == "float" && (next_word == "e4m3" || next_word == "e5m2")) {
        *out = P::kFp8;
        return WordType::kPrecision;
      }
      if (it->neutral) return WordType::kNeutral;
      *out = it->precision;
      return WordType::kPrecision;
    }
  }
  // Concatenated short tags: the whole word must decompose. Every short tag starts with one of these.
  constexpr std::string_view kConcatFirst = "btfeusi";
  if (word.size() < 2 || kConcatFirst.find(word[0]) == std::string_view::npos) return WordType::kNotATag;
  Precision first = P::kUnknown;
  bool any_tag = false;
  size_t i = 0;
  while (i < word.size()) {
    if (any_tag && word[i] == 'x' && i + 1 < word.size()) {  // scale 'x' element joiner
      ++i;
      continue;
    }
    bool matched = false;
    for (const Tag& t : kConcatTags) {
      if (word.substr(i, t.text.size()) == t.text) {
        if (!t.neutral && first == P::kUnknown) first = t.precision;
        i += t.text.size();
        matched = any_tag = true;
        break;
      }
    }
    if (!matched) return WordType::kNotATag;
  }
  if (!any_tag) return WordType::kNotATag;
  if (first == P::kUnknown) return WordType::kNeutral;
  *out = first;
  return WordType::kPrecision;
}

// Iterates the words (maximal runs of [A-Za-z0-9]) of a name.
class WordIterator {
 public:
  explicit WordIterator(std::string_view s) : s_(s) {}
  // Next word, or an empty view at the end.
  std::string_view Next() {
    while (pos_ < s_.size() && !IsWordChar(s_[pos_])) ++pos_;
    size_t start = pos_;
    while (pos_ < s_.size() && IsWordChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// In an Itanium-mangled name ("_ZN7cutlass...10tfloat32_tE...") a type name is preceded by its
// length; strip the digits so "10tfloat32" reads as "tfloat32".
std::string_view StripLengthPrefix(std::string_view word) {
  size_t i = 0;
  while (i < word.size() && IsDigit(word[i])) ++i;
  return word.substr(i);
}

// The first type tag in the name (kUnknown if none). float_only ignores integer tags.
Precision PrecisionFromTags(std::string_view name, bool float_only) {
  const bool mangled = name.substr(0, 2) == "_Z";
  WordIterator it(name);
  std::string_view word = it.Next();
  while (!word.empty()) {
    std::string_view next = it.Next();
    std::string_view w = mangled ? StripLengthPrefix(word) : word;
    Precision p;
    if (!w.empty() && WordPrecision(w, next, &p) == WordType::kPrecision) {
      if (!(float_only && p == P::kInt8)) return p;
    }
    word = next;
  }
  return P::kUnknown;
}

bool HasWord(std::string_view name, std::string_view word) {
  size_t pos = name.find(word);
  while (pos != std::string_view::npos) {
    bool left_ok = pos == 0 || !IsWordChar(name[pos - 1]);
    size_t end = pos + word.size();
    bool right_ok = end == name.size() || !IsWordChar(name[end]);
    if (left_ok && right_ok) return true;
    pos = name.find(word, pos + 1);
  }
  return false;
}

// cuBLASLt nvjet_[smNN_]<abc>_...: the letters code the A/B/C types. Observed: hsh (fp16),
// tst/tss (bf16), sss_tf32 (tf32), qqtst/qqhsh (fp8 inputs). 's' inputs without a tf32 tag are left
// unknown: we have not seen such a name and will not guess.
Precision NvjetPrecision(std::string_view name) {
  WordIterator it(name);
  std::string_view w = it.Next();  // "nvjet"
  for (w = it.Next(); !w.empty(); w = it.Next()) {
    if (w.size() > 2 && w[0] == 's' && w[1] == 'm' && IsDigit(w[2])) continue;  // sm90, sm100
    break;
  }
  if (w.empty()) return P::kUnknown;
  switch (w[0]) {
    case 'h': return P::kFp16;
    case 't': return P::kBf16;
    case 'q':
    case 'o':
    case 'e': return P::kFp8;
    case 'i': return P::kInt8;
    case 'd': return P::kFp64;
    case 's': return HasWord(name, "tf32") ? P::kTf32 : P::kUnknown;
    default: return PrecisionFromTags(name, false);
  }
}

// Tensile (rocBLAS/hipBLASLt) Cijk_<A>_<B>_<types>_...: the first letter of the type word is the
// input type (S single, D double, H half, B bf16, X xf32, I int8, F8 fp8, C/Z complex).
Precision TensilePrecision(std::string_view name) {
  WordIterator it(name);
  it.Next();  // "Cijk"
  std::string_view a = it.Next();
  std::string_view b = it.Next();
  std::string_view types = it.Next();
  if (a.empty() || b.empty() || types.empty()) return P::kUnknown;
  if (types.substr(0, 2) == "F8" || types.substr(0, 2) == "B8") return P::kFp8;
  switch (types[0]) {
    case 'S':
    case 'C': return P::kFp32;
    case 'D':
    case 'Z': return P::kFp64;
    case 'H': return P::kFp16;
    case 'B': return P::kBf16;
    case 'X': return P::kTf32;
    case 'I': return P::kInt8;
    default: return P::kUnknown;
  }
}

// ---------------------------------------------------------------------------------------
// The pattern table

enum class Match : uint8_t {
  kPrefix,    // the name (or the name after "void ") starts with the pattern
  kContains,  // the pattern occurs anywhere
  kWord,      // the pattern occurs as a whole word (bounded by non-alphanumerics or the ends)
};

enum class PrecRule : uint8_t {
  kFixed,          // the row's precision, always (the family implies it)
  kTags,           // the first type tag in the name; else the row's precision
  kTagsFloatOnly,  // as kTags, ignoring integer tags (NCCL names int8_t for raw byte transfers)
  kNvjet,          // decode nvjet_<abc>
  kTensile,        // decode Cijk_..._<types>
};

// Category markers for rows whose family does both GEMMs and convolutions (mma codes, tensorop,
// hmma): the kernel is a convolution if the name contains one of these.
constexpr std::string_view kConvMarkers[] = {"fprop", "dgrad", "wgrad", "cudnn", "implicit_gemm",
                                             "convolution", "Convolution", "conv1d", "conv2d",
                                             "conv3d", "Conv"};

struct Rule {
  Match match;
  std::string_view pattern;
  std::string_view also;   // if not empty, must also occur (contains)
  Cat category;
  bool gemm_or_conv;       // category = conv if HasConvMarker(name), else `category`
  PrecRule prec_rule;
  Precision precision;     // fixed value or fallback
  Tc tc;
  bool simt;               // a GEMM/conv doing its math on CUDA cores (flagged when fp32)
  bool rocm;
  bool fused_cast;         // the name shows a fused dtype conversion
};

// Row builders keep the table readable: one line per pattern.
constexpr Rule R(Match m, std::string_view pat, Cat c, PrecRule pr, Precision p, Tc tc,
                 std::string_view also = {}) {
  return Rule{m, pat, also, c, false, pr, p, tc, false, false, false};
}
constexpr Rule Simt(Rule r) { r.simt = true; return r; }
constexpr Rule Rocm(Rule r) { r.rocm = true; return r; }
constexpr Rule GemmOrConv(Rule r) { r.gemm_or_conv = true; return r; }
constexpr Rule FusedCast(Rule r) { r.fused_cast = true; return r; }

constexpr Match kPre = Match::kPrefix;
constexpr Match kSub = Match::kContains;
constexpr Match kWrd = Match::kWord;
constexpr PrecRule kFix = PrecRule::kFixed;
constexpr PrecRule kTag = PrecRule::kTags;

// Ordered: the first matching row wins. Generated names that embed op names (Triton/Inductor)
// and library families come before generic PyTorch substrings; Tensor Core families before
// CUDA-core ones; specific PyTorch kernels (casts, norms) before the elementwise/reduce wrappers
// that contain them.
constexpr Rule kRules[] = {
    // --- Triton / TorchInductor: triton_{poi,red,per}_fused_<ops>_<n>, triton_tem_ (templates),
    // old-style triton__0d1d2d. Tensor Core use depends on tl.dot and the dtype: unknown.
    GemmOrConv(R(kPre, "triton_tem_", Cat::kGemm, kFix, P::kUnknown, Tc::kUnknown)),
    FusedCast(R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown, "_to_copy")),
    FusedCast(R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown, "convert_element_type")),
    R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown),
    R(kPre, "triton", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown),

    // --- ROCm (AMD). CDNA Matrix Cores (MFMA) count as the Tensor Core equivalent: Tensile
    // (rocBLAS/hipBLASLt) kernels name their MFMA instruction (MI<M>x<N>x<K>, e.g. MI16x16x1);
    // MIOpen's igemm "gtcx" (xdlops) and Composable Kernel's "xdl" kernels use MFMA. Tensile
    // kernels without an MI code run on the vector ALUs or cannot be told: unknown.
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI16x16x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI32x32x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI4x4x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kUnknown)),
    // MIOpen tensor ops (SubTensorOpWithCastTensor1d, SubTensorOpWithScalar1d) are elementwise:
    // before the CUTLASS "TensorOp" rows, which would call them Tensor Core GEMMs.
    Rocm(R(kPre, "SubTensorOp", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "batched_transpose_", Cat::kLayoutTransform, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "igemm_", Cat::kConv, kTag, P::kUnknown, Tc::kYes, "gtcx")),
    Rocm(R(kSub, "xdlops", Cat::kConv, kTag, P::kUnknown, Tc::kYes)),
    // ROCm flash attention (Triton/AOTriton attn_fwd / attn_bwd): matrix-unit use depends on tl.dot.
    Rocm(R(kPre, "attn_fwd", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "attn_bwd", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kSub, "MIOpenBatchNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "MIOpenSoftmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "MIOpen", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kSub, "miopen", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "igemm_", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown, "gtc")),
    Rocm(R(kPre, "naive_conv_", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "__amd_rocclr_", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "kernel_gemm_xdl", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    Rocm(GemmOrConv(R(kSub, "_xdl_cshuffle", Cat::kGemm, kTag, P::kUnknown, Tc::kYes))),
    Rocm(R(kPre, "rocblas_", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "hipblaslt", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown)),

    // --- Communication: NCCL/RCCL old ncclKernel_<Coll>_<ALGO>_<PROTO>_<Op>_<type> and new
    // ncclDevKernel_<Coll>_<Op>_<type>_<ALGO>_<PROTO>; NVSHMEM; custom all-reduce kernels.
    R(kPre, "nccl", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),
    R(kSub, "nvshmem", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),
    R(kSub, "cross_device_reduce", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),
    R(kSub, "userbuffers", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),

    // --- Attention. FlashAttention 2 (pytorch_flash::flash_fwd_kernel, flash_fwd_splitkv_kernel,
    // flash_bwd_*), FlashAttention 3 (flash::FlashAttnFwdSm90 ...), mem-efficient (fmha_cutlass*),
    // cuDNN SDPA. Pre/post-processing kernels do no MMA.
    R(kSub, "flash_bwd_dot_do_o", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_bwd_convert_d", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_bwd_clear_d", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "FlashAttnBwdPreprocess", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "FlashAttnBwdPostprocess", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "prepare_varlen_num_blocks", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_fwd", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "flash_bwd", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "FlashAttn", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "flashinfer", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown),
    R(kSub, "fmha", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "sdpa", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),

    // --- xmma (cuBLAS/cuDNN sm75..sm100): sm80_xmma_{gemm,fprop,dgrad,wgrad}_<AB>_<C><acc>_...
    R(kSub, "xmma_fprop", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_dgrad", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_wgrad", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_gemm", Cat::kGemm, kTag, P::kUnknown, Tc::kYes),
    GemmOrConv(R(kSub, "xmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),

    // --- MMA instruction families named in the kernel (fixed precision: the instruction implies it).
    GemmOrConv(R(kSub, "hmma", Cat::kGemm, kFix, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "imma", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "dmma", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "wgmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "gmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),

    // --- Legacy cuBLAS/cuDNN and CUTLASS 2 mma codes: <arch>_[<in>_]<acc><mnk>{gemm,cudnn,fprop,..}
    // (volta_h884gemm, volta_fp16_s884cudnn_fp16, turing_fp16_s1688gemm_fp16, ampere_bf16_s16816gemm_bf16,
    // cutlass_80_tensorop_s1688gemm = TF32, cutlass_80_tensorop_c1688gemm = complex TF32).
    // Type tags win over the fallback (turing_fp16_s1688gemm is fp16, not tf32).
    GemmOrConv(R(kSub, "h884", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "s884", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "i8816", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "h1688", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "s1688", Cat::kGemm, kTag, P::kTf32, Tc::kYes)),
    GemmOrConv(R(kSub, "c1688", Cat::kGemm, kTag, P::kTf32, Tc::kYes)),
    GemmOrConv(R(kSub, "d884", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "z884", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "h16816", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "i16832", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "i16864", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "16816", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "16832", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "161616", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    // PyProf/tb_plugin's Volta cuDNN Tensor Core kernels that carry no mma code.
    R(kSub, "dgrad_1x1_stride_2x2", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "first_layer_wgrad_kernel", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "conv1x1", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "conv2d_c1_k1", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "direct_group", Cat::kConv, kTag, P::kFp16, Tc::kYes),

    // --- CUTLASS 2/3 and cuDNN's embedded CUTLASS: "tensorop" = Tensor Core MMA.
    // cutlass3x_sm90/sm100_tensorop_s64x128x16gemm_<A>_<B>_<acc>_..., cutlass_tensorop_s1688fprop_*,
    // mangled cutlass templates (MmaTensorOp, ImplicitGemmConvolution<...TensorOp...>).
    GemmOrConv(R(kSub, "tensorop", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "TensorOp", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "cutlass3x", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "KernelTmaWarpSpecialized", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    R(kSub, "ImplicitGemmConvolution", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown),
    GemmOrConv(R(kSub, "ReduceSplitK", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),

    // --- cuBLASLt nvjet (Hopper/Blackwell cuBLAS): nvjet_[smNN_]<abc>_<tile>_...
    R(kPre, "nvjet", Cat::kGemm, PrecRule::kNvjet, P::kUnknown, Tc::kYes),
    R(kSub, "deep_gemm", Cat::kGemm, kTag, P::kFp8, Tc::kYes),

    // --- Convolutions on CUDA cores (cuDNN implicit/explicit/precomputed sgemm, scudnn, winograd,
    // FFT, dgrad/wgrad engines, depthwise/grouped) and their helper kernels.
    Simt(R(kSub, "implicit_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "explicit_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "precomputed_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    R(kSub, "convolve_hgemm", Cat::kConv, kFix, P::kFp16, Tc::kNo),
    Simt(R(kSub, "convolve_dgemm", Cat::kConv, kFix, P::kFp64, Tc::kNo)),
    Simt(R(kWrd, "scudnn", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    R(kWrd, "hcudnn", Cat::kConv, kFix, P::kFp16, Tc::kNo),
    Simt(R(kWrd, "dcudnn", Cat::kConv, kFix, P::kFp64, Tc::kNo)),
    R(kSub, "generateWinogradTiles", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    Simt(R(kSub, "winograd", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "fft", Cat::kConv, kTag, P::kUnknown, Tc::kNo, "cudnn")),
    Simt(R(kSub, "dgrad_engine", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "dgrad2d_alg", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "wgrad_alg", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "conv_depthwise", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "conv2d_grouped_direct", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "slow_conv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "im2col", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "col2im", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cask_cudnn", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "reduce_wgrad", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flip_filter", Cat::kConv, kTag, P::kUnknown, Tc::kNo),

    // --- GEMMs on CUDA cores: <arch>_sgemm_*, cutlass_*_simt_*, cuBLAS small-N/gemv/gemmk1 paths
    // and helpers (split-K reduction, cuBLASLt epilogue).
    Simt(R(kWrd, "sgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    R(kWrd, "hgemm", Cat::kGemm, kFix, P::kFp16, Tc::kNo),
    Simt(R(kWrd, "dgemm", Cat::kGemm, kFix, P::kFp64, Tc::kNo)),
    Simt(R(kWrd, "cgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kWrd, "gcgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kWrd, "zgemm", Cat::kGemm, kFix, P::kFp64, Tc::kNo)),
    R(kWrd, "igemm", Cat::kGemm, kFix, P::kInt8, Tc::kNo),
    Simt(R(kSub, "gemmSN_", Cat::kGemm, kTag, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "gemmk1_kernel", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "gemv", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "dot_kernel", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "splitKreduce", Cat::kGemm, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cublasLtEpilogue", Cat::kGemm, kTag, P::kUnknown, Tc::kNo),
    Simt(R(kWrd, "simt", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "scal_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "axpy_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),

    // --- AMP GradScaler: unscale_ (foreach and TensorIterator fallback) and update.
    R(kSub, "_amp_foreach_non_finite_check_and_unscale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "_amp_non_finite_check_and_unscale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "amp_update_scale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo),

    // --- Optimizers: foreach / fused multi_tensor_apply (PyTorch, apex), fused Adam/SGD.
    R(kSub, "multi_tensor_apply_kernel", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "fused_adam", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "FusedAdam", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "fused_sgd", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo),

    // --- Casts (aten/src/ATen/native/cuda/Copy.cu): <type>_copy_kernel_cuda and
    // <type>tofloat32_copy_kernel_cuda; direct_copy_kernel_cuda is a cast only when it converts
    // (LoadWithCast/StoreWithCast), else a plain copy.
    R(kSub, "direct_copy_kernel_cuda", Cat::kCast, kTag, P::kUnknown, Tc::kNo, "WithCast"),
    R(kSub, "direct_copy_kernel_cuda", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "copy_kernel_cuda", Cat::kCast, kTag, P::kUnknown, Tc::kNo),

    // --- NCHW <-> NHWC layout transforms (cuDNN). The untemplated legacy name (cuDNN 7) appears
    // only on fp16 Tensor Core paths, hence the fp16 fallback.
    R(kSub, "nchwToNhwc", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo),
    R(kSub, "nhwcToNchw", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo),
    R(kSub, "NchwToNhwc", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo),
    R(kSub, "NhwcToNchw", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo),
    R(kSub, "transpose_readWrite_alignment", Cat::kLayoutTransform, kTag, P::kUnknown, Tc::kNo),

    // --- Normalization.
    R(kSub, "bn_fw", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "bn_bw", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "batch_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "BatchNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "layer_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "LayerNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "group_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GroupNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "instance_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "rms_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RMSNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RmsNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RowwiseMoments", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GammaBetaBackward", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GradGammaBeta", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),

    // --- Softmax.
    R(kSub, "softmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "SoftMax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "Softmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),

    // --- Copy-like kernels (concatenation, gathers).
    R(kSub, "CatArrayBatchedCopy", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "indexSelect", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "index_select", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "vectorized_gather", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),

    // --- Reductions: losses, pooling, ATen reduce_kernel, CUB reductions.
    R(kSub, "nll_loss", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "NLLCriterion", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cross_entropy", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "max_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "avg_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "adaptive_average_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "adaptive_max_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "reduce_kernel", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "DeviceReduce", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "DeviceSegmentedReduce", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),

    // --- ATen elementwise launch wrappers (vectorized_/unrolled_/elementwise_kernel, index_,
    // scatter_gather_, distribution_ variants), dropout, cuDNN scaling.
    R(kSub, "elementwise_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "distribution_elementwise", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "fused_dropout", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "scalePackedTensor", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
};

constexpr size_t kRuleCount = sizeof(kRules) / sizeof(kRules[0]);
static_assert(kRuleCount < 0xFFFF, "rule index must fit KernelClass::rule");

// Leading qualifiers that do not belong to the kernel's own name.
std::string_view StripVoid(std::string_view name) {
  constexpr std::string_view kVoid = "void ";
  if (name.substr(0, kVoid.size()) == kVoid) return name.substr(kVoid.size());
  return name;
}

// ---------------------------------------------------------------------------------------
// Substring prefilter. One Aho-Corasick pass over the name finds which of the table's strings
// (row patterns, "also" strings, conv markers) occur anywhere in it; the rows then only check
// prefix/word conditions for strings that occur. Built once, on first use; scanning allocates
// nothing. Without it every row would search the whole name (~40 us for a long PyTorch name).

constexpr size_t kMaxStrings = 512;
using Found = std::bitset<kMaxStrings>;

class SubstringIndex {
 public:
  SubstringIndex() {
    for (size_t i = 0; i < kRuleCount; ++i) {
      row_pattern_[i] = Add(kRules[i].pattern);
      row_also_[i] = kRules[i].also.empty() ? -1 : Add(kRules[i].also);
    }
    for (size_t i = 0; i < std::size(kConvMarkers); ++i) marker_[i] = Add(kConvMarkers[i]);
    Build();
  }

  void Scan(std::string_view text, Found* found) const {
    uint32_t state = 0;
    for (char ch : text) {
      state = delta_[state * width_ + cls_[static_cast<unsigned char>(ch)]];
      for (uint32_t i = out_begin_[state]; i < out_begin_[state + 1]; ++i) found->set(out_ids_[i]);
    }
  }
  int RowPattern(size_t row) const { return row_pattern_[row]; }
  int RowAlso(size_t row) const { return row_also_[row]; }
  bool AnyMarker(const Found& f) const {
    for (int id : marker_)
      if (f.test(static_cast<size_t>(id))) return true;
    return false;
  }

 private:
  int Add(std::string_view s) {
    for (size_t i = 0; i < strings_.size(); ++i)
      if (strings_[i] == s) return static_cast<int>(i);
    strings_.push_back(s);
    return static_cast<int>(strings_.size() - 1);
  }

  void Build() {
    // Alphabet: the bytes that occur in some string get classes 1..K; every other byte is class 0,
    // which always leads back to the root.
    cls_.fill(0);
    uint32_t k = 0;
    for (std::string_view s : strings_)
      for (char ch : s)
        if (cls_[static_cast<unsigned char>(ch)] == 0) cls_[static_cast<unsigned char>(ch)] = static_cast<uint8_t>(++k);
    width_ = k + 1;
    // Trie (0 = no edge; the root is node 0, so no edge ever points at it).
    std::vector<std::vector<uint16_t>> own(1);
    delta_.assign(width_, 0);
    for (size_t id = 0; id < strings_.size(); ++id) {
      uint32_t node = 0;
      for (char ch : strings_[id]) {
        uint32_t c = cls_[static_cast<unsigned char>(ch)];
        if (delta_[node * width_ + c] == 0) {
          delta_[node * width_ + c] = static_cast<uint32_t>(own.size());
          own.emplace_back();
          delta_.resize(own.size() * width_, 0);
        }
        node = delta_[node * width_ + c];
      }
      own[node].push_back(static_cast<uint16_t>(id));
    }
    // Breadth-first: failure links, complete the transition function, merge outputs.
    std::vector<uint32_t> fail(own.size(), 0), queue;
    std::vector<std::vector<uint16_t>> out = own;
    for (uint32_t c = 0; c < width_; ++c)
      if (uint32_t child = delta_[c]) queue.push_back(child);
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      uint32_t node = queue[qi];
      for (uint16_t id : out[fail[node]]) out[node].push_back(id);
      for (uint32_t c = 0; c < width_; ++c) {
        uint32_t& next = delta_[node * width_ + c];
        if (next != 0) {
          fail[next] = delta_[fail[node] * width_ + c];
          queue.push_back(next);
        } else {
          next = delta_[fail[node] * width_ + c];
        }
      }
    }
    // Outputs as one flat array: state s emits out_ids_[out_begin_[s] .. out_begin_[s + 1]).
    out_begin_.assign(1, 0);
    for (const auto& ids : out) {
      out_ids_.insert(out_ids_.end(), ids.begin(), ids.end());
      out_begin_.push_back(static_cast<uint32_t>(out_ids_.size()));
    }
  }

  std::vector<std::string_view> strings_;
  std::array<uint8_t, 256> cls_{};
  uint32_t width_ = 1;
  std::vector<uint32_t> delta_;                 // [state * width_ + class] -> state
  std::vector<uint32_t> out_begin_;             // per state, into out_ids_ (size states + 1)
  std::vector<uint16_t> out_ids_;               // string ids that end at each state
  std::array<int, kRuleCount> row_pattern_{};
  std::array<int, kRuleCount> row_also_{};
  std::array<int, std::size(kConvMarkers)> marker_{};
};

const SubstringIndex& Index() {
  static const SubstringIndex index;  // thread-safe one-time construction
  return index;
}

bool RuleMatches(const SubstringIndex& index, size_t row, const Found& found, std::string_view name,
                 std::string_view stripped) {
  const Rule& r = kRules[row];
  if (!found.test(static_cast<size_t>(index.RowPattern(row)))) return false;
  int also = index.RowAlso(row);
  if (also >= 0 && !found.test(static_cast<size_t>(also))) return false;
  switch (r.match) {
    case Match::kPrefix:
      return name.substr(0, r.pattern.size()) == r.pattern || stripped.substr(0, r.pattern.size()) == r.pattern;
    case Match::kContains: return true;
    case Match::kWord: return HasWord(name, r.pattern);
  }
  return false;
}

Precision ResolvePrecision(const Rule& r, std::string_view name) {
  Precision p = P::kUnknown;
  switch (r.prec_rule) {
    case PrecRule::kFixed: return r.precision;
    case PrecRule::kTags: p = PrecisionFromTags(name, false); break;
    case PrecRule::kTagsFloatOnly: p = PrecisionFromTags(name, true); break;
    case PrecRule::kNvjet: p = NvjetPrecision(name); break;
    case PrecRule::kTensile: p = TensilePrecision(name); break;
  }
  return p == P::kUnknown ? r.precision : p;
}

const char* MatchName(Match m) {
  switch (m) {
    case Match::kPrefix: return "prefix";
    case Match::kContains: return "contains";
    case Match::kWord: return "word";
  }
  return "?";
}

}  // namespace

KernelClass ClassifyKernel(std::string_view name) {
  const std::string_view stripped = StripVoid(name);
  const SubstringIndex& index = Index();
  Found found;
  index.Scan(name, &found);
  KernelClass out;
  for (size_t i = 0; i < kRuleCount; ++i) {
    const Rule& r = kRules[i];
    if (!RuleMatches(index, i, found, name, stripped)) continue;
    out.category = (r.gemm_or_conv && index.AnyMarker(found)) ? Cat::kConv : r.category;
    out.precision = ResolvePrecision(r, name);
    out.tensor_core = r.tc;
    out.fp32_simt_gemm = r.simt && out.precision == P::kFp32;
    out.rocm = r.rocm;
    out.fused_cast = r.fused_cast;
    out.rule = static_cast<uint16_t>(i);
    return out;
  }
  out.category = Cat::kOther;
  out.precision = PrecisionFromTags(name, false);
  out.tensor_core = Tc::kNo;
  out.rule = kNoKernelRule;
  return out;
}

size_t KernelRuleCount() { return kRuleCount; }

std::string DescribeKernelRule(uint16_t rule) {
  if (rule >= kRuleCount) return "no rule matched: other, precision from type tags";
  const Rule& r = kRules[rule];
  std::string s = "#" + std::to_string(rule) + " " + MatchName(r.match) + " \"" + std::string(r.pattern) + "\"";
  if (!r.also.empty()) s += " + contains \"" + std::string(r.also) + "\"";
  s += " -> ";
  s += r.gemm_or_conv ? "gemm|conv" : KernelCategoryName(r.category);
  switch (r.prec_rule) {
    case PrecRule::kFixed: s += std::string(", ") + PrecisionName(r.precision); break;
    case PrecRule::kTags:
    case PrecRule::kTagsFloatOnly:
      s += ", precision from type tags";
      if (r.precision != P::kUnknown) s += std::string(" (else ") + PrecisionName(r.precision) + ")";
      break;
    case PrecRule::kNvjet: s += ", precision from nvjet code"; break;
    case PrecRule::kTensile: s += ", precision from Tensile type code"; break;
  }
  s += std::string(", tensor core ") + TensorCoreUseName(r.tc);
  if (r.simt) s += ", CUDA-core GEMM/conv";
  if (r.rocm) s += ", ROCm";
  return s;
}

Precision PrecisionFromTypeTags(std::string_view text) { return PrecisionFromTags(text, false); }

}  // namespace ampscope
