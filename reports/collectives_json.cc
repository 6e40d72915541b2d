#include "reports/collectives_json.h"

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include "base/units.h"

namespace ampscope {

namespace {

using nlohmann::json;

json OptUs(const std::optional<TimeNs>& ns) { return ns ? json(NsToUs(*ns)) : json(nullptr); }
json OptNum(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }
json OptStr(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json BucketsJson(const std::array<TimeNs, kPreCollectiveBuckets>& ns, bool in_us) {
  json out = json::object();
  for (size_t b = 0; b < kPreCollectiveBuckets; ++b) {
    const char* name = PreCollectiveBucketName(static_cast<PreCollectiveBucket>(b));
    out[name] = in_us ? json(NsToUs(ns[b])) : json(ns[b]);
  }
  return out;
}

json MatchedJson(const MatchedCollective& m, size_t index) {
  return {{"index", index},
          {"match_key", m.match_key},
          {"matched_by", m.by_seq ? "seq" : "ordinal"},
          {"position", m.index},
          {"type", CollectiveTypeName(m.type)},
          {"type_mismatch", m.type_mismatch},
          {"ranks", m.ranks},
          {"first_rank", m.first_rank},
          {"last_rank", m.last_rank},
          {"first_start_us", NsToUs(m.first_start_ns)},
          {"last_start_us", NsToUs(m.last_start_ns)},
          {"skew_us", OptUs(m.skew_ns)},
          {"last_delay_us", OptUs(m.last_delay_ns)},
          {"wait_us", OptUs(m.wait_ns)},
          {"transfer_us", OptUs(m.transfer_ns)},
          {"end_spread_us", NsToUs(m.end_spread_ns)},
          {"bytes", m.bytes >= 0 ? json(m.bytes) : json(nullptr)},
          {"algbw_gbs", OptNum(m.algbw_gbs)},
          {"busbw_gbs", OptNum(m.busbw_gbs)},
          {"busbw_pct_of_link", OptNum(m.busbw_pct_of_link)}};
}

json StragglerJson(const std::optional<StragglerResult>& s) {
  if (!s) return nullptr;
  return {{"rank", s->rank},
          {"max_skew_us", NsToUs(s->max_skew_ns)},
          {"worst_collective", s->worst},
          {"wait_caused_us", NsToUs(s->wait_caused_ns)},
          {"others_wait_us", NsToUs(s->others_wait_ns)},
          {"collectives", s->collectives},
          {"local_cause", s->cause.name},
          {"local_cause_us", NsToUs(s->cause.excess_ns)},
          {"step_start_delay_us", NsToUs(s->cause.late_step_start_ns)},
          {"before_collective_us", BucketsJson(s->cause.rank_ns, true)},
          {"others_median_before_us", BucketsJson(s->cause.others_median_ns, true)},
          {"step_us", NsToUs(s->job_step_ns)},
          {"replayed_saving_us", s->replayed_saving_ns >= 0 ? json(NsToUs(s->replayed_saving_ns)) : json(nullptr)},
          {"job_window_us", NsToUs(s->job_window_ns)}};
}

// ---- reading back

Status Need(const json& j, const char* key, json::value_t type, const json** out) {
  auto it = j.find(key);
  const bool number = type == json::value_t::number_integer || type == json::value_t::number_float;
  if (it == j.end() || (number ? !it->is_number() : it->type() != type))
    return Status::Error(std::string("collectives: field \"") + key + "\" is missing or of the wrong type");
  *out = &*it;
  return Status::Ok();
}

template <typename T>
Status Get(const json& j, const char* key, T* v) {
  const json* x = nullptr;
  json::value_t t = json::value_t::number_integer;
  if constexpr (std::is_same_v<T, std::string>) t = json::value_t::string;
  if constexpr (std::is_same_v<T, bool>) t = json::value_t::boolean;
  if constexpr (std::is_floating_point_v<T>) t = json::value_t::number_float;
  Status s = Need(j, key, t, &x);
  if (!s.ok()) return s;
  *v = x->get<T>();
  return Status::Ok();
}

#define AMPSCOPE_GET(j, key, ptr)   \
  do {                              \
    Status st_ = Get(j, key, ptr);  \
    if (!st_.ok()) return st_;      \
  } while (0)

}  // namespace

json CollectivesJson(const CrossRankResult& r, const std::vector<RankAnalysis>& ranks) {
  json calls = json::array();
  for (size_t i = 0; i < r.collectives.size(); ++i) calls.push_back(MatchedJson(r.collectives[i], i));
  json per_rank = json::array();
  for (const RankAnalysis& ra : ranks)
    per_rank.push_back({{"rank", ra.rank},
                        {"host", OptStr(ra.comm.host)},
                        {"calls", ra.collectives.size()},
                        {"link_gbs", ra.comm.link_gbs > 0 ? json(ra.comm.link_gbs) : json(nullptr)},
                        {"link", ra.comm.link}});
  return {{"ranks", r.ranks},
          {"clocks", {{"comparable", r.clocks_comparable}, {"note", r.clock_note}}},
          {"matched", r.collectives.size()},
          {"unmatched_calls", r.unmatched_calls},
          {"calls", calls},
          {"per_rank", per_rank},
          {"straggler", StragglerJson(r.straggler)}};
}

json RankCollectivesToJson(const std::vector<CollectiveCall>& calls, const RankCommInfo& comm) {
  json list = json::array();
  for (const CollectiveCall& c : calls)
    list.push_back({{"type", CollectiveTypeName(c.type)},
                    {"process_group", c.process_group},
                    {"seq", c.seq},
                    {"ordinal", c.ordinal},
                    {"match_key", c.match_key},
                    {"device", c.device},
                    {"stream", c.stream},
                    {"start_ns", c.start_ns},
                    {"end_ns", c.end_ns},
                    {"bytes", c.bytes},
                    {"bytes_source", c.bytes_source},
                    {"bytes_unknown_why", c.bytes_unknown_why},
                    {"dtype", c.dtype},
                    {"group_size", c.group_size},
                    {"step_index", c.step_index},
                    {"kernel", c.kernel},
                    {"critical_path_ns", c.critical_path_ns},
                    {"before",
                     {{"window_start_ns", c.before.window_start_ns},
                      {"from_step_start", c.before.from_step_start},
                      {"ns", BucketsJson(c.before.ns, false)}}}});
  return {{"comm",
           {{"host", comm.host},
            {"world_size", comm.world_size},
            {"link_gbs", comm.link_gbs},
            {"link", comm.link}}},
          {"calls", list}};
}

Status RankCollectivesFromJson(const json& j, std::vector<CollectiveCall>* calls, RankCommInfo* comm) {
  if (!j.is_object()) return Status::Error("collectives: expected an object");
  const json* c = nullptr;
  const json* list = nullptr;
  Status s = Need(j, "comm", json::value_t::object, &c);
  if (s.ok()) s = Need(j, "calls", json::value_t::array, &list);
  if (!s.ok()) return s;
  RankCommInfo info;
  AMPSCOPE_GET(*c, "host", &info.host);
  AMPSCOPE_GET(*c, "world_size", &info.world_size);
  AMPSCOPE_GET(*c, "link_gbs", &info.link_gbs);
  AMPSCOPE_GET(*c, "link", &info.link);
  std::vector<CollectiveCall> out;
  for (const json& e : *list) {
    if (!e.is_object()) return Status::Error("collectives: a call is not an object");
    CollectiveCall k;
    std::string type;
    AMPSCOPE_GET(e, "type", &type);
    bool found = false;
    for (size_t t = 0; t < static_cast<size_t>(CollectiveType::kCount); ++t)
      if (type == CollectiveTypeName(static_cast<CollectiveType>(t))) {
        k.type = static_cast<CollectiveType>(t);
        found = true;
      }
    if (!found) return Status::Error("collectives: unknown collective type \"" + type + "\"");
    AMPSCOPE_GET(e, "process_group", &k.process_group);
    AMPSCOPE_GET(e, "seq", &k.seq);
    AMPSCOPE_GET(e, "ordinal", &k.ordinal);
    AMPSCOPE_GET(e, "match_key", &k.match_key);
    AMPSCOPE_GET(e, "device", &k.device);
    AMPSCOPE_GET(e, "stream", &k.stream);
    AMPSCOPE_GET(e, "start_ns", &k.start_ns);
    AMPSCOPE_GET(e, "end_ns", &k.end_ns);
    AMPSCOPE_GET(e, "bytes", &k.bytes);
    AMPSCOPE_GET(e, "bytes_source", &k.bytes_source);
    AMPSCOPE_GET(e, "bytes_unknown_why", &k.bytes_unknown_why);
    AMPSCOPE_GET(e, "dtype", &k.dtype);
    AMPSCOPE_GET(e, "group_size", &k.group_size);
    AMPSCOPE_GET(e, "step_index", &k.step_index);
    AMPSCOPE_GET(e, "kernel", &k.kernel);
    if (e.contains("critical_path_ns")) AMPSCOPE_GET(e, "critical_path_ns", &k.critical_path_ns);
    const json* before = nullptr;
    const json* ns = nullptr;
    s = Need(e, "before", json::value_t::object, &before);
    if (s.ok()) s = Need(*before, "ns", json::value_t::object, &ns);
    if (!s.ok()) return s;
    AMPSCOPE_GET(*before, "window_start_ns", &k.before.window_start_ns);
    AMPSCOPE_GET(*before, "from_step_start", &k.before.from_step_start);
    for (size_t b = 0; b < kPreCollectiveBuckets; ++b)
      AMPSCOPE_GET(*ns, PreCollectiveBucketName(static_cast<PreCollectiveBucket>(b)), &k.before.ns[b]);
    out.push_back(std::move(k));
  }
  *calls = std::move(out);
  *comm = std::move(info);
  return Status::Ok();
}

}  // namespace ampscope
