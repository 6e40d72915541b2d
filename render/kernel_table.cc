#include "render/kernel_table.h"

#include <fmt/format.h>

#include "render/format.h"
#include "render/kernel_names.h"
#include "render/text_table.h"

namespace ampscope::render {

using nlohmann::json;

std::string RenderKernelTable(const json& rows, const KernelTableOptions& options) {
  using Column = TextTable::Column;
  using Align = TextTable::Align;
  using Overflow = TextTable::Overflow;
  auto col = [](const char* header, Align align, Overflow overflow = Overflow::kKeep, size_t min_width = 8) {
    Column c;
    c.header = header;
    c.align = align;
    c.overflow = overflow;
    c.min_width = min_width;
    return c;
  };
  Column name = col(options.wide ? "KERNEL" : "KERNEL (short name)", Align::kLeft,
                    options.wide || options.explain ? Overflow::kWrap : Overflow::kTruncateHead, 16);
  name.block_head = true;
  name.priority = 1;  // the category wraps before the name is cut
  // CLASS is the classifier's category and precision ("conv fp32"); TC its Tensor Core verdict.
  TextTable t({col("SHARE", Align::kRight), col("TOTAL", Align::kRight), col("COUNT", Align::kRight), col("MEAN", Align::kRight),
               col("CLASS", Align::kLeft, Overflow::kWrap, 13), col("TC", Align::kLeft), name});
  std::vector<std::string> full_names;
  for (const json& k : rows)
    if (k.is_object()) full_names.push_back(String(k, "/name"));
  // Short names, told apart where two kernels share one.
  const std::vector<std::string> short_names = DistinctShortNames(full_names);
  size_t row = 0;
  for (const json& k : rows) {
    if (!k.is_object()) continue;
    const std::string& full = full_names[row];
    const bool known = k.value("tensor_core_known", true);
    const std::string tc = !known ? "?" : k.value("tensor_core", false) ? "yes" : "no";
    std::string shown = options.wide ? full : short_names[row];
    ++row;
    // The rule on its own line under the name.
    if (options.explain && !String(k, "/rule").empty()) shown += "\nrule: " + String(k, "/rule");
    t.AddRow({Pct(Number(k, "/share_pct"), 2), DurationUs(Number(k, "/total_us")), Count(Number(k, "/count")),
              DurationUs(Number(k, "/mean_us")), String(k, "/category") + " " + String(k, "/precision"), tc, shown});
  }
  TableStyle style;
  style.width = options.width;
  std::string out = options.title.empty() ? "" : WrapParagraph(options.title, options.width, "", "  ");
  out += t.Render(style);
  if (!options.wide) out += WrapParagraph("Full kernel names: --wide (or --json).", options.width, "", "");
  if (options.more > 0) out += WrapParagraph(fmt::format("... {} more (use --top N or --json for all)", options.more), options.width, "", "");
  return out;
}

}  // namespace ampscope::render
