#include "reports/contract/roofline_view.h"

#include "reports/contract/ranks_view.h"
#include "reports/contract/report_fields.h"
#include "reports/contract/report_reader.h"
#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = roofline_key;

namespace {

RooflineRoof ReadRoof(const json& r) {
  return {TextMember(r, key::kPrecision), TextMember(r, key::kUnit), NumberMember(r, key::kTflops)};
}

RooflineStep ReadStep(const json& s) {
  return {NumberMember(s, key::kStep), NumberMember(s, key::kTimeUs), NumberMember(s, key::kModelGflop),
          NumberMember(s, key::kAchievedTflops), NumberMember(s, key::kMfuPct)};
}

RooflineOp ReadOp(const json& o) {
  RooflineOp op;
  op.op = TextMember(o, key::kOp);
  const json& dims = Member(o, key::kInputDims);
  op.input_dims = dims.is_string() ? dims.get<std::string>() : dims.dump(-1, ' ', false, json::error_handler_t::replace);
  op.dtype = StringMember(o, key::kDtype);
  op.pass = TextMember(o, key::kPass);
  op.count = NumberMember(o, key::kCount);
  op.gflop = NumberMember(o, key::kGflop);
  op.flop_per_byte = NumberMember(o, key::kFlopPerByte);
  op.kernel_time_us = NumberMember(o, key::kKernelTimeUs);
  op.tflops = NumberMember(o, key::kTflops);
  op.tbps = NumberMember(o, key::kTbps);
  op.bound = StringMember(o, key::kBound);
  op.pct_of_peak = NumberMember(o, key::kPctOfPeak);
  op.pct_note = TextMember(o, key::kPctNote);
  op.note = TextMember(o, key::kNote);
  return op;
}

}  // namespace

RooflineSection ReadRooflineSection(const json& roof) {
  RooflineSection s;
  if (!roof.is_object()) return s;
  s.present = true;
  s.available = TrueMember(roof, key::kAvailable);
  s.reason = StringMember(roof, key::kReason);
  const json& gpu = Member(roof, key::kGpu);
  s.gpu.peak_id = StringMember(gpu, key::kPeakId);
  s.gpu.match = TextMember(gpu, key::kMatch);
  s.gpu.hbm_tbps = NumberMember(gpu, key::kHbmTbps);
  s.gpu.roofs = ListMember<RooflineRoof>(gpu, key::kRoofs, ReadRoof);
  s.window = TextMember(roof, key::kWindow);
  s.step_gflop = NumberMember(roof, key::kStepGflop);
  s.achieved_tflops = NumberMember(roof, key::kAchievedTflops);
  s.peak_tflops = NumberMember(roof, key::kPeakTflops);
  s.peak_precision = TextMember(roof, key::kPeakPrecision);
  s.mfu_pct = NumberMember(roof, key::kMfuPct);
  s.mfu_reason = StringMember(roof, key::kMfuReason);
  s.hfu_pct = NumberMember(roof, key::kHfuPct);
  s.steps = ListMember<RooflineStep>(roof, key::kSteps, ReadStep);
  s.ops = ListMember<RooflineOp>(roof, key::kOps, ReadOp);
  s.ops_total = NumberMember(roof, key::kOpsTotal);
  const json& coverage = Member(roof, key::kCoverage);
  s.coverage.kernel_time_us = NumberMember(coverage, key::kKernelTimeUs);
  s.coverage.modelled_kernel_time_us = NumberMember(coverage, key::kModelledKernelTimeUs);
  return s;
}

RooflineView ReadRooflineView(const json& report) {
  RooflineView v;
  v.report = ReadRooflineSection(Member(report, key::kRoofline));
  const json* ranks = FindPath(report, report_field::kRanks);
  if (ranks != nullptr && ranks->is_array() && !ranks->empty()) {
    v.ranks = ranks->size();
    v.first_rank = NumberMember((*ranks)[0], ranks_key::kRank);
    v.first_rank_roofline = ReadRooflineSection(Member((*ranks)[0], key::kRoofline));
  }
  return v;
}

}  // namespace ampscope::reports
