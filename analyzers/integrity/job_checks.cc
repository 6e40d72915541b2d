// The job checks of analyzers/integrity/integrity.h: the rank checks over the ranks, missing
// ranks and clock offsets.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analyzers/collectives/collectives.h"
#include "analyzers/integrity/integrity.h"
#include "analyzers/integrity/warmup.h"

namespace ampscope {

namespace {

void AddUnique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const std::string& s : from)
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

// "0, 3-7, 9"
std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + (j == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return s;
}

// A rank check over the job: its worst status, the ranks where it is not ok, what those ranks'
// checks make unreliable. One rank: that rank's check.
IntegrityCheck OverRanks(const std::string& id, const std::vector<RankAnalysis>& ranks) {
  if (ranks.size() == 1) {
    if (const IntegrityCheck* c = ranks.front().integrity.Find(id)) return *c;
  }
  IntegrityCheck j;
  j.id = id;
  std::vector<std::string> bad;
  for (const RankAnalysis& r : ranks) {
    const IntegrityCheck* c = r.integrity.Find(id);
    if (c == nullptr || c->status == IntegrityStatus::kOk) continue;
    j.status = std::max(j.status, c->status);
    j.ranks.push_back(r.rank);
    AddUnique(j.affects, c->affects);
    if (bad.size() < 2) bad.push_back(fmt::format("rank {} ({}): {}", r.rank, IntegrityStatusName(c->status), c->evidence));
  }
  if (j.ranks.empty()) {
    j.evidence = fmt::format("ok on all {} ranks", ranks.size());
  } else {
    j.evidence = fmt::format("{} of {} ranks ({})", j.ranks.size(), ranks.size(), RankList(j.ranks));
    for (const std::string& b : bad) j.evidence += "; " + b;
    if (j.ranks.size() > bad.size()) j.evidence += "; the others: see ranks[].trace_integrity";
  }
  j.values = {{"ranks_not_ok", std::vector<int64_t>(j.ranks.begin(), j.ranks.end())}};
  return j;
}

IntegrityCheck MissingRanks(JobAnalysis& job) {
  IntegrityCheck c;
  c.id = "missing_ranks";
  std::set<int32_t> world_sizes;
  std::set<int32_t> present;
  for (const RankAnalysis& r : job.ranks) {
    if (r.input.world_size > 0) world_sizes.insert(r.input.world_size);
    present.insert(r.rank);
  }
  job.world_size = world_sizes.size() == 1 ? *world_sizes.begin() : -1;
  job.missing_ranks = job.missing.size();
  const size_t inputs = job.ranks.size() + job.missing.size();
  c.affects = {};
  if (job.world_size < 0) {
    c.evidence = world_sizes.empty() ? "the traces name no world size: which ranks are missing is unknown"
                                     : "the traces name several world sizes: they are not one job";
    if (!job.missing.empty()) {
      c.status = IntegrityStatus::kWarn;
      c.evidence += fmt::format("; {} input{} could not be analysed", job.missing.size(), job.missing.size() == 1 ? "" : "s");
    }
  } else if (job.world_size == 1) {
    c.evidence = "a one-rank job (world size 1)";
  } else if (inputs <= 1) {
    c.evidence = fmt::format("one rank of a world size of {} analysed alone: job views (stragglers, imbalance) need "
                             "the other ranks' traces",
                             job.world_size);
  } else {
    std::vector<int32_t> missing;
    for (int32_t r = 0; r < job.world_size; ++r)
      if (!present.count(r)) missing.push_back(r);
    job.missing_ranks = std::max(job.missing_ranks, missing.size());
    if (missing.empty()) {
      c.evidence = fmt::format("all {} ranks of the job are given", job.world_size);
    } else {
      c.status = IntegrityStatus::kWarn;
      c.evidence = fmt::format("{} of the {} ranks of the job are given (missing: {}): the job's steps (slowest rank), "
                               "imbalance, collectives and stragglers cover only the ranks given",
                               present.size(), job.world_size, RankList(missing));
      c.affects = {"steps.time_us", "job.imbalance", "collectives", "straggler", "exposed_communication"};
      job.warnings.push_back(fmt::format("{} of the {} ranks of the job were given (world size {}; missing ranks {}): "
                                         "the job views cover only these",
                                         present.size(), job.world_size, job.world_size, RankList(missing)));
    }
    c.values.push_back({"missing", std::vector<int64_t>(missing.begin(), missing.end())});
  }
  c.values.push_back({"world_size", static_cast<int64_t>(job.world_size)});
  c.values.push_back({"ranks_given", static_cast<int64_t>(present.size()), Unit::kCount});
  c.values.push_back({"missing_ranks", static_cast<int64_t>(job.missing_ranks), Unit::kCount});
  return c;
}

IntegrityCheck ClockOffsets(const JobAnalysis& job) {
  IntegrityCheck c;
  c.id = "clock_offsets";
  const CrossRankResult& x = job.collectives;
  if (job.ranks.size() < 2) {
    c.evidence = "one rank: no clocks to compare";
    return c;
  }
  std::set<std::string> hosts;
  bool unknown_host = false;
  for (const RankAnalysis& r : job.ranks) {
    if (r.comm.host.empty()) unknown_host = true;
    else hosts.insert(r.comm.host);
  }
  int32_t worst_rank = -1;
  TimeNs lo = 0, hi = 0, worst = 0;
  size_t measured = 0;
  std::vector<std::pair<int64_t, double>> offsets;
  for (size_t i = 0; i < x.clock_offsets.size() && i < job.ranks.size(); ++i) {
    if (!x.clock_offsets[i]) continue;
    const TimeNs o = x.clock_offsets[i]->offset_ns;
    lo = measured == 0 ? o : std::min(lo, o);
    hi = measured == 0 ? o : std::max(hi, o);
    ++measured;
    if (std::llabs(o) >= std::llabs(worst)) worst = o, worst_rank = job.ranks[i].rank;
  }
  if (!unknown_host && hosts.size() == 1) {
    c.evidence = "one host (" + *hosts.begin() + "): one clock";
  } else if (measured < 2) {
    c.evidence = fmt::format("{}no collective is matched across ranks: clock offsets cannot be measured, and no "
                             "cross-rank timing is used",
                             hosts.size() > 1 ? fmt::format("{} hosts; ", hosts.size()) : "");
    if (hosts.size() > 1) c.status = IntegrityStatus::kWarn;
  } else if (hi - lo <= kClockAgreementNs) {
    c.evidence = fmt::format("matched collectives end within {} of each other on every rank: one clock, or clocks "
                             "in step",
                             DurationText(hi - lo));
  } else {
    c.status = IntegrityStatus::kWarn;
    c.evidence = fmt::format("the ranks' clocks disagree by up to {} (rank {}: {}{} from the median, read from the ends "
                             "of the collectives, which finish together on every rank): arrival skew and stragglers "
                             "are not measured across these clocks",
                             DurationText(hi - lo), worst_rank, worst >= 0 ? "+" : "-", DurationText(std::llabs(worst)));
    c.affects = {"collectives.skew", "straggler"};
  }
  c.values = {{"hosts", static_cast<int64_t>(hosts.size()), Unit::kCount},
              {"ranks_measured", static_cast<int64_t>(measured), Unit::kCount},
              {"offset_spread_us", measured >= 2 ? std::optional<double>(static_cast<double>(hi - lo) / 1e3) : std::nullopt, Unit::kUs}};
  return c;
}

}  // namespace

void CheckJobIntegrity(JobAnalysis& job) {
  TraceIntegrity out;
  if (!job.ranks.empty())
    for (const IntegrityCheck& c : job.ranks.front().integrity.checks) out.checks.push_back(OverRanks(c.id, job.ranks));
  TraceIntegrity job_only;
  job_only.checks.push_back(MissingRanks(job));
  job_only.checks.push_back(ClockOffsets(job));
  MarkLowConfidence(job_only, job.job.findings);
  out.checks.insert(out.checks.end(), job_only.checks.begin(), job_only.checks.end());
  job.integrity = std::move(out);
  job.job.integrity = job.integrity;
}

}  // namespace ampscope
