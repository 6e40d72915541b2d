// The FLOP and byte model of CPU ops (analyzers/roofline/op_models.h), computed once per
// distinct (name, input dims, types, strides, concrete inputs): a training run repeats the same
// few hundred shapes every step, and the what-if transforms ask for every call.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "analyzers/roofline/op_models.h"
#include "trace/model.h"

namespace ampscope::graph {

class OpCostCache {
 public:
  explicit OpCostCache(const Trace& trace) : trace_(trace) {}
  // The op's cost; unknown (known == false) when its arguments do not parse.
  const roofline::OpCost& Of(const CpuOp& op);
  // True when `name` is an op autocast keeps in fp32 (trace/classify's list), once per name.
  bool AutocastFp32(StringId name);

 private:
  struct Key {
    StringId name, dims, types, strides, concrete;
    bool operator==(const Key& o) const {
      return name == o.name && dims == o.dims && types == o.types && strides == o.strides && concrete == o.concrete;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.name;
      for (uint64_t x : {k.dims, k.types, k.strides, k.concrete}) h = h * 0x9E3779B97F4A7C15ull + x;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  const Trace& trace_;
  std::unordered_map<Key, roofline::OpCost, KeyHash> costs_;
  std::unordered_map<StringId, bool> fp32_;
};

}  // namespace ampscope::graph
