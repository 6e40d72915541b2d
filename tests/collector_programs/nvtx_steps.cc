// A stand-in for a training loop that marks its steps with NVTX, the way
// torch.cuda.nvtx.range_push("step") or nvtx3::scoped_range do. No CUDA: it runs anywhere.
//
// What it does, in order (tests/collector/nvtx_end_to_end_test.cc checks all of it):
//   - names its thread "trainer" (nvtxNameOsThreadA);
//   - on a second thread: nvtxRangeStartA("prefetch") ... nvtxRangeEnd around a short sleep;
//   - 5 times: push "step" (nvtxRangePushA), inside it "forward" (nvtx3::scoped_range, the
//     CORE2 domain API on the default domain) and "backward" (nvtxRangePushEx with an ASCII
//     message), then pop "step";
//   - after step index 2: nvtxMarkA("checkpoint");
//   - a range "io" in the domain "ampscope_test" (nvtxDomainRangePushEx / Pop);
//   - prints "nvtx_steps done" and exits with argv[1] (default 0).
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvtx3.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

void Work(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

int main(int argc, char** argv) {
  nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), "trainer");
  std::thread prefetch([] {
    nvtxRangeId_t id = nvtxRangeStartA("prefetch");
    Work(3);
    nvtxRangeEnd(id);
  });
  for (int step = 0; step < 5; ++step) {
    nvtxRangePushA("step");
    {
      nvtx3::scoped_range forward{"forward"};
      Work(2);
    }
    nvtxEventAttributes_t attr = {};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "backward";
    nvtxRangePushEx(&attr);
    Work(2);
    nvtxRangePop();
    nvtxRangePop();
    if (step == 2) nvtxMarkA("checkpoint");
  }
  prefetch.join();
  nvtxDomainHandle_t domain = nvtxDomainCreateA("ampscope_test");
  nvtxEventAttributes_t io = {};
  io.version = NVTX_VERSION;
  io.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  io.messageType = NVTX_MESSAGE_TYPE_ASCII;
  io.message.ascii = "io";
  nvtxDomainRangePushEx(domain, &io);
  Work(1);
  nvtxDomainRangePop(domain);
  std::printf("nvtx_steps done\n");
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
