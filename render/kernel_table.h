// The table of `ampscope kernels`: every distinct kernel with its time, count and how the
// classifier sees it, rendered from the same JSON rows that `ampscope kernels --json` prints
// (name, count, total_us, mean_us, share_pct, category, precision, tensor_core,
// tensor_core_known, rule), fitted to the terminal width.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "render/terminal.h"

namespace ampscope::render {

struct KernelTableOptions {
  size_t width = kDefaultWidth;
  bool wide = false;     // full kernel names (wrapped), else short names cut to fit
  bool explain = false;  // the classifier rule under each kernel
  std::string title;     // the first line ("trace.json: 2700 kernels, ...")
  size_t more = 0;       // kernels not in `rows`
};

std::string RenderKernelTable(const nlohmann::json& rows, const KernelTableOptions& options);

}  // namespace ampscope::render
