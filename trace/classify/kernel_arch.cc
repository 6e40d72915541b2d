#include "trace/classify/kernel_arch.h"

#include <set>
#include <string>

namespace ampscope {

namespace {

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
char Lower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

struct NamedArch {
  std::string_view text;
  int32_t cc_major, cc_minor;
};

// cuBLAS/cuDNN family prefixes, at the start of a word ("volta_sgemm", "Volta_hmma_...",
// "cudnn_infer_ampere_scudnn_..."): the architecture the kernel was written for.
constexpr NamedArch kFamilies[] = {{"volta_", 7, 0}, {"turing_", 7, 5}, {"ampere_", 8, 0}, {"hopper_", 9, 0}};
// Features only Hopper and later have: the warpgroup MMA (wgmma, sm90a), TMA warp-specialized
// CUTLASS 3 kernels, cuBLASLt's nvjet kernels (shipped for sm90 and sm100).
constexpr NamedArch kFeatures[] = {{"wgmma", 9, 0}, {"TmaWarpSpecialized", 9, 0}, {"nvjet", 9, 0}};

bool Below(int32_t major, int32_t minor, const KernelArch& than) {
  return major < than.cc_major || (major == than.cc_major && minor < than.cc_minor);
}

void Keep(std::optional<KernelArch>& best, int32_t major, int32_t minor, std::string_view token) {
  if (!best || Below(best->cc_major, best->cc_minor, KernelArch{major, minor, {}})) best = KernelArch{major, minor, token};
}

// 2-3 digits at `at` followed by a non-digit: an SM version (70 -> 7.0, 86 -> 8.6, 100 -> 10.0).
bool SmDigits(std::string_view s, size_t at, int32_t* major, int32_t* minor, size_t* len) {
  size_t n = 0;
  while (at + n < s.size() && IsDigit(s[at + n]) && n < 4) ++n;
  if (n < 2 || n > 3) return false;
  int32_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v * 10 + (s[at + i] - '0');
  if (v < 50 || v > 130) return false;
  *major = v / 10;
  *minor = v % 10;
  *len = n;
  return true;
}

}  // namespace

std::optional<KernelArch> KernelArchOf(std::string_view name) {
  std::optional<KernelArch> best;
  for (size_t i = 0; i < name.size(); ++i) {
    const bool word_start = i == 0 || !IsAlnum(name[i - 1]);
    // sm80_xmma_, nvjet_sm90_, cutlass3x_sm90_ (a word "sm<NN>"); cutlass::arch::Sm90,
    // FlashAttnFwdSm90, SM90_64x128x16_F32BF16BF16_SS ("Sm<NN>"/"SM<NN>" after a non-capital).
    const bool lower_sm = word_start && name[i] == 's' && i + 1 < name.size() && name[i + 1] == 'm';
    const bool upper_sm = name[i] == 'S' && i + 1 < name.size() && (name[i + 1] == 'm' || name[i + 1] == 'M') &&
                          (i == 0 || !IsUpper(name[i - 1]));
    if (lower_sm || upper_sm) {
      int32_t major = 0, minor = 0;
      size_t len = 0;
      if (SmDigits(name, i + 2, &major, &minor, &len)) Keep(best, major, minor, name.substr(i, 2 + len));
    }
    // cutlass_75_tensorop_..., cutlass_80_simt_...: CUTLASS 2's instantiation names.
    if (word_start && name.compare(i, 8, "cutlass_") == 0) {
      int32_t major = 0, minor = 0;
      size_t len = 0;
      if (SmDigits(name, i + 8, &major, &minor, &len) && i + 8 + len < name.size() && name[i + 8 + len] == '_')
        Keep(best, major, minor, name.substr(i, 9 + len));
    }
    if (word_start) {
      for (const NamedArch& f : kFamilies) {
        if (i + f.text.size() > name.size()) continue;
        bool same = true;
        for (size_t k = 0; k < f.text.size() && same; ++k) same = Lower(name[i + k]) == f.text[k];
        if (same) Keep(best, f.cc_major, f.cc_minor, name.substr(i, f.text.size()));
      }
    }
  }
  for (const NamedArch& f : kFeatures) {
    const size_t at = name.find(f.text);
    if (at != std::string_view::npos) Keep(best, f.cc_major, f.cc_minor, name.substr(at, f.text.size()));
  }
  return best;
}

std::string ArchEvidence::Basis() const {
  if (cc_major < 0) return "";
  return "inferred from kernel names: compute capability >= " + std::to_string(cc_major) + "." + std::to_string(cc_minor) +
         " (" + std::to_string(names) + " kernel name" + (names == 1 ? "" : "s") + " built for it, e.g. " + example +
         "; token " + token + "; a kernel runs only on the architecture it was built for and later ones)";
}

ArchEvidence InferArchFromKernels(const Trace& trace) {
  ArchEvidence out;
  std::set<StringId> seen;
  std::optional<KernelArch> best;
  std::string best_name;
  // First pass: the highest bound; second: how many distinct names prove it.
  for (const KernelEvent& k : trace.kernels) {
    if (!seen.insert(k.name).second) continue;
    const std::string_view name = trace.str(k.name);
    const std::optional<KernelArch> a = KernelArchOf(name);
    if (!a) continue;
    if (!best || Below(best->cc_major, best->cc_minor, *a)) {
      best = a;
      best_name = std::string(name);
    }
  }
  if (!best) return out;
  out.cc_major = best->cc_major;
  out.cc_minor = best->cc_minor;
  const std::optional<KernelArch> first = KernelArchOf(best_name);
  out.token = first ? std::string(first->token) : "";
  out.example = best_name.size() > 96 ? best_name.substr(0, 96) + "..." : best_name;
  for (StringId id : seen) {
    const std::optional<KernelArch> a = KernelArchOf(trace.str(id));
    if (a && a->cc_major == out.cc_major && a->cc_minor == out.cc_minor) ++out.names;
  }
  return out;
}

}  // namespace ampscope
