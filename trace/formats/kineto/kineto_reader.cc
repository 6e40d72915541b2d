// Streaming Kineto reader. Pipeline: ByteSource (plain / gzip) -> the tokenizer's window of
// the uncompressed bytes, one unit (event or top-level member) at a time (kineto_tokenizer.cc)
// -> RawEvent (views into the window) -> the Trace tables (kineto_event_parser.cc,
// kineto_metadata.cc) -> links that need the whole trace (kineto_linker.cc).
#include "trace/formats/kineto/kineto_reader.h"

#include <memory>

#include "trace/formats/kineto/kineto_event_parser.h"
#include "trace/formats/kineto/kineto_tokenizer.h"

namespace ampscope {

StatusOr<Trace> ReadKinetoTraceFromSource(ByteSource& source, const std::string& display_name,
                                          const KinetoReadOptions& options) {
  kineto::Tokenizer tokenizer(source, display_name, options.progress);
  kineto::TraceBuilder builder(display_name, options, tokenizer);
  AMPSCOPE_RETURN_IF_ERROR(tokenizer.Run(builder));
  Trace trace = builder.Finish(tokenizer.bytes_read());
  tokenizer.ReportDone();
  return trace;
}

StatusOr<Trace> ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options) {
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
