// Streaming Kineto reader. Pipeline: ByteSource (plain / gzip) -> the tokenizer's window of
// the uncompressed bytes, one unit (event or top-level member) at a time (kineto_tokenizer.cc)
// -> RawEvent (views into the window) -> the Trace tables (kineto_event_parser.cc,
// kineto_metadata.cc) -> links that need the whole trace (kineto_linker.cc).
#include "trace/formats/kineto/kineto_reader.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "trace/formats/kineto/kineto_event_parser.h"
#include "trace/formats/kineto/kineto_parallel.h"
#include "trace/formats/kineto/kineto_step_sample.h"
#include "trace/formats/kineto/kineto_tokenizer.h"

namespace ampscope {

namespace {

// See KinetoReadOptions::name_text_budget_bytes. A function of the file alone, so every way of
// reading one file caps the same names.
uint64_t NameTextBudget(const ByteSource& source, const KinetoReadOptions& options) {
  if (options.name_text_budget_bytes > 0) return options.name_text_budget_bytes;
  constexpr uint64_t kFloorBytes = uint64_t{16} << 20;
  const uint64_t input = source.raw_bytes_total() * (source.compressed() ? 4 : 1);
  return std::max(kFloorBytes, input / 16);
}

// Threads to parse with (see KinetoReadOptions::threads).
int ParseThreads(const ByteSource& source, const KinetoReadOptions& options) {
  constexpr uint64_t kMinPlainBytes = uint64_t{4} << 20, kMinGzipBytes = uint64_t{1} << 20;
  constexpr int kMaxAutoThreads = 8;
  int threads = options.threads;
  if (threads <= 0) threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxAutoThreads);
  if (threads <= 1) return 1;
  if (options.parallel_piece_bytes > 0) return threads;
  const uint64_t raw = source.raw_bytes_total();
  return raw >= (source.compressed() ? kMinGzipBytes : kMinPlainBytes) ? threads : 1;
}

// The uncompressed bytes LooksStepDense reads: a trace with more than `detail_steps` step
// names in its first 8 MiB is one whose steps are worth counting.
constexpr size_t kStepDensePrefixBytes = size_t{8} << 20;

// Pass 3 of a trace with more steps than options.detail_steps (kineto_step_sample.h): one
// sequential read, through the filter, into tables that only double (they hold the chosen steps).
StatusOr<Trace> ReadChosenSteps(const std::string& path, const KinetoReadOptions& options, kineto::StepChoice choice) {
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  KinetoReadOptions opts = options;
  opts.filtered = true;
  kineto::Tokenizer tokenizer(**source, path, options.progress);
  tokenizer.set_window_bytes(kineto::kSampledReadWindowBytes);
  kineto::TraceBuilder builder(path, opts, tokenizer);
  builder.SetNameTextBudget(NameTextBudget(**source, options));
  kineto::ChosenStepsSink sink(builder, choice);
  AMPSCOPE_RETURN_IF_ERROR(tokenizer.Run(sink));
  AMPSCOPE_RETURN_IF_ERROR(builder.CheckTimes());
  Trace trace = builder.Finish(tokenizer.bytes_read());
  tokenizer.ReportDone();
  trace.metadata.event_count = sink.seen;
  choice.info.events_left_out = sink.dropped;
  trace.metadata.step_sampling = std::move(choice.info);
  return trace;
}

}  // namespace

StatusOr<Trace> ReadKinetoTraceFromSource(ByteSource& source, const std::string& display_name,
                                          const KinetoReadOptions& options) {
  const int threads = ParseThreads(source, options);
  if (threads > 1) {
    kineto::ParallelPlan plan;
    plan.parse_threads = threads;
    if (options.parallel_piece_bytes > 0) {
      plan.chunk_bytes = options.parallel_piece_bytes;
      plan.block_bytes = std::max<size_t>(64, std::min(plan.block_bytes, options.parallel_piece_bytes));
    }
    return kineto::ReadKinetoParallel(source, display_name, options, plan, NameTextBudget(source, options));
  }
  if (options.stats != nullptr) *options.stats = KinetoReadStats{};
  kineto::Tokenizer tokenizer(source, display_name, options.progress);
  kineto::TraceBuilder builder(display_name, options, tokenizer);
  builder.SetNameTextBudget(NameTextBudget(source, options));
  AMPSCOPE_RETURN_IF_ERROR(tokenizer.Run(builder));
  AMPSCOPE_RETURN_IF_ERROR(builder.CheckTimes());
  Trace trace = builder.Finish(tokenizer.bytes_read());
  tokenizer.ReportDone();
  return trace;
}

StatusOr<Trace> ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options) {
  if (options.detail_steps > 0) {
    StatusOr<bool> dense = kineto::LooksStepDense(path, options.detail_steps, kStepDensePrefixBytes);
    if (dense.ok() && *dense) {
      StatusOr<std::vector<kineto::StepSpan>> scanned = kineto::ScanProfilerSteps(path);
      if (!scanned.ok()) return scanned.status();
      if (scanned->size() > options.detail_steps) {
        kineto::StepChoice choice = kineto::ChooseSteps(*scanned, options.detail_steps);
        *scanned = {};  // 16 B a step: not kept through passes 2 and 3
        AMPSCOPE_RETURN_IF_ERROR(kineto::CollectKeptCorrelations(path, choice));
        return ReadChosenSteps(path, options, std::move(choice));
      }
    }
  }
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return Status::Error(path + ": " + source.status().message());
  return ReadKinetoTraceFromSource(**source, path, options);
}

StatusOr<Trace> ReadKinetoTraceFromString(std::string_view json, const std::string& display_name,
                                          const KinetoReadOptions& options) {
  std::unique_ptr<ByteSource> source = MakeStringByteSource(json);
  return ReadKinetoTraceFromSource(*source, display_name, options);
}

}  // namespace ampscope
