// The doctor's checks (internal to doctor/): each appends its DoctorCheck(s) and records what
// later checks need (the TF32 hint needs the GPUs and PyTorch's setting) in DoctorFacts.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor.h"

namespace ampscope::doctor {

struct DoctorFacts {
  std::string driver_version;       // "550.54.15"
  std::string driver_cuda_version;  // "12.4"
  std::vector<int> gpu_cc;          // 80 for sm80, one per GPU
  bool torch_found = false;
  std::string torch_cuda;           // "12.1", "" for a CPU-only build
  int torch_matmul_tf32 = -1;       // torch.backends.cuda.matmul.allow_tf32: 1, 0, -1 unknown
  int torch_cudnn_tf32 = -1;        // torch.backends.cudnn.allow_tf32
};

// Reads root + path; false when it cannot be read.
bool ReadText(const DoctorEnvironment& env, const std::string& path, std::string* text);

void CheckDriver(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out);
void CheckGpus(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out);
void CheckCudaRuntime(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckCudaToolkit(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckCupti(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckProfilingCounters(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckInjection(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckPyTorch(const DoctorEnvironment& env, DoctorFacts& facts, std::vector<DoctorCheck>& out);
void CheckLibTorch(const DoctorEnvironment& env, std::vector<DoctorCheck>& out);
void CheckTf32(const DoctorFacts& facts, std::vector<DoctorCheck>& out);

}  // namespace ampscope::doctor
