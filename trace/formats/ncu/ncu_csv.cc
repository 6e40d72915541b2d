#include "trace/formats/ncu/ncu_csv.h"

#include <algorithm>
#include <string>

namespace ampscope::ncu {

namespace {
constexpr size_t kBlock = 64 * 1024;
}  // namespace

StatusOr<bool> CsvReader::Ensure(size_t n) {
  while (buf_.size() - pos_ < n && !eof_) {
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {  // drop what was consumed before growing
      consumed_ += pos_;
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    if (block_.empty()) block_.resize(kBlock);
    StatusOr<size_t> got = source_->Read(block_.data(), block_.size());
    if (!got.ok()) return got.status();
    buf_.append(block_.data(), *got);
    if (*got == 0) eof_ = true;
  }
  return buf_.size() > pos_;
}

StatusOr<bool> CsvReader::NextLine(std::string* line, uint64_t* offset, size_t max_bytes) {
  line->clear();
  StatusOr<bool> any = Ensure(1);
  if (!any.ok()) return any.status();
  if (!*any) return false;
  *offset = this->offset();
  while (true) {
    const size_t nl = buf_.find('\n', pos_);
    const size_t end = nl != std::string::npos ? nl : buf_.size();
    if (line->size() < max_bytes) line->append(buf_, pos_, std::min(end - pos_, max_bytes - line->size()));
    pos_ = nl != std::string::npos ? nl + 1 : end;
    if (nl != std::string::npos) break;
    StatusOr<bool> more = Ensure(1);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return true;
}

StatusOr<bool> CsvReader::AtLineStartingWith(std::string_view prefix) {
  StatusOr<bool> any = Ensure(prefix.size());
  if (!any.ok()) return any.status();
  return buf_.size() - pos_ >= prefix.size() && std::string_view(buf_).substr(pos_, prefix.size()) == prefix;
}

StatusOr<bool> CsvReader::AtBlankLine() {
  for (size_t i = 0;; ++i) {
    StatusOr<bool> any = Ensure(i + 1);
    if (!any.ok()) return any.status();
    if (buf_.size() - pos_ <= i) return true;
    const char c = buf_[pos_ + i];
    if (c == '\n') return true;
    if (c != ' ' && c != '\r' && c != '\t') return false;
  }
}

StatusOr<bool> CsvReader::NextRecord(std::vector<std::string>* fields, uint64_t* offset, bool* unterminated) {
  fields->clear();
  *unterminated = false;
  StatusOr<bool> any = Ensure(1);
  if (!any.ok()) return any.status();
  if (!*any) return false;
  *offset = this->offset();
  fields->emplace_back();
  bool quoted = false;      // inside a quoted field
  bool after_quote = false; // a quote inside a quoted field: the field's end, or the first of ""
  constexpr uint64_t kMaxRecord = uint64_t{64} << 20;  // ncu's longest rows are a few hundred kB
  while (true) {
    if (this->offset() - *offset > kMaxRecord)
      return Status::Error("byte " + std::to_string(*offset) + ": a CSV record longer than 64 MiB (not Nsight Compute output)");
    if (pos_ >= buf_.size()) {
      StatusOr<bool> more = Ensure(1);
      if (!more.ok()) return more.status();
      if (!*more) {
        *unterminated = quoted && !after_quote;
        break;
      }
    }
    const char c = buf_[pos_++];
    std::string& f = fields->back();
    if (quoted) {
      if (after_quote) {
        after_quote = false;
        if (c == '"') {  // "" inside quotes: one quote
          f.push_back('"');
          continue;
        }
        quoted = false;  // the closing quote; c is read as outside quotes below
      } else if (c == '"') {
        after_quote = true;
        continue;
      } else {
        f.push_back(c);
        continue;
      }
    }
    if (c == ',') {
      fields->emplace_back();
    } else if (c == '\n') {
      break;
    } else if (c == '"' && f.empty()) {
      quoted = true;
    } else if (c != '\r') {
      f.push_back(c);
    }
  }
  if (fields->size() == 1 && fields->front().empty()) fields->clear();  // a blank line
  return true;
}

bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  fields->clear();
  fields->emplace_back();
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    std::string& f = fields->back();
    if (quoted) {
      if (c != '"') {
        f.push_back(c);
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        f.push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == ',') {
      fields->emplace_back();
    } else if (c == '"' && f.empty()) {
      quoted = true;
    } else if (c != '\r') {
      f.push_back(c);
    }
  }
  return !quoted;
}

}  // namespace ampscope::ncu
