// A forward iterator over a table whose rows are rebuilt when read (operator[] returns a value):
// the sparse tables that keep per-step results compact (IdleGapCauseTable, CriticalPathSteps)
// iterate with it, so `for (auto x : table)` reads each row whole, by value.
#pragma once

#include <cstddef>

namespace ampscope {

template <typename Table, typename Row>
class ByValueIterator {
 public:
  ByValueIterator(const Table* table, size_t i) : table_(table), i_(i) {}
  Row operator*() const { return (*table_)[i_]; }
  ByValueIterator& operator++() {
    ++i_;
    return *this;
  }
  bool operator!=(const ByValueIterator& other) const { return i_ != other.i_; }

 private:
  const Table* table_;
  size_t i_;
};

}  // namespace ampscope
