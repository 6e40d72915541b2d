// Reads any supported trace file: sniffs the format from the first bytes, not the extension.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "trace/model.h"

namespace ampscope {

struct ReadOptions {
  // Called now and then with (bytes read, total bytes); may be empty.
  std::function<void(uint64_t, uint64_t)> progress;
};

// .amptrace (magic "AMPTRACE"), Kineto JSON, or gzip'd Kineto JSON.
StatusOr<Trace> ReadTrace(const std::string& path, const ReadOptions& options = {});

}  // namespace ampscope
