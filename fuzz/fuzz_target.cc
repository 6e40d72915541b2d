// One libFuzzer entry point for every target; CMake builds it once per target with
// AMPSCOPE_FUZZ_TARGET set to the target's name (fuzz/pipeline.h lists them).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ampscope::fuzz::Target* target = [] {
    const ampscope::fuzz::Target* t = ampscope::fuzz::FindTarget(AMPSCOPE_FUZZ_TARGET);
    if (t == nullptr) {
      std::fprintf(stderr, "no fuzz target named %s\n", AMPSCOPE_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  target->run(data, size);
  return 0;  // rejected inputs are fine; only crashes and broken properties are findings
}
