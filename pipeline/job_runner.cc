#include "pipeline/job_runner.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "analyzers/analyze.h"
#include "pipeline/job.h"

namespace ampscope {

namespace {

struct Slot {
  std::optional<RankAnalysis> analysis;
  std::optional<Trace> kept;
  std::optional<Status> error;
};

// One input: read, check, analyse, then release (or keep) the trace.
void RunOne(size_t i, const RankRunOptions& o, Slot& slot) {
  StatusOr<Trace> trace = o.read(i);
  if (!trace.ok()) {
    slot.error = trace.status();
    return;
  }
  if (o.on_read) o.on_read(i);
  Status checked = o.check ? o.check(*trace) : Status::Ok();
  if (checked.ok()) {
    StatusOr<RankAnalysis> ra = AnalyzeTrace(*trace, o.analysis);
    if (ra.ok()) {
      slot.analysis = std::move(ra).value();
    } else {
      slot.error = ra.status();
    }
  } else {
    slot.error = checked;
  }
  if (slot.analysis && o.keep_trace && o.keep_trace(i, *slot.analysis)) {
    slot.kept = std::move(trace).value();
    return;
  }
  { Trace gone = std::move(trace).value(); }  // released here, before the next input is read
  if (o.on_release) o.on_release(i);
}

}  // namespace

StatusOr<RankRunResult> RunRanks(const std::vector<std::string>& paths, const RankRunOptions& o) {
  std::vector<Slot> slots(paths.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    for (;;) {
      if (stop.load()) return;
      const size_t i = next.fetch_add(1);
      if (i >= paths.size()) return;
      RunOne(i, o, slots[i]);
      if (slots[i].error && !o.keep_going) stop.store(true);
    }
  };
  const size_t threads = std::clamp<size_t>(static_cast<size_t>(std::max(1, o.jobs)), 1, std::max<size_t>(1, paths.size()));
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
  }

  RankRunResult out;
  for (size_t i = 0; i < slots.size(); ++i) {
    Slot& s = slots[i];
    if (s.error) {
      if (!o.keep_going) return *s.error;
      // One line that names the file (readers' messages already start with it).
      const std::string& m = s.error->message();
      out.missing.push_back({paths[i], m.rfind(paths[i], 0) == 0 ? m : paths[i] + ": " + m});
      continue;
    }
    if (!s.analysis) continue;  // not reached: an earlier input failed and the run stopped
    out.ranks.push_back(std::move(*s.analysis));
    out.rank_inputs.push_back(i);
    if (s.kept) out.kept.push_back({i, std::move(*s.kept)});
  }
  return out;
}

}  // namespace ampscope
