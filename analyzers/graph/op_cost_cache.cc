#include "analyzers/graph/op_cost_cache.h"

#include "trace/classify/host_roles.h"

namespace ampscope::graph {

const roofline::OpCost& OpCostCache::Of(const CpuOp& op) {
  const Key key{op.name, op.input_dims, op.input_types, op.input_strides, op.concrete_inputs};
  auto it = costs_.find(key);
  if (it != costs_.end()) return it->second;
  roofline::OpCost cost;
  auto args = roofline::ParseOpArgs(trace_.str(op.input_dims), trace_.str(op.input_types), trace_.str(op.input_strides),
                                    trace_.str(op.concrete_inputs));
  if (args.ok()) cost = roofline::ModelOp(trace_.str(op.name), args.value());
  return costs_.emplace(key, std::move(cost)).first->second;
}

bool OpCostCache::AutocastFp32(StringId name) {
  auto it = fp32_.find(name);
  if (it != fp32_.end()) return it->second;
  return fp32_.emplace(name, IsAutocastFp32Op(trace_.str(name))).first->second;
}

}  // namespace ampscope::graph
