// Joining Nsight Compute launches to a trace's kernels: by name (trace/classify's join key, so
// that namespaces, casts and spaces printed differently still meet) plus launch shape, then in
// launch order where a name and shape repeat. ncu usually profiles a few launches of each kernel
// (--launch-skip/--launch-count); the trace has many: the trace's j-th launch of a name and shape
// takes the metrics of the CSV's (j mod m)-th of its m launches of that name and shape.
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analyzers/ncu/ncu_internal.h"
#include "trace/classify/kernel_join_key.h"

namespace ampscope::ncu {

namespace {

// A launch shape: the 3D grid and block, or only their totals, or nothing.
struct Shape {
  enum Kind : uint8_t { kDims, kTotals, kNone } kind = kNone;
  std::array<uint64_t, 6> v{};
  bool operator<(const Shape& o) const { return std::tie(kind, v) < std::tie(o.kind, o.v); }
};

Shape ShapeOfLaunch(const NcuLaunch& l) {
  Shape s;
  if (l.dims_known) {
    s.kind = Shape::kDims;
    s.v = {l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]};
  } else if (l.grid_blocks() > 0 && l.block_threads() > 0) {
    s.kind = Shape::kTotals;
    s.v = {l.grid_blocks(), l.block_threads(), 0, 0, 0, 0};
  }
  return s;
}

// The trace kernel's shape in the form the CSV has (dims, totals or none).
Shape ShapeOfKernel(const LaunchConfig& k, Shape::Kind want) {
  Shape s;
  const uint64_t grid = uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
  const uint64_t block = uint64_t{k.block[0]} * k.block[1] * k.block[2];
  if (want == Shape::kNone || grid == 0 || block == 0) return s;
  s.kind = want;
  if (want == Shape::kDims) s.v = {k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]};
  else s.v = {grid, block, 0, 0, 0, 0};
  return s;
}

using Key = std::pair<std::string, Shape>;  // (join key or base name, shape)

}  // namespace

void JoinToTrace(const RankContext& ctx, NcuResult& r) {
  const Trace& t = ctx.trace();
  const NcuReport& rep = *r.report;
  r.weighting = "trace kernel time";
  r.kernels.clear();
  // Join keys of the launches.
  std::vector<std::string> launch_key(rep.launches.size()), launch_base(rep.launches.size());
  std::vector<Shape> launch_shape(rep.launches.size());
  for (size_t i = 0; i < rep.launches.size(); ++i) {
    const NcuLaunch& l = rep.launches[i];
    launch_key[i] = KernelJoinKey(l.name);
    launch_base[i] = KernelBaseName(launch_key[i]);
    launch_shape[i] = ShapeOfLaunch(l);
    KernelRow row;
    row.launch = i;
    row.cls = ClassifyKernel(l.name);
    row.bound = BoundOf(l);
    r.kernels.push_back(std::move(row));
  }
  // The trace's kernels in the windows, by join key and shape, in time order.
  std::unordered_map<StringId, std::pair<std::string, std::string>> names;  // name -> (key, base)
  std::map<Key, std::vector<size_t>> by_key;  // for each shape kind the CSV uses
  std::set<Shape::Kind> kinds;
  for (const Shape& s : launch_shape) kinds.insert(s.kind);
  const bool trace_has_shapes = std::any_of(t.kernels.begin(), t.kernels.end(),
                                            [&t](const KernelEvent& k) { return t.launch(k).grid[0] > 0 && t.launch(k).block[0] > 0; });
  double total_ns = 0;
  r.trace_kernels = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!ctx.kernels().in_window[i]) continue;
    const KernelEvent& k = t.kernels[i];
    ++r.trace_kernels;
    total_ns += static_cast<double>(k.duration_ns());
    auto it = names.find(k.name);
    if (it == names.end()) {
      std::string key = KernelJoinKey(t.str(k.name));
      std::string base = KernelBaseName(key);
      it = names.emplace(k.name, std::make_pair(std::move(key), std::move(base))).first;
    }
    for (Shape::Kind kind : kinds)
      by_key[{it->second.first, ShapeOfKernel(t.launch(k), trace_has_shapes ? kind : Shape::kNone)}].push_back(i);
  }
  std::vector<uint8_t> taken(t.kernels.size(), 0);
  auto assign = [&](const std::vector<size_t>& launches, const std::vector<size_t>& kernels, const char* match) {
    size_t j = 0;
    for (size_t k : kernels) {
      if (taken[k]) continue;
      taken[k] = 1;
      KernelRow& row = r.kernels[launches[j++ % launches.size()]];
      row.weight_ns += static_cast<double>(t.kernels[k].duration_ns());
      ++row.trace_kernels;
      row.trace_kernel_ids.push_back(static_cast<uint32_t>(k));
      row.match = match;
    }
  };
  // 1. join key + shape (name alone when the trace records no launch shapes).
  std::map<Key, std::vector<size_t>> launches_by_key;
  for (size_t i = 0; i < rep.launches.size(); ++i)
    launches_by_key[{launch_key[i], trace_has_shapes ? launch_shape[i] : Shape{}}].push_back(i);
  for (const auto& [key, launches] : launches_by_key)
    if (auto it = by_key.find(key); it != by_key.end()) assign(launches, it->second, trace_has_shapes ? "name+shape" : "name");
  // 2. base name + shape, where that pairs one key of the CSV with one key of the trace (a name
  // spelt differently beyond what the key evens out, never two kernels that share a base name).
  if (trace_has_shapes) {
    std::map<Key, std::set<std::string>> csv_keys, trace_keys;
    std::map<Key, std::vector<size_t>> csv_launches, trace_kernels;
    for (size_t i = 0; i < rep.launches.size(); ++i) {
      if (r.kernels[i].trace_kernels > 0 || launch_shape[i].kind == Shape::kNone) continue;
      const Key key{launch_base[i], launch_shape[i]};
      csv_keys[key].insert(launch_key[i]);
      csv_launches[key].push_back(i);
    }
    for (const auto& [key, kernels] : by_key) {
      for (size_t k : kernels) {
        if (taken[k] || key.second.kind == Shape::kNone) continue;
        const Key base{names.at(t.kernels[k].name).second, key.second};
        if (!csv_keys.count(base)) continue;
        trace_keys[base].insert(key.first);
        trace_kernels[base].push_back(k);
      }
    }
    for (auto& [key, kernels] : trace_kernels) {
      if (csv_keys[key].size() != 1 || trace_keys[key].size() != 1) continue;
      std::sort(kernels.begin(), kernels.end());  // time order
      kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
      assign(csv_launches[key], kernels, "base_name+shape");
    }
  }
  double matched_ns = 0;
  r.trace_kernels_matched = 0;
  r.launches_matched = 0;
  for (const KernelRow& row : r.kernels) {
    matched_ns += row.weight_ns;
    r.trace_kernels_matched += row.trace_kernels;
    r.launches_matched += row.trace_kernels > 0;
  }
  r.kernel_time_covered_pct = total_ns > 0 ? 100.0 * matched_ns / total_ns : 0;
  Measure(r, total_ns);
}

}  // namespace ampscope::ncu
