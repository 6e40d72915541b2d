#include "reports/contract/inputs_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = inputs_key;

namespace {

InputRow ReadInput(const json& in) { return {StringMember(in, key::kPath), TextMember(in, key::kFormat)}; }

DeviceRow ReadDevice(const json& d) {
  return {TextMember(d, key::kName), TextMember(d, key::kVendor), TextMember(d, key::kComputeCapability),
          TextMember(d, key::kComputeCapabilityBasis), TextMember(Member(d, key::kPeak), key::kMatched)};
}

}  // namespace

InputsView ReadInputsView(const json& report) { return {ListMember<InputRow>(report, key::kInputs, ReadInput), ReadDevices(report)}; }

std::vector<DeviceRow> ReadDevices(const json& report) { return ListMember<DeviceRow>(report, key::kDevices, ReadDevice); }

}  // namespace ampscope::reports
