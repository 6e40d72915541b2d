// The formulas. docs/roofline.md states each one with its source; the comments here say only
// what is not obvious from the code.
#include "analyzers/roofline/op_models.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "analyzers/roofline/op_table.h"
#include "trace/io/json_arg_lists.h"

namespace ampscope::roofline {

using detail::Formula;
using detail::OpSpec;
using Shape = std::vector<int64_t>;

const char* OpFamilyName(OpFamily f) {
  switch (f) {
    case OpFamily::kGemm: return "gemm";
    case OpFamily::kConvFwd: return "conv_fwd";
    case OpFamily::kConvBwd: return "conv_bwd";
    case OpFamily::kAttentionFwd: return "attention_fwd";
    case OpFamily::kAttentionBwd: return "attention_bwd";
    case OpFamily::kNorm: return "norm";
    case OpFamily::kNormBwd: return "norm_bwd";
    case OpFamily::kSoftmax: return "softmax";
    case OpFamily::kElementwise: return "elementwise";
    case OpFamily::kReduction: return "reduction";
    case OpFamily::kEmbedding: return "embedding";
    case OpFamily::kCount: break;
  }
  return "unknown";
}

DtypeInfo DtypeOf(std::string_view torch_type) {
  const detail::DtypeRow* r = detail::FindDtype(torch_type);
  return r ? DtypeInfo{r->precision, r->bytes} : DtypeInfo{};
}

// ---------------------------------------------------------------------------------------
// Parsing the recorded arguments

namespace {

double Prod(const Shape& s) {
  double p = 1;
  for (int64_t d : s) p *= static_cast<double>(d);
  return p;
}

bool Positive(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

const Shape& DimsAt(const OpArgs& a, int idx) {
  static const Shape kEmpty;
  return idx >= 0 && static_cast<size_t>(idx) < a.dims.size() ? a.dims[idx] : kEmpty;
}
std::string_view TypeAt(const OpArgs& a, int idx) {
  return idx >= 0 && static_cast<size_t>(idx) < a.types.size() ? std::string_view(a.types[idx]) : std::string_view();
}
// The recorded concrete value of argument idx, or nullopt when the trace has none for it.
std::optional<std::string_view> ConcreteAt(const OpArgs& a, int idx) {
  if (!a.has_concrete || idx < 0 || static_cast<size_t>(idx) >= a.concrete.size()) return std::nullopt;
  return std::string_view(a.concrete[idx]);
}
// A tensor argument: its dtype is a tensor dtype (a 0-d tensor has dims []).
bool IsTensor(const OpArgs& a, int idx) { return DtypeOf(TypeAt(a, idx)).bytes > 0; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "[1, 1]", "(2, 2)", "1" -> ints; nullopt for "", "None" or anything else.
std::optional<Shape> ParseInts(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s == "None") return std::nullopt;
  if (s.front() == '[' || s.front() == '(') {
    if (s.size() < 2) return std::nullopt;
    s = s.substr(1, s.size() - 2);
  }
  Shape out;
  while (true) {
    s = Trim(s);
    if (s.empty()) break;
    const size_t comma = s.find(',');
    std::string item(Trim(s.substr(0, comma)));
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end == nullptr || *end != '\0') return std::nullopt;
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<bool> ParseBool(std::string_view s) {
  s = Trim(s);
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  return std::nullopt;
}

// "[True, True, False]" -> bools.
std::optional<std::vector<bool>> ParseBools(std::string_view s) {
  s = Trim(s);
  if (s.size() < 2 || (s.front() != '[' && s.front() != '(')) return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<bool> out;
  while (true) {
    s = Trim(s);
    if (s.empty()) break;
    const size_t comma = s.find(',');
    std::optional<bool> b = ParseBool(s.substr(0, comma));
    if (!b) return std::nullopt;
    out.push_back(*b);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

// A stride/padding/dilation argument broadcast to `n` spatial dims; the schema default when the
// value is recorded as empty (TraceLens's rule).
std::optional<Shape> SpatialParam(const OpArgs& a, int idx, size_t n, int64_t fallback) {
  std::optional<std::string_view> text = ConcreteAt(a, idx);
  if (!text) return std::nullopt;
  if (Trim(*text).empty()) return Shape(n, fallback);
  std::optional<Shape> v = ParseInts(*text);
  if (!v || v->empty()) return std::nullopt;
  if (v->size() == 1) return Shape(n, v->front());
  if (v->size() != n) return std::nullopt;
  return v;
}

OpCost Unknown(OpCost c, std::string why) {
  c.known = false;
  c.bytes_known = false;
  c.note = std::move(why);
  return c;
}

void SetBytes(OpCost* c, double bytes) {
  c->bytes = bytes;
  c->bytes_known = true;
}

std::string ShapeText(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

// ---------------------------------------------------------------------------------------
// GEMM: 2·M·N·K (+ M·N for a bias); bytes (A + B + C (+ N for a bias)) · bpe(A)

OpCost Gemm(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& A = DimsAt(a, spec.x);
  const Shape& B = DimsAt(a, spec.w);
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes;
  double batch = 1, M = 0, N = 0, K = 0, Kb = 0;
  bool bias = false;
  switch (spec.formula) {
    case Formula::kMm:
    case Formula::kAddmm:
      if (A.size() != 2 || B.size() != 2) return Unknown(c, "expects two 2-D matrices");
      M = A[0], K = A[1], Kb = B[0], N = B[1];
      bias = spec.formula == Formula::kAddmm;
      break;
    case Formula::kBmm:
    case Formula::kBaddbmm:
      if (A.size() != 3 || B.size() != 3) return Unknown(c, "expects two 3-D batches of matrices");
      if (A[0] != B[0]) return Unknown(c, "batch sizes differ");
      batch = A[0], M = A[1], K = A[2], Kb = B[1], N = B[2];
      bias = spec.formula == Formula::kBaddbmm;
      break;
    case Formula::kLinear:
      if (A.empty() || B.size() != 2) return Unknown(c, "expects an input [..., K] and a weight [N, K]");
      M = Prod(Shape(A.begin(), A.end() - 1)), K = A.back(), Kb = B[1], N = B[0];
      bias = !DimsAt(a, spec.v).empty();
      break;
    case Formula::kMatmul: {
      if (A.empty() || B.empty()) return Unknown(c, "expects two tensors of rank >= 1");
      M = A.size() >= 2 ? A[A.size() - 2] : 1;
      K = A.back();
      Kb = B.size() >= 2 ? B[B.size() - 2] : B[0];
      N = B.size() >= 2 ? B.back() : 1;
      // Broadcast the batch dims (all but the last two).
      const size_t ra = A.size() >= 2 ? A.size() - 2 : 0, rb = B.size() >= 2 ? B.size() - 2 : 0;
      const size_t r = std::max(ra, rb);
      for (size_t i = 0; i < r; ++i) {
        const int64_t da = i < r - ra ? 1 : A[i - (r - ra)];
        const int64_t db = i < r - rb ? 1 : B[i - (r - rb)];
        if (da != db && da != 1 && db != 1) return Unknown(c, "batch dims do not broadcast");
        batch *= static_cast<double>(std::max(da, db));
      }
      break;
    }
    default: return Unknown(c, "internal: not a GEMM formula");
  }
  if (K != Kb) return Unknown(c, "inner dimensions differ: " + ShapeText(A) + " x " + ShapeText(B));
  if (!Positive(A) || !Positive(B)) return Unknown(c, "negative size");
  c.known = true;
  c.gemm = GemmDims{batch, M, N, K};
  c.flop = batch * (2 * M * N * K + (bias ? M * N : 0));
  if (bpe > 0) SetBytes(&c, batch * (M * K + K * N + M * N + (bias ? N : 0)) * bpe);
  else c.note = "dtype of the inputs not known: bytes unknown";
  return c;
}

// ---------------------------------------------------------------------------------------
// Convolution

int64_t ConvOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return ConvOutputSize(in, k, s, p, d); }

OpCost Conv(const OpSpec& spec, const OpArgs& a, const OpHints& hints, OpCost c) {
  const Shape& x = DimsAt(a, spec.x);
  const Shape& w = DimsAt(a, spec.w);
  if (x.size() < 3 || w.size() != x.size()) return Unknown(c, "expects input [N, C, spatial...] and weight of the same rank");
  if (!Positive(x) || !Positive(w)) return Unknown(c, "negative size");
  const size_t n = x.size() - 2;
  const bool bias = !DimsAt(a, spec.v).empty();
  bool transposed = false;
  if (std::optional<std::string_view> t = ConcreteAt(a, spec.transposed)) transposed = ParseBool(*t).value_or(false);
  int64_t groups = 1;
  if (std::optional<std::string_view> g = ConcreteAt(a, spec.groups)) {
    if (std::optional<Shape> v = ParseInts(*g); v && v->size() == 1 && v->front() > 0) groups = v->front();
  }
  Shape out;
  if (!hints.conv_output.empty()) {
    out = hints.conv_output;
    if (out.size() != x.size() || out[0] != x[0]) return Unknown(c, "the output shape given does not fit the input");
  } else {
    std::optional<Shape> stride = SpatialParam(a, spec.stride, n, 1);
    std::optional<std::string_view> pad_text = ConcreteAt(a, spec.padding);
    std::optional<Shape> padding;
    bool same = false;
    if (pad_text && Trim(*pad_text) == "same") same = true;
    else if (pad_text && Trim(*pad_text) == "valid") padding = Shape(n, 0);
    else padding = SpatialParam(a, spec.padding, n, 0);
    std::optional<Shape> dilation = SpatialParam(a, spec.dilation, n, 1);
    if (!stride || !dilation || (!padding && !same)) {
      return Unknown(c, "stride/padding/dilation not recorded (no Concrete Inputs) and the output shape is not known "
                        "from the trace");
    }
    out = {x[0], transposed ? w[1] * groups : w[0]};
    for (size_t i = 0; i < n; ++i) {
      int64_t o;
      if (same) {
        o = x[2 + i];
      } else if (transposed) {
        // Output padding is the argument after `transposed` (convolution / _convolution).
        int64_t op = 0;
        if (std::optional<Shape> v = SpatialParam(a, spec.transposed + 1, n, 0)) op = (*v)[i];
        o = (x[2 + i] - 1) * (*stride)[i] - 2 * (*padding)[i] + (*dilation)[i] * (w[2 + i] - 1) + op + 1;
      } else {
        o = ConvOut(x[2 + i], w[2 + i], (*stride)[i], (*padding)[i], (*dilation)[i]);
      }
      if (o <= 0) return Unknown(c, "stride/padding give an empty output");
      out.push_back(o);
    }
  }
  const double w_per_out = Prod(Shape(w.begin() + 1, w.end()));  // C_in/groups · kernel volume
  c.known = true;
  c.flop = 2 * Prod(transposed ? x : out) * w_per_out + (bias ? Prod(out) : 0);
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes;
  if (bpe > 0) SetBytes(&c, (Prod(x) + Prod(w) + (bias ? static_cast<double>(out[1]) : 0) + Prod(out)) * bpe);
  if (!hints.conv_output.empty()) c.note = "output shape " + ShapeText(out) + " taken from the trace";
  return c;
}

OpCost ConvBwd(const OpSpec& spec, const OpArgs& a, const OpHints& hints, OpCost c) {
  const Shape& g = DimsAt(a, spec.g);  // grad_output: the forward output's shape
  const Shape& x = DimsAt(a, spec.x);
  const Shape& w = DimsAt(a, spec.w);
  if (x.size() < 3 || w.size() != x.size() || g.size() != x.size()) {
    return Unknown(c, "expects grad_output, input and weight of the same rank >= 3");
  }
  if (!Positive(x) || !Positive(w) || !Positive(g)) return Unknown(c, "negative size");
  bool transposed = false;
  if (std::optional<std::string_view> t = ConcreteAt(a, spec.transposed)) transposed = ParseBool(*t).value_or(false);
  // Which gradients: output_mask [input, weight, bias] when recorded, else the hints.
  int grad_in = hints.grad_input, grad_w = hints.grad_weight, grad_b = hints.grad_bias;
  if (std::optional<std::string_view> m = ConcreteAt(a, spec.flag)) {
    if (std::optional<std::vector<bool>> v = ParseBools(*m); v && v->size() >= 2) {
      grad_in = (*v)[0];
      grad_w = (*v)[1];
      grad_b = v->size() >= 3 ? static_cast<int>((*v)[2]) : 0;
    }
  }
  if (grad_in < 0 && grad_w < 0) {
    grad_in = grad_w = 1;
    c.note = "output_mask not recorded: dgrad and wgrad both counted (TraceLens counts both always)";
  }
  if (grad_in < 0) grad_in = 0;
  if (grad_w < 0) grad_w = 0;
  if (grad_b < 0) grad_b = 0;
  // dgrad and wgrad each cost what the forward convolution costs (flop_counter conv_backward_flop).
  const double conv = 2 * Prod(transposed ? x : g) * Prod(Shape(w.begin() + 1, w.end()));
  c.known = true;
  c.flop = (grad_in ? conv : 0) + (grad_w ? conv : 0) + (grad_b ? Prod(g) : 0);
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes;
  if (bpe > 0) {
    const double each = Prod(g) + Prod(w) + Prod(x);  // read grad_output and one operand, write the grad
    SetBytes(&c, ((grad_in ? each : 0) + (grad_w ? each : 0) + (grad_b ? Prod(g) + static_cast<double>(g[1]) : 0)) *
                     bpe);
  }
  return c;
}

// ---------------------------------------------------------------------------------------
// Attention (causal counts half, as TraceLens does; it requires N_Q == N_KV for that)

struct AttnDims {
  double B, Hq, Nq, Hkv, Nkv, dqk, dv;
};

std::optional<AttnDims> ReadAttn(const OpSpec& spec, const OpArgs& a, std::string* why) {
  const Shape& q = DimsAt(a, spec.x);
  const Shape& k = DimsAt(a, spec.w);
  const Shape& v = DimsAt(a, spec.v);
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) {
    *why = "expects 4-D query, key and value";
    return std::nullopt;
  }
  // [B, H, N, d], or [B, N, H, d] for flash_attn.
  const int h = spec.bnhd ? 2 : 1, s = spec.bnhd ? 1 : 2;
  AttnDims d{double(q[0]), double(q[h]), double(q[s]), double(k[h]), double(k[s]), double(q[3]), double(v[3])};
  if (q[0] != k[0] || q[0] != v[0] || k[h] != v[h] || k[s] != v[s] || q[3] != k[3]) {
    *why = "query/key/value shapes do not match";
    return std::nullopt;
  }
  return d;
}

OpCost Attention(const OpSpec& spec, const OpArgs& a, OpCost c) {
  std::string why;
  std::optional<AttnDims> d = ReadAttn(spec, a, &why);
  if (!d) return Unknown(c, why);
  std::optional<std::string_view> ct = ConcreteAt(a, spec.flag);
  std::optional<bool> causal = ct ? ParseBool(*ct) : std::nullopt;
  if (!causal) return Unknown(c, "is_causal not recorded (no Concrete Inputs)");
  if (*causal && d->Nq != d->Nkv) return Unknown(c, "causal with N_Q != N_KV");
  const double scale = *causal ? 0.5 : 1.0;
  const double qk = 2 * d->B * d->Hq * d->Nq * d->Nkv * d->dqk;  // one Q·K^T (or its gradient twin)
  const double pv = 2 * d->B * d->Hq * d->Nq * d->Nkv * d->dv;   // one P·V
  const double q_el = d->B * d->Nq * d->Hq * d->dqk, k_el = d->B * d->Nkv * d->Hkv * d->dqk;
  const double v_el = d->B * d->Nkv * d->Hkv * d->dv, o_el = d->B * d->Nq * d->Hq * d->dv;
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes;
  c.known = true;
  if (spec.formula == Formula::kSdpaFwd) {
    c.flop = scale * (qk + pv);
    if (bpe > 0) SetBytes(&c, (q_el + k_el + v_el + o_el) * bpe);
  } else {
    // Recompute S = Q·K^T, then dV = P^T·dO, dP = dO·V^T, dQ = dS·K, dK = dS^T·Q; with GQA the
    // H_Q/H_KV heads of dK and dV are summed into H_KV heads (TraceLens flops_bwd_func).
    const double gqa = d->Hkv > 0 ? d->Hq / d->Hkv - 1 : 0;
    const double reduce = d->B * d->Nkv * (d->dv + d->dqk) * gqa;
    c.flop = scale * (qk + pv + pv + qk + qk + reduce);
    c.recompute_flop = scale * qk;
    if (bpe > 0) SetBytes(&c, (2 * q_el + 2 * k_el + 2 * v_el + o_el) * bpe);  // q,k,v,dO read; dq,dk,dv written
  }
  return c;
}

// ---------------------------------------------------------------------------------------
// Memory-bound families

// Elements normalized together: prod(normalized_shape) when recorded, else the weight's size.
std::optional<double> NormalizedSize(const OpSpec& spec, const OpArgs& a) {
  if (std::optional<std::string_view> t = ConcreteAt(a, spec.flag)) {
    if (std::optional<Shape> v = ParseInts(*t); v && !v->empty()) return Prod(*v);
  }
  const Shape& w = DimsAt(a, spec.w);
  if (!w.empty()) return Prod(w);
  return std::nullopt;
}

OpCost Norm(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& x = DimsAt(a, spec.x);
  if (x.empty() || !Positive(x)) return Unknown(c, "input shape not recorded");
  const double n = Prod(x);
  const bool weight = !DimsAt(a, spec.w).empty(), bias = spec.v >= 0 && !DimsAt(a, spec.v).empty();
  const DtypeInfo in = DtypeOf(TypeAt(a, spec.x));
  const DtypeInfo wt = weight ? DtypeOf(TypeAt(a, spec.w)) : in;
  double channels = x.size() >= 2 ? static_cast<double>(x[1]) : 1;  // batch/group norm: per channel
  c.known = true;
  switch (spec.formula) {
    case Formula::kLayerNorm:
    case Formula::kRmsNorm: {
      std::optional<double> cn = NormalizedSize(spec, a);
      if (!cn || *cn <= 0) return Unknown(c, "normalized_shape not recorded and no weight");
      channels = *cn;
      if (spec.formula == Formula::kRmsNorm) {
        // TraceLens RMSNorm: rows·(2C + 2) for the rsqrt of the mean square, then 1 or 2 per element.
        c.flop = (n / channels) * (2 * channels + 2) + n * (weight ? 2 : 1);
      } else {
        c.flop = n * (5 + (weight ? 1 : 0) + (bias ? 1 : 0));
      }
      break;
    }
    case Formula::kBatchNorm:
    case Formula::kGroupNorm: c.flop = n * (5 + (weight ? 1 : 0) + (bias ? 1 : 0)); break;
    case Formula::kNormBwd: {
      const Shape& g = DimsAt(a, spec.g);
      if (g.empty()) return Unknown(c, "grad_output shape not recorded");
      c.flop = 10 * n;
      if (in.bytes > 0)
        SetBytes(&c, 3 * n * in.bytes + (weight ? 3 * Prod(DimsAt(a, spec.w)) * wt.bytes : 0));  // + weight, dW, dB
      return c;
    }
    default: return Unknown(c, "internal: not a norm formula");
  }
  if (in.bytes > 0) SetBytes(&c, 2 * n * in.bytes + ((weight ? 1 : 0) + (bias ? 1 : 0)) * channels * wt.bytes);
  return c;
}

OpCost Softmax(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& x = DimsAt(a, spec.x);
  if (x.empty() || !Positive(x)) return Unknown(c, "input shape not recorded");
  const double n = Prod(x);
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes;
  const double f = spec.backward ? 2 : 1;  // TraceLens: backward is twice the forward
  c.known = true;
  c.flop = f * 3 * n;
  if (bpe > 0) SetBytes(&c, f * 2 * n * bpe);
  return c;
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = std::max(da, db);
  }
  return out;
}

OpCost Elementwise(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& x = DimsAt(a, spec.x);
  if (!IsTensor(a, spec.x) || !Positive(x)) return Unknown(c, "input is not a recorded tensor");
  const DtypeInfo in = DtypeOf(TypeAt(a, spec.x));
  const double n = Prod(x);
  c.known = true;
  switch (spec.formula) {
    case Formula::kUnary: {
      // An out= tensor as the second argument gives the output dtype (TraceLens).
      const DtypeInfo out = !DimsAt(a, 1).empty() && IsTensor(a, 1) ? DtypeOf(TypeAt(a, 1)) : in;
      c.flop = n;
      SetBytes(&c, n * in.bytes + n * out.bytes);
      return c;
    }
    case Formula::kBinary: {
      const bool other_tensor = IsTensor(a, spec.w);
      const Shape& y = DimsAt(a, spec.w);
      std::optional<Shape> out = other_tensor ? Broadcast(x, y) : std::optional<Shape>(x);
      if (!out) return Unknown(c, "shapes do not broadcast: " + ShapeText(x) + " and " + ShapeText(y));
      const DtypeInfo other = other_tensor ? DtypeOf(TypeAt(a, spec.w)) : DtypeInfo{};
      // A zero-dim operand (a Python number recorded as a 0-d "double"/"long" tensor, or a 0-d
      // tensor) is a scalar: read once, no traffic worth counting, and it does not promote the
      // result's dtype (PyTorch's type promotion: dimensioned operands decide within a category).
      // A Scalar operand is passed by value: no memory traffic (TraceLens leaves such bytes unknown).
      const bool x_scalar = x.empty(), y_scalar = !other_tensor || y.empty();
      int out_bpe = x_scalar && !y_scalar ? other.bytes : y_scalar ? in.bytes : std::max(in.bytes, other.bytes);
      if (!DimsAt(a, 2).empty() && IsTensor(a, 2)) out_bpe = DtypeOf(TypeAt(a, 2)).bytes;  // out=
      const double no = Prod(*out);
      c.flop = no;
      // Each operand is read at its own size: a broadcast operand ([C] against [N, C]) once.
      SetBytes(&c, (x_scalar ? 0 : n * in.bytes) + (y_scalar ? 0 : Prod(y) * other.bytes) + no * out_bpe);
      return c;
    }
    case Formula::kCopy: {
      // copy_(self, src): write self, read src at its own size (a broadcast source is read once).
      const bool src_tensor = IsTensor(a, spec.w);
      const DtypeInfo src = src_tensor ? DtypeOf(TypeAt(a, spec.w)) : in;
      const double src_n = src_tensor && !DimsAt(a, spec.w).empty() && Positive(DimsAt(a, spec.w)) ? Prod(DimsAt(a, spec.w)) : n;
      c.flop = n;
      SetBytes(&c, n * in.bytes + std::min(n, src_n) * src.bytes);
      return c;
    }
    case Formula::kFill:
      c.flop = 0;
      SetBytes(&c, n * in.bytes);
      return c;
    default: return Unknown(c, "internal: not an elementwise formula");
  }
}

OpCost Reduction(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& x = DimsAt(a, spec.x);
  if (!IsTensor(a, spec.x) || !Positive(x)) return Unknown(c, "input is not a recorded tensor");
  const DtypeInfo in = DtypeOf(TypeAt(a, spec.x));
  const double n = Prod(x);
  c.known = true;
  c.flop = n;
  std::optional<std::string_view> dim_text = ConcreteAt(a, spec.flag);
  if (!dim_text) {
    SetBytes(&c, n * in.bytes);
    c.note = "reduced dims not recorded: bytes count the input read only (a lower bound)";
    return c;
  }
  double out = 1;  // no dim: a full reduction
  if (std::optional<Shape> dims = ParseInts(*dim_text)) {
    out = n;
    for (int64_t d : *dims) {
      const int64_t i = d < 0 ? d + static_cast<int64_t>(x.size()) : d;
      if (i < 0 || static_cast<size_t>(i) >= x.size()) return Unknown(c, "reduced dim out of range");
      if (x[i] > 0) out /= static_cast<double>(x[i]);
    }
  }
  SetBytes(&c, n * in.bytes + out * in.bytes);
  return c;
}

OpCost Embedding(const OpSpec& spec, const OpArgs& a, OpCost c) {
  const Shape& w = DimsAt(a, spec.x);
  const Shape& idx = DimsAt(a, spec.w);
  if (w.size() != 2 || !IsTensor(a, spec.w)) return Unknown(c, "expects weight [V, D] and an index tensor");
  const double rows = Prod(idx);
  const int bpe = DtypeOf(TypeAt(a, spec.x)).bytes, ibpe = DtypeOf(TypeAt(a, spec.w)).bytes;
  c.known = true;
  c.flop = 0;
  SetBytes(&c, 2 * rows * static_cast<double>(w[1]) * bpe + rows * ibpe);  // gather rows, write them, read ids
  return c;
}

}  // namespace

int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation) {
  if (stride <= 0) return -1;
  const int64_t span = in + 2 * padding - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return span / stride + 1;
}

StatusOr<OpArgs> ParseOpArgs(std::string_view input_dims, std::string_view input_types, std::string_view input_strides,
                             std::string_view concrete_inputs) {
  OpArgs a;
  std::string err;
  if (!ParseJsonShapeList(input_dims, "Input Dims", &a.dims, &err) ||
      !ParseJsonTextList(input_types, "Input type", &a.types, &err) ||
      !ParseJsonShapeList(input_strides, "Input Strides", &a.strides, &err) ||
      !ParseJsonTextList(concrete_inputs, "Concrete Inputs", &a.concrete, &err)) {
    return Status::Error(err);
  }
  a.has_strides = !input_strides.empty();
  a.has_concrete = !concrete_inputs.empty();
  return a;
}

bool IsMatrixFamily(OpFamily f) {
  return f == OpFamily::kGemm || f == OpFamily::kConvFwd || f == OpFamily::kConvBwd ||
         f == OpFamily::kAttentionFwd || f == OpFamily::kAttentionBwd;
}

bool HasOpModel(std::string_view op_name) { return detail::FindOpSpec(op_name) != nullptr; }

OpFamily FamilyOf(std::string_view op_name) {
  const OpSpec* s = detail::FindOpSpec(op_name);
  return s ? s->family : OpFamily::kCount;
}

OpCost ModelOp(std::string_view op_name, const OpArgs& args, const OpHints& hints) {
  OpCost c;
  const OpSpec* spec = detail::FindOpSpec(op_name);
  if (spec == nullptr) return Unknown(c, "no model for " + std::string(op_name));
  c.family = spec->family;
  c.backward = spec->backward;
  c.precision = DtypeOf(TypeAt(args, spec->x)).precision;
  c.unit = IsMatrixFamily(spec->family) ? MathUnit::kMatrix : MathUnit::kVector;
  if (args.dims.empty()) return Unknown(c, "no Input Dims recorded (record_shapes was off)");
  switch (spec->formula) {
    case Formula::kMm:
    case Formula::kAddmm:
    case Formula::kBmm:
    case Formula::kBaddbmm:
    case Formula::kMatmul:
    case Formula::kLinear: return Gemm(*spec, args, c);
    case Formula::kConv: return Conv(*spec, args, hints, c);
    case Formula::kConvBwd: return ConvBwd(*spec, args, hints, c);
    case Formula::kSdpaFwd:
    case Formula::kSdpaBwd: return Attention(*spec, args, c);
    case Formula::kSoftmax:
    case Formula::kSoftmaxBwd: return Softmax(*spec, args, c);
    case Formula::kLayerNorm:
    case Formula::kRmsNorm:
    case Formula::kBatchNorm:
    case Formula::kGroupNorm:
    case Formula::kNormBwd: return Norm(*spec, args, c);
    case Formula::kUnary:
    case Formula::kBinary:
    case Formula::kCopy:
    case Formula::kFill: return Elementwise(*spec, args, c);
    case Formula::kReduction: return Reduction(*spec, args, c);
    case Formula::kEmbedding: return Embedding(*spec, args, c);
    case Formula::kCount: break;
  }
  return Unknown(c, "internal: no formula");
}

}  // namespace ampscope::roofline
