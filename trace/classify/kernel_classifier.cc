// The kernel classifier's matcher: the ordered pattern table (kRules, kernel_rules_table.cc) plus
// a type-tag pass for precision and the role markers.
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
//   4. The role is the row's, unless a role marker (a word the analyzers look for in any kernel,
//      e.g. amp_update_scale) occurs in the name.
//
// Everything here works on string_views of the name: no allocation, no std::regex. The name is
// scanned once for all table strings (an Aho-Corasick automaton built on first use) and once for
// type tags; ampscope also classifies each distinct name once and caches the result by StringId.
#include "trace/classify/kernel_classifier.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "base/status.h"
#include "trace/classify/kernel_rules.h"

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

const char* KernelRoleName(KernelRole r) {
  switch (r) {
    case KernelRole::kAmpUpdateScale: return "amp_update_scale";
    case KernelRole::kAmpUnscale: return "amp_unscale";
    case KernelRole::kOptimizerFused: return "optimizer_fused";
    case KernelRole::kOptimizerForeach: return "optimizer_foreach";
    case KernelRole::kOptimizerPerParam: return "optimizer_per_param";
    case KernelRole::kFill: return "fill";
    case KernelRole::kCast: return "cast";
    case KernelRole::kLayoutTransform: return "layout_transform";
    case KernelRole::kCopy: return "copy";
    case KernelRole::kNcclCollective: return "nccl_collective";
    case KernelRole::kNone:
    case KernelRole::kCount: break;
  }
  return "none";
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

using namespace ::ampscope::kernel_rules;  // the table's row type and rows

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
    {"s4", P::kInt8, false},    {"u4", P::kInt8, false},   {"f8", P::kFp8, false},  // fbgemm's f8f8bf16
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
      // "double buffer" is a pipelining technique, not fp64 (MIOpen's
      // gridwise_convolution_implicit_gemm_v4r1_nchw_kcyx_nkhw_lds_double_buffer).
      if (it->text == "double" && (next_word == "buffer" || next_word == "buffered" || next_word == "buffering"))
        return WordType::kNotATag;
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


// Leading qualifiers that do not belong to the kernel's own name.
std::string_view StripVoid(std::string_view name) {
  constexpr std::string_view kVoid = "void ";
  if (name.substr(0, kVoid.size()) == kVoid) return name.substr(kVoid.size());
  return name;
}

// A qualified name up to its template arguments or parameter list, and its last "::" part.
std::string_view QualifiedHead(std::string_view qualified) {
  return qualified.substr(0, std::min(qualified.size(), qualified.find_first_of("<(>,")));
}
std::string_view OwnName(std::string_view qualified) {
  const std::string_view head = QualifiedHead(qualified);
  const size_t colon = head.rfind("::");
  return colon == std::string_view::npos ? head : head.substr(colon + 2);
}
// The kernel's qualified function name ("dpsk::ep::internode::combine" in
// "void dpsk::ep::internode::combine<false, 8>(...)"); OwnName of it is the kernel's own function
// name, the last "::" part before the template arguments or the parameter list ("GemmKernel" in
// "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(...)", "transpose" in
// "void dpsk::grouped_gemm::cuda::utils::transpose<512, 128>(...)"). Launch wrappers that only
// carry the real kernel as their template argument (CUTLASS's device_kernel / Kernel / Kernel2)
// are looked through. Mangled (_Z...) and plain C names come back whole up to '<' or '('.
std::string_view QualifiedFunctionName(std::string_view name) {
  std::string_view s = StripVoid(name);
  for (int depth = 0; depth < 4; ++depth) {
    const std::string_view own = OwnName(s);
    const size_t after = static_cast<size_t>(own.data() - s.data()) + own.size();
    const bool wrapper = own == "device_kernel" || own == "Kernel" || own == "Kernel2";
    if (!wrapper || after >= s.size() || s[after] != '<') return QualifiedHead(s);
    s = s.substr(after + 1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  }
  return QualifiedHead(s);
}

// `pattern` in a function name, not followed by a lowercase letter ("gemm" in grouped_gemm_kernel,
// "Gemm" in GemmKernel; not "gemm" in gemma_rms_norm).
bool FunctionNameHas(std::string_view fn, std::string_view pattern) {
  for (size_t pos = fn.find(pattern); pos != std::string_view::npos; pos = fn.find(pattern, pos + 1)) {
    const size_t end = pos + pattern.size();
    if (end == fn.size() || fn[end] < 'a' || fn[end] > 'z') return true;
  }
  return false;
}

// The function name is `pattern`, or ends with "_" + pattern ("notify_dispatch", "cached_notify").
bool FunctionNameEnds(std::string_view fn, std::string_view pattern) {
  if (fn.size() < pattern.size() || fn.substr(fn.size() - pattern.size()) != pattern) return false;
  return fn.size() == pattern.size() || fn[fn.size() - pattern.size() - 1] == '_';
}

// Formats only Tensor Cores compute: fp8 (and the fp6/fp4 it stands for here) from sm89 on, and
// tf32 from sm80 on. No CUDA core does math in them, so such a GEMM or attention kernel is Tensor
// Core work whatever library wrote it.
bool TensorCoreOnlyFormat(Precision p) { return p == P::kFp8 || p == P::kTf32; }

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
      row_pattern_.push_back(Add(kRules[i].pattern));
      row_also_.push_back(kRules[i].also.empty() ? -1 : Add(kRules[i].also));
    }
    for (size_t i = 0; i < kConvMarkerCount; ++i) marker_.push_back(Add(kConvMarkers[i]));
    for (size_t i = 0; i < kRoleMarkerCount; ++i) role_marker_.push_back(Add(kRoleMarkers[i].text));
    multi_tensor_ = Add(kMultiTensorApplyMarker);
    AMPSCOPE_CHECK(strings_.size() <= kMaxStrings);
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
  // The first role marker that occurs, or `fallback`.
  KernelRole MarkedRole(const Found& f, KernelRole fallback) const {
    for (size_t i = 0; i < role_marker_.size(); ++i)
      if (f.test(static_cast<size_t>(role_marker_[i]))) return kRoleMarkers[i].role;
    return fallback;
  }
  bool MultiTensorApply(const Found& f) const { return f.test(static_cast<size_t>(multi_tensor_)); }

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
  std::vector<int> row_pattern_;   // string id of each row's pattern
  std::vector<int> row_also_;      // ... and of its "also" string, or -1
  std::vector<int> marker_;        // conv markers
  std::vector<int> role_marker_;   // role markers, in kRoleMarkers order
  int multi_tensor_ = -1;
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
    case Match::kFunction:
    case Match::kFunctionEnd: {
      const std::string_view qualified = QualifiedFunctionName(name);
      if (!r.also.empty() && qualified.find(r.also) == std::string_view::npos) return false;
      const std::string_view fn = OwnName(qualified);
      return r.match == Match::kFunction ? FunctionNameHas(fn, r.pattern) : FunctionNameEnds(fn, r.pattern);
    }
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
    case Match::kFunction: return "function name contains";
    case Match::kFunctionEnd: return "function name ends with";
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
    out.tensor_core = r.tc_by_precision && TensorCoreOnlyFormat(out.precision) ? Tc::kYes : r.tc;
    out.fp32_simt_gemm = r.simt && out.precision == P::kFp32;
    out.rocm = r.rocm;
    out.fused_cast = r.fused_cast;
    out.role = index.MarkedRole(found, r.role);
    out.multi_tensor_apply = index.MultiTensorApply(found);
    out.collective = r.collective;
    out.rule = static_cast<uint16_t>(i);
    return out;
  }
  out.category = Cat::kOther;
  out.precision = PrecisionFromTags(name, false);
  out.tensor_core = Tc::kNo;
  out.role = index.MarkedRole(found, KernelRole::kNone);
  out.multi_tensor_apply = index.MultiTensorApply(found);
  out.rule = kNoKernelRule;
  return out;
}

size_t KernelRuleCount() { return kRuleCount; }

std::string DescribeKernelRule(uint16_t rule) {
  if (rule >= kRuleCount) return "no rule matched: other, precision from type tags";
  const Rule& r = kRules[rule];
  std::string s = "#" + std::to_string(rule) + " " + MatchName(r.match) + " \"" + std::string(r.pattern) + "\"";
  if (!r.also.empty())
    s += (r.match == Match::kFunction || r.match == Match::kFunctionEnd ? " + scope contains \"" : " + contains \"") +
         std::string(r.also) + "\"";
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
  if (r.collective != CollectiveType::kUnknown) s += std::string(" (") + CollectiveTypeName(r.collective) + ")";
  s += std::string(", tensor core ") + TensorCoreUseName(r.tc);
  if (r.tc_by_precision) s += " (yes for fp8/tf32 math)";
  if (r.simt) s += ", CUDA-core GEMM/conv";
  if (r.rocm) s += ", ROCm";
  return s;
}

Precision PrecisionFromTypeTags(std::string_view text) { return PrecisionFromTags(text, false); }

bool IsTensileKernelName(std::string_view name) { return name.substr(0, 5) == "Cijk_"; }

}  // namespace ampscope
