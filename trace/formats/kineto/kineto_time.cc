// The one conversion of Kineto's microsecond numbers to int64 ns (see kineto_time.h).
#include "trace/formats/kineto/kineto_time.h"

#include <climits>

namespace ampscope {

bool ParseMicrosToNs(std::string_view t, int64_t* ns) {
  // Fast path, the common Kineto form: up to 16 integer digits (µs since the epoch have
  // 16), an optional fraction, no exponent. kMaxFastWhole keeps whole*1000 + 1000 in int64.
  {
    size_t i = 0;
    const size_t n = t.size();
    const bool negative = n > 0 && t[0] == '-';
    i = negative ? 1 : 0;
    int64_t whole = 0;
    const size_t int_begin = i;
    while (i < n && t[i] >= '0' && t[i] <= '9' && i - int_begin < 16) whole = whole * 10 + (t[i++] - '0');
    const size_t int_len = i - int_begin;
    constexpr int64_t kMaxFastWhole = INT64_MAX / 1000 - 1;
    if (int_len > 0 && whole <= kMaxFastWhole && (i == n || (t[i] == '.' && i + 1 < n))) {
      int64_t frac = 0;
      int frac_digits = 0, round_digit = 0;
      bool ok = true;
      if (i < n) {
        for (++i; i < n; ++i) {
          const char c = t[i];
          if (c < '0' || c > '9') {
            ok = false;
            break;
          }
          if (frac_digits < 3) {
            frac = frac * 10 + (c - '0');
            ++frac_digits;
          } else if (frac_digits == 3) {
            round_digit = c - '0';
            ++frac_digits;
          }
        }
      }
      if (ok) {
        for (int k = frac_digits; k < 3; ++k) frac *= 10;
        int64_t v = whole * 1000 + frac + (round_digit >= 5 ? 1 : 0);
        *ns = negative ? -v : v;
        return true;
      }
    }
  }
  // General path: exponents, long digit strings, and everything invalid.
  const size_t n = t.size();
  size_t i = 0;
  bool negative = false;
  if (i < n && t[i] == '-') {
    negative = true;
    ++i;
  }
  const size_t int_begin = i;
  while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
  const size_t int_len = i - int_begin;
  if (int_len == 0) return false;  // JSON needs a digit before '.' (also rejects NaN/Infinity)
  size_t frac_begin = i, frac_len = 0;
  if (i < n && t[i] == '.') {
    frac_begin = ++i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    frac_len = i - frac_begin;
    if (frac_len == 0) return false;
  }
  int64_t exponent = 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
    size_t exp_begin = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') {
      if (exponent < 1000000) exponent = exponent * 10 + (t[i] - '0');  // clamp; huge = overflow/zero anyway
      ++i;
    }
    if (i == exp_begin) return false;
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return false;

  // The number is D * 10^(exponent - frac_len) µs, D being all its digits as one integer, so
  // it is D * 10^shift ns.
  const int64_t total_digits = static_cast<int64_t>(int_len + frac_len);
  const int64_t shift = exponent - static_cast<int64_t>(frac_len) + 3;
  auto digit = [&](int64_t k) -> int {
    size_t idx = static_cast<size_t>(k);
    return (idx < int_len ? t[int_begin + idx] : t[frac_begin + idx - int_len]) - '0';
  };
  // Digits kept (weight >= 1 ns) and the first dropped one, which decides the rounding.
  const int64_t keep = shift >= 0 ? total_digits : total_digits + shift;
  int64_t acc = 0;
  bool all_zero = true;
  for (int64_t k = 0; k < keep; ++k) {
    int d = digit(k);
    if (d != 0) all_zero = false;
    if (all_zero) continue;
    if (__builtin_mul_overflow(acc, int64_t{10}, &acc) || __builtin_add_overflow(acc, int64_t{d}, &acc)) return false;
  }
  if (shift > 0 && !all_zero) {
    for (int64_t k = 0; k < shift; ++k)
      if (__builtin_mul_overflow(acc, int64_t{10}, &acc)) return false;
  }
  if (shift < 0 && keep >= 0 && keep < total_digits && digit(keep) >= 5) {
    if (__builtin_add_overflow(acc, int64_t{1}, &acc)) return false;
  }
  *ns = negative ? -acc : acc;
  return true;
}

}  // namespace ampscope
