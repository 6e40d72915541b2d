#include "trace/classify/collective_roles.h"

#include <cctype>
#include <string>

namespace ampscope {

namespace {

// Lower case without '_' and ':', so "nccl:_all_gather_base" and "allgather" compare alike.
std::string Squash(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '_' || c == ':') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

struct Prefix {
  std::string_view squashed;
  CollectiveType type;
};
// Longest first where one is a prefix of another ("reducescatter" before "reduce").
constexpr Prefix kPrefixes[] = {
    {"allreduce", CollectiveType::kAllReduce},       {"allgather", CollectiveType::kAllGather},
    {"reducescatter", CollectiveType::kReduceScatter}, {"alltoall", CollectiveType::kAllToAll},
    {"broadcast", CollectiveType::kBroadcast},       {"bcast", CollectiveType::kBroadcast},
    {"reduce", CollectiveType::kReduce},             {"sendrecv", CollectiveType::kSendRecv},
    {"send", CollectiveType::kSendRecv},             {"recv", CollectiveType::kSendRecv},
    {"barrier", CollectiveType::kBarrier},
};

CollectiveType FromSquashed(std::string_view s) {
  for (const Prefix& p : kPrefixes)
    if (StartsWith(s, p.squashed)) return p.type;
  return CollectiveType::kUnknown;
}

}  // namespace

const char* CollectiveTypeName(CollectiveType t) {
  switch (t) {
    case CollectiveType::kAllReduce: return "all_reduce";
    case CollectiveType::kAllGather: return "all_gather";
    case CollectiveType::kReduceScatter: return "reduce_scatter";
    case CollectiveType::kAllToAll: return "all_to_all";
    case CollectiveType::kBroadcast: return "broadcast";
    case CollectiveType::kReduce: return "reduce";
    case CollectiveType::kSendRecv: return "send_recv";
    case CollectiveType::kBarrier: return "barrier";
    case CollectiveType::kUnknown:
    case CollectiveType::kCount: break;
  }
  return "unknown";
}

CollectiveType CollectiveTypeOfKernel(std::string_view kernel_name) {
  // NCCL and RCCL share the names: nccl[Dev]Kernel_<Coll>_..., or ncclAllReduceRingLLKernel_...
  std::string s = Squash(kernel_name.substr(0, 64));
  if (!StartsWith(s, "nccl")) return CollectiveType::kUnknown;
  std::string_view rest = std::string_view(s).substr(4);
  if (StartsWith(rest, "devkernel")) {
    rest.remove_prefix(9);
  } else if (StartsWith(rest, "kernel")) {
    rest.remove_prefix(6);
  }
  return FromSquashed(rest);
}

CollectiveType CollectiveTypeOfName(std::string_view name) {
  std::string s = Squash(name.substr(0, 96));
  std::string_view v = s;
  if (StartsWith(v, "c10d")) {
    v.remove_prefix(4);
  } else if (StartsWith(v, "nccl")) {
    v.remove_prefix(4);
  } else if (StartsWith(v, "gloo")) {
    v.remove_prefix(4);
  }
  return FromSquashed(v);
}

}  // namespace ampscope
