// Status and StatusOr: the one way parsing, analysis and output report failure.
// Exceptions never cross a library boundary; errors carry a message a user can act on
// (file, byte offset or record, what was expected).
#pragma once

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace ampscope {

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !error_.has_value(); }
  const std::string& message() const {
    static const std::string kEmpty;
    return error_ ? *error_ : kEmpty;
  }

 private:
  explicit Status(std::string message) : error_(std::move(message)) {}
  std::optional<std::string> error_;
};

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {   // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Error("internal: StatusOr built from an OK status");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

#define AMPSCOPE_RETURN_IF_ERROR(expr)        \
  do {                                        \
    ::ampscope::Status _st = (expr);          \
    if (!_st.ok()) return _st;                \
  } while (0)

// Invariants (programming errors, not bad input).
#define AMPSCOPE_CHECK(cond)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "ampscope: internal check failed at %s:%d: %s\n", __FILE__, \
                   __LINE__, #cond);                                                  \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

}  // namespace ampscope
