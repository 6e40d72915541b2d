// A program that touches CUDA on a machine without a driver, to show the injection library is
// harmless there. With argv[1] = path of libampscope_inject.so it also loads the library and
// calls InitializeInjection() itself, as cuInit would on a machine with a driver (here cuInit
// never gets that far). Its stdout, stderr (apart from one "ampscope:" line) and exit code
// must be the same with and without the library.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

int main(int argc, char** argv) {
  std::printf("host: start\n");
  std::fflush(stdout);
  std::fprintf(stderr, "host: a line on stderr\n");
  if (argc > 1) {
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      std::printf("host: dlopen failed: %s\n", dlerror());
      return 99;
    }
    using InitFn = int (*)();
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "InitializeInjection"));
    if (init == nullptr) return 98;
    init();
  }
  nvtxRangePushA("host_range");
  int devices = -1;
  cudaError_t err = cudaGetDeviceCount(&devices);
  std::printf("host: cudaGetDeviceCount -> %s\n", err == cudaSuccess ? "ok" : "error");
  nvtxRangePop();
  std::printf("host: end\n");
  return 7;
}
