// The kernel classifier's table (pure data; the matcher is kernel_classifier.cc, the row
// type kernel_rules.h). docs/classifier.md explains the columns and how to add a row; every
// labelled name in shared/reference/kernel_names.tsv is checked against it.
#include "trace/classify/kernel_rules.h"

namespace ampscope::kernel_rules {

// Category markers for rows whose family does both GEMMs and convolutions (mma codes, tensorop,
// hmma): the kernel is a convolution if the name contains one of these.
const std::string_view kConvMarkers[] = {"fprop", "dgrad", "wgrad", "cudnn", "implicit_gemm",
                                         "convolution", "Convolution", "conv1d", "conv2d",
                                         "conv3d", "Conv",
                                         // Composable Kernel: kernel_grouped_conv_fwd_xdl_cshuffle_v3, ..._bwd_data_...
                                         "grouped_conv", "_conv_fwd", "_conv_bwd"};
const size_t kConvMarkerCount = sizeof(kConvMarkers) / sizeof(kConvMarkers[0]);

// Ordered: the first matching row wins. Generated names that embed op names (Triton/Inductor)
// and library families come before generic PyTorch substrings; Tensor Core families before
// CUDA-core ones; specific PyTorch kernels (casts, norms) before the elementwise/reduce wrappers
// that contain them.
const Rule kRules[] = {
    // --- Triton / TorchInductor: triton_{poi,red,per}_fused_<ops>_<n>, triton_tem_ (templates),
    // old-style triton__0d1d2d. Tensor Core use depends on tl.dot and the dtype: unknown.
    GemmOrConv(R(kPre, "triton_tem_", Cat::kGemm, kFix, P::kUnknown, Tc::kUnknown)),
    FusedCast(R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown, "_to_copy")),
    FusedCast(R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown, "convert_element_type")),
    R(kPre, "triton_", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown),
    R(kPre, "triton", Cat::kTritonFused, kFix, P::kUnknown, Tc::kUnknown),

    // --- ROCm (AMD). CDNA Matrix Cores (MFMA) count as the Tensor Core equivalent: Tensile
    // (rocBLAS/hipBLASLt) kernels name their MFMA instruction (MI<M>x<N>x<K>, e.g. MI16x16x1);
    // MIOpen's igemm "gtcx" (xdlops) and Composable Kernel's "xdl" kernels use MFMA. Tensile
    // kernels without an MI code run on the vector ALUs or cannot be told: unknown. The MFMA
    // Cijk_ rows come before the generic one.
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI16x16x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI32x32x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kYes, "_MI4x4x")),
    Rocm(R(kPre, "Cijk_", Cat::kGemm, PrecRule::kTensile, P::kUnknown, Tc::kUnknown)),
    // MIOpen tensor ops (SubTensorOpWithCastTensor1d, SubTensorOpWithScalar1d) are elementwise:
    // before the CUTLASS "TensorOp" rows, which would call them Tensor Core GEMMs.
    Rocm(R(kPre, "SubTensorOp", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo)),
    // MIOpen's batched transposes name the element size (half = any 2-byte type, byte, dword), not
    // the type: batched_transpose_32x32_half moves bf16 in a bf16 model. Precision unknown.
    Rocm(Role(KernelRole::kLayoutTransform, R(kPre, "batched_transpose_", Cat::kLayoutTransform, kFix, P::kUnknown, Tc::kNo))),
    Rocm(R(kPre, "igemm_", Cat::kConv, kTag, P::kUnknown, Tc::kYes, "gtcx")),
    Rocm(R(kSub, "xdlops", Cat::kConv, kTag, P::kUnknown, Tc::kYes)),
    // MIOpen's implicit-GEMM convolutions without xdlops (v4r1 ..., "dlops") and its OpenCL/assembly
    // direct, Winograd and im2col convolutions run on the vector ALUs, not the matrix cores.
    Rocm(R(kPre, "gridwise_convolution", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "MIOpenConv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "MIOpenCv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "MIOpenGroupConv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "AsmConv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "gcnAsm", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "Im2Col", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "Col2Im", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    // MIOpen's activation, pooling and LRN kernels.
    Rocm(R(kPre, "MIOpenNeuron", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "MIOpenPooling", Cat::kReduction, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "mloPooling", Cat::kReduction, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "MIOpenLRN", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo)),
    // ROCm flash attention (Triton/AOTriton attn_fwd / attn_bwd): matrix-unit use depends on tl.dot.
    Rocm(R(kPre, "attn_fwd", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "attn_bwd", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kSub, "MIOpenBatchNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "MIOpenSoftmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "MIOpen", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kSub, "miopen", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "igemm_", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown, "gtc")),
    Rocm(R(kPre, "naive_conv_", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kPre, "__amd_rocclr_", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo)),
    Rocm(R(kSub, "kernel_gemm_xdl", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    Rocm(GemmOrConv(R(kSub, "_xdl_cshuffle", Cat::kGemm, kTag, P::kUnknown, Tc::kYes))),
    Rocm(GemmOrConv(R(kSub, "_xdl", Cat::kGemm, kTag, P::kUnknown, Tc::kYes))),  // CK xdl (MFMA) device ops
    // Other Composable Kernel device ops (dl: dot-lane on the vector ALUs; wmma on RDNA):
    // matrix-core use unknown.
    Rocm(GemmOrConv(R(kSub, "ck16tensor_operation", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown))),
    Rocm(R(kPre, "rocblas_", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown)),
    Rocm(R(kPre, "hipblaslt", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown)),

    // --- Communication: NCCL/RCCL old ncclKernel_<Coll>_<ALGO>_<PROTO>_<Op>_<type> and new
    // ncclDevKernel_<Coll>_<Op>_<type>_<ALGO>_<PROTO>; NVSHMEM; custom all-reduce kernels.
    Role(KernelRole::kNcclCollective, R(kPre, "nccl", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo)),
    R(kSub, "nvshmem", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),
    // DeepEP (deep_ep::, DeepSeek's own dpsk::ep::): the expert-parallel all-to-all over NVLink and
    // NVSHMEM/RDMA. Its communication kernels live in the intranode / internode / internode_ll
    // namespaces and are named dispatch, combine and the notify kernels that exchange the token
    // counts first (notify_dispatch, cached_notify, cached_notify_combine). Not its layout kernel
    // (layout::get_dispatch_layout: a local count), nor a GEMM that "dispatches" anything. The
    // precision is left unknown: the type tags name the transfer's vector types (int4, float).
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "dispatch", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "intranode")),
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "combine", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "intranode")),
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "notify", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "intranode")),
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "dispatch", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "internode")),
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "combine", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "internode")),
    Collective(CollectiveType::kAllToAll, R(kFunEnd, "notify", Cat::kCommunication, kFix, P::kUnknown, Tc::kNo, "internode")),
    R(kSub, "cross_device_reduce", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),
    R(kSub, "userbuffers", Cat::kCommunication, PrecRule::kTagsFloatOnly, P::kUnknown, Tc::kNo),

    // --- Attention. FlashAttention 2 (pytorch_flash::flash_fwd_kernel, flash_fwd_splitkv_kernel,
    // flash_bwd_*), FlashAttention 3 (flash::FlashAttnFwdSm90 ...), mem-efficient (fmha_cutlass*),
    // cuDNN SDPA. Pre/post-processing kernels do no MMA.
    R(kSub, "flash_bwd_dot_do_o", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_bwd_convert_d", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_bwd_clear_d", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "FlashAttnBwdPreprocess", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "FlashAttnBwdPostprocess", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "prepare_varlen_num_blocks", Cat::kAttention, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flash_fwd", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "flash_bwd", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "FlashAttn", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    // FlashAttention-3's forward kernel: flash::compute_attn_ws<Flash_fwd_kernel_traits<...>> (the
    // shared DeepSeek trace, H800).
    R(kSub, "Flash_fwd_kernel_traits", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "flashinfer", Cat::kAttention, kTag, P::kUnknown, Tc::kUnknown),
    R(kSub, "fmha", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "sdpa", Cat::kAttention, kTag, P::kUnknown, Tc::kYes),

    // --- xmma (cuBLAS/cuDNN sm75..sm100): sm80_xmma_{gemm,fprop,dgrad,wgrad}_<AB>_<C><acc>_...
    R(kSub, "xmma_fprop", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_dgrad", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_wgrad", Cat::kConv, kTag, P::kUnknown, Tc::kYes),
    R(kSub, "xmma_gemm", Cat::kGemm, kTag, P::kUnknown, Tc::kYes),
    GemmOrConv(R(kSub, "xmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),

    // --- MMA instruction families named in the kernel (fixed precision: the instruction implies it).
    GemmOrConv(R(kSub, "hmma", Cat::kGemm, kFix, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "imma", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "dmma", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "wgmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "gmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "wmma", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),  // the WMMA API (nvcuda::wmma)

    // --- Legacy cuBLAS/cuDNN and CUTLASS 2 mma codes: <arch>_[<in>_]<acc><mnk>{gemm,cudnn,fprop,..}
    // (volta_h884gemm, volta_fp16_s884cudnn_fp16, turing_fp16_s1688gemm_fp16, ampere_bf16_s16816gemm_bf16,
    // cutlass_80_tensorop_s1688gemm = TF32, cutlass_80_tensorop_c1688gemm = complex TF32).
    // Type tags win over the fallback (turing_fp16_s1688gemm is fp16, not tf32).
    GemmOrConv(R(kSub, "h884", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "s884", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "i8816", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "h1688", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "s1688", Cat::kGemm, kTag, P::kTf32, Tc::kYes)),
    GemmOrConv(R(kSub, "c1688", Cat::kGemm, kTag, P::kTf32, Tc::kYes)),
    GemmOrConv(R(kSub, "d884", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "z884", Cat::kGemm, kFix, P::kFp64, Tc::kYes)),
    GemmOrConv(R(kSub, "h16816", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    GemmOrConv(R(kSub, "i16832", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "i16864", Cat::kGemm, kFix, P::kInt8, Tc::kYes)),
    GemmOrConv(R(kSub, "16816", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "16832", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "161616", Cat::kGemm, kTag, P::kFp16, Tc::kYes)),
    // PyProf/tb_plugin's Volta cuDNN Tensor Core kernels that carry no mma code.
    R(kSub, "dgrad_1x1_stride_2x2", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "first_layer_wgrad_kernel", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "conv1x1", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "conv2d_c1_k1", Cat::kConv, kTag, P::kFp16, Tc::kYes),
    R(kSub, "direct_group", Cat::kConv, kTag, P::kFp16, Tc::kYes),

    // --- CUTLASS 2/3 and cuDNN's embedded CUTLASS: "tensorop" = Tensor Core MMA.
    // cutlass3x_sm90/sm100_tensorop_s64x128x16gemm_<A>_<B>_<acc>_..., cutlass_tensorop_s1688fprop_*,
    // mangled cutlass templates (MmaTensorOp, ImplicitGemmConvolution<...TensorOp...>).
    GemmOrConv(R(kSub, "tensorop", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "TensorOp", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "cutlass3x", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    GemmOrConv(R(kSub, "KernelTmaWarpSpecialized", Cat::kGemm, kTag, P::kUnknown, Tc::kYes)),
    R(kSub, "ImplicitGemmConvolution", Cat::kConv, kTag, P::kUnknown, Tc::kUnknown),
    GemmOrConv(R(kSub, "ReduceSplitK", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),

    // --- cuBLASLt nvjet (Hopper/Blackwell cuBLAS): nvjet_[smNN_]<abc>_<tile>_...
    R(kPre, "nvjet", Cat::kGemm, PrecRule::kNvjet, P::kUnknown, Tc::kYes),
    R(kSub, "deep_gemm", Cat::kGemm, kTag, P::kFp8, Tc::kYes),

    // --- Convolutions on CUDA cores (cuDNN implicit/explicit/precomputed sgemm, scudnn, winograd,
    // FFT, dgrad/wgrad engines, depthwise/grouped) and their helper kernels.
    Simt(R(kSub, "implicit_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "explicit_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "precomputed_convolve_sgemm", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    R(kSub, "convolve_hgemm", Cat::kConv, kFix, P::kFp16, Tc::kNo),
    Simt(R(kSub, "convolve_dgemm", Cat::kConv, kFix, P::kFp64, Tc::kNo)),
    Simt(R(kWrd, "scudnn", Cat::kConv, kFix, P::kFp32, Tc::kNo)),
    R(kWrd, "hcudnn", Cat::kConv, kFix, P::kFp16, Tc::kNo),
    Simt(R(kWrd, "dcudnn", Cat::kConv, kFix, P::kFp64, Tc::kNo)),
    R(kSub, "generateWinogradTiles", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    Simt(R(kSub, "winograd", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "fft", Cat::kConv, kTag, P::kUnknown, Tc::kNo, "cudnn")),
    Simt(R(kSub, "dgrad_engine", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "dgrad2d_alg", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "wgrad_alg", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "conv_depthwise", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "conv2d_grouped_direct", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "slow_conv", Cat::kConv, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "im2col", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "col2im", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cask_cudnn", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "reduce_wgrad", Cat::kConv, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "flip_filter", Cat::kConv, kTag, P::kUnknown, Tc::kNo),

    // --- GEMMs on CUDA cores: <arch>_sgemm_*, cutlass_*_simt_*, cuBLAS small-N/gemv/gemmk1 paths
    // and helpers (split-K reduction, cuBLASLt epilogue).
    Simt(R(kWrd, "sgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    R(kWrd, "hgemm", Cat::kGemm, kFix, P::kFp16, Tc::kNo),
    Simt(R(kWrd, "dgemm", Cat::kGemm, kFix, P::kFp64, Tc::kNo)),
    Simt(R(kWrd, "cgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kWrd, "gcgemm", Cat::kGemm, kFix, P::kFp32, Tc::kNo)),
    Simt(R(kWrd, "zgemm", Cat::kGemm, kFix, P::kFp64, Tc::kNo)),
    R(kWrd, "igemm", Cat::kGemm, kFix, P::kInt8, Tc::kNo),
    Simt(R(kSub, "gemmSN_", Cat::kGemm, kTag, P::kFp32, Tc::kNo)),
    Simt(R(kSub, "gemmk1_kernel", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "gemv", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    Simt(R(kSub, "dot_kernel", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "splitKreduce", Cat::kGemm, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cublasLtEpilogue", Cat::kGemm, kTag, P::kUnknown, Tc::kNo),
    Simt(R(kWrd, "simt", Cat::kGemm, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "scal_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "axpy_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),

    // --- Custom GEMM libraries (DeepSeek's dpsk grouped GEMMs in cutlass::device_kernel<...::GemmKernel>,
    // CUTLASS 3 GemmUniversal, MoE grouped GEMMs): the kernel's own function name says GEMM (not a
    // namespace: dpsk::grouped_gemm::...::transpose is no GEMM; "gemma" is no GEMM). Precision from
    // the type tags; math in fp8 or tf32 is Tensor Core work (no CUDA core computes those formats),
    // any other precision cannot be told from the name.
    TcByPrecision(GemmOrConv(R(kFun, "Gemm", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown))),
    TcByPrecision(GemmOrConv(R(kFun, "gemm", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown))),
    TcByPrecision(GemmOrConv(R(kFun, "GEMM", Cat::kGemm, kTag, P::kUnknown, Tc::kUnknown))),

    // --- AMP GradScaler: unscale_ (foreach and TensorIterator fallback) and update.
    Role(KernelRole::kAmpUnscale, R(kSub, "_amp_foreach_non_finite_check_and_unscale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kAmpUnscale, R(kSub, "_amp_non_finite_check_and_unscale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kAmpUpdateScale, R(kSub, "amp_update_scale", Cat::kAmpScaler, kTag, P::kUnknown, Tc::kNo)),

    // --- Optimizers: foreach / fused multi_tensor_apply (PyTorch, apex), fused Adam/SGD.
    Role(KernelRole::kOptimizerForeach, R(kSub, "multi_tensor_apply_kernel", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kOptimizerFused, R(kSub, "fused_adam", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kOptimizerFused, R(kSub, "FusedAdam", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kOptimizerFused, R(kSub, "fused_sgd", Cat::kOptimizer, kTag, P::kUnknown, Tc::kNo)),

    // --- Casts (aten/src/ATen/native/cuda/Copy.cu): <type>_copy_kernel_cuda and
    // <type>tofloat32_copy_kernel_cuda; direct_copy_kernel_cuda is a cast only when it converts
    // (LoadWithCast/StoreWithCast), else a plain copy.
    Role(KernelRole::kCast, R(kSub, "direct_copy_kernel_cuda", Cat::kCast, kTag, P::kUnknown, Tc::kNo, "WithCast")),
    Role(KernelRole::kCopy, R(kSub, "direct_copy_kernel_cuda", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo)),
    Role(KernelRole::kCast, R(kSub, "copy_kernel_cuda", Cat::kCast, kTag, P::kUnknown, Tc::kNo)),

    // --- NCHW <-> NHWC layout transforms (cuDNN). The untemplated legacy name (cuDNN 7) appears
    // only on fp16 Tensor Core paths, hence the fp16 fallback.
    Role(KernelRole::kLayoutTransform, R(kSub, "nchwToNhwc", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo)),
    Role(KernelRole::kLayoutTransform, R(kSub, "nhwcToNchw", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo)),
    Role(KernelRole::kLayoutTransform, R(kSub, "NchwToNhwc", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo)),
    Role(KernelRole::kLayoutTransform, R(kSub, "NhwcToNchw", Cat::kLayoutTransform, kTag, P::kFp16, Tc::kNo)),
    Role(KernelRole::kLayoutTransform, R(kSub, "transpose_readWrite_alignment", Cat::kLayoutTransform, kTag, P::kUnknown, Tc::kNo)),

    // --- Normalization.
    R(kSub, "bn_fw", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "bn_bw", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "batch_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "BatchNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "layer_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "LayerNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "group_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GroupNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "instance_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "rms_norm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RMSNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RmsNorm", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "RowwiseMoments", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GammaBetaBackward", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "GradGammaBeta", Cat::kNormalization, kTag, P::kUnknown, Tc::kNo),

    // --- Softmax.
    R(kSub, "softmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "SoftMax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "Softmax", Cat::kSoftmax, kTag, P::kUnknown, Tc::kNo),

    // --- Copy-like kernels (concatenation, gathers).
    Role(KernelRole::kCopy, R(kSub, "CatArrayBatchedCopy", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo)),
    R(kSub, "indexSelect", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "index_select", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "vectorized_gather", Cat::kMemcpyLike, kTag, P::kUnknown, Tc::kNo),

    // --- Reductions: losses, pooling, ATen reduce_kernel, CUB reductions.
    R(kSub, "nll_loss", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "NLLCriterion", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "cross_entropy", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "max_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "avg_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "adaptive_average_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "adaptive_max_pool", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "reduce_kernel", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "DeviceReduce", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "DeviceSegmentedReduce", Cat::kReduction, kTag, P::kUnknown, Tc::kNo),

    // --- ATen elementwise launch wrappers (vectorized_/unrolled_/elementwise_kernel, index_,
    // scatter_gather_, distribution_ variants), dropout, cuDNN scaling.
    R(kSub, "elementwise_kernel", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "distribution_elementwise", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "fused_dropout", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
    R(kSub, "scalePackedTensor", Cat::kElementwise, kTag, P::kUnknown, Tc::kNo),
};

const size_t kRuleCount = sizeof(kRules) / sizeof(kRules[0]);
static_assert(sizeof(kRules) / sizeof(kRules[0]) < 0xFFFF, "rule index must fit KernelClass::rule");

// Roles decided by words in the name (checked in this order, before the row's role). Sources:
//   amp_update_scale, non_finite_check_and_unscale: torch/amp/grad_scaler.py calls
//     torch._amp_update_scale_ and torch._amp_foreach_non_finite_check_and_unscale_
//     (aten/src/ATen/native/cuda/AmpKernels.cu, kernels amp_update_scale_cuda_kernel and the
//     multi_tensor_apply / elementwise kernels of _amp_(foreach_)non_finite_check_and_unscale_cuda_);
//   fused optimizers: torch.optim.Adam/AdamW/SGD(fused=True) launch multi_tensor_apply_kernel
//     with FusedOptimizerTensorListMetadata and Fused{Adam,Sgd}MathFunctor
//     (aten/src/ATen/native/cuda/fused_adam_impl.cu, fused_sgd_kernel.cu); apex's fused_adam;
//   per-parameter optimizers: the for-loop Adam/AdamW/RMSprop (torch/optim/adam.py
//     _single_tensor_adam: exp_avg_sq.mul_(beta2).addcmul_(grad, grad); param.addcdiv_(...))
//     run addcmul_/addcdiv_, whose kernels only optimizers use in practice
//     (aten/src/ATen/native/cuda/PointwiseOpsKernel.cu: addcmul_cuda_kernel, addcdiv_cuda_kernel);
//   fill: tensor.fill_() / zero_() (aten/src/ATen/native/cuda/FillKernel.cu: FillFunctor), and
//     ROCm's __amd_rocclr_fillBuffer; copies: __amd_rocclr_copyBuffer.
const RoleMarker kRoleMarkers[] = {
    {"amp_update_scale", KernelRole::kAmpUpdateScale},
    {"non_finite_check_and_unscale", KernelRole::kAmpUnscale},
    {"FusedAdam", KernelRole::kOptimizerFused},
    {"fused_adam", KernelRole::kOptimizerFused},
    {"FusedSgd", KernelRole::kOptimizerFused},
    {"fused_sgd", KernelRole::kOptimizerFused},
    {"FusedOptimizerTensorListMetadata", KernelRole::kOptimizerFused},
    {"addcmul_cuda_kernel", KernelRole::kOptimizerPerParam},
    {"addcdiv_cuda_kernel", KernelRole::kOptimizerPerParam},
    {"FillFunctor", KernelRole::kFill},
    {"__amd_rocclr_fillBuffer", KernelRole::kFill},
    {"__amd_rocclr_copyBuffer", KernelRole::kCopy},
};
const size_t kRoleMarkerCount = sizeof(kRoleMarkers) / sizeof(kRoleMarkers[0]);

// multi_tensor_apply kernels work on a list of tensors in one launch (foreach and fused
// optimizers, the foreach GradScaler unscale): aten/src/ATen/native/cuda/MultiTensorApply.cuh.
const std::string_view kMultiTensorApplyMarker = "multi_tensor_apply";

}  // namespace ampscope::kernel_rules
