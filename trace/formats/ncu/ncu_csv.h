// Reading CSV as Nsight Compute writes it, streaming (RFC 4180): fields separated by commas,
// optionally quoted; a quoted field may hold commas, newlines and doubled quotes ("");
// records end at LF or CRLF outside quotes. The input is read in 64 KiB blocks whatever its
// size; a record is held only while it is returned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trace/io/input_stream.h"

namespace ampscope::ncu {

class CsvReader {
 public:
  explicit CsvReader(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}

  // The next physical line (without its LF / CRLF), for text before the CSV header. false at the
  // end of the input. `offset` is the byte where the line starts. A line longer than `max_bytes`
  // is read to its end but only its first `max_bytes` are kept (binary input cannot grow memory).
  StatusOr<bool> NextLine(std::string* line, uint64_t* offset, size_t max_bytes = 1 << 20);
  // The next record's fields. false at the end of the input. `unterminated` is set when the input
  // ends inside a quoted field (the record holds what was read).
  StatusOr<bool> NextRecord(std::vector<std::string>* fields, uint64_t* offset, bool* unterminated);
  // Whether the input at the current position starts with `prefix` (false at the end).
  StatusOr<bool> AtLineStartingWith(std::string_view prefix);
  // Whether the rest of the current line is blank (spaces, CR); true at the end of the input.
  StatusOr<bool> AtBlankLine();
  uint64_t offset() const { return consumed_ + pos_; }  // bytes read so far (uncompressed)

 private:
  // Makes at least `n` bytes available from pos_ (fewer only at the end). false: none left.
  StatusOr<bool> Ensure(size_t n);
  std::unique_ptr<ByteSource> source_;
  std::string buf_;
  std::vector<char> block_;  // one read's bytes, appended to buf_
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // bytes dropped from the front of buf_
  bool eof_ = false;
};

// Splits one line of CSV (no newline inside it) into fields; false when a quote is not closed.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields);

}  // namespace ampscope::ncu
