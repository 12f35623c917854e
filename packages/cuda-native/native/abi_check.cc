// Compile-time check of cuda_api.h against NVIDIA's real headers (cuda.h always; nvrtc.h and
// cublas_api.h when their folders are passed with -DMX_HAVE_NVRTC_H / -DMX_HAVE_CUBLAS_H). Never
// linked: src/abi.test.ts runs `g++ -fsyntax-only` on it. Each function pointer in our tables must
// have the real function's arity, and each parameter and the result the same size and category
// (pointer, integer, floating), and every constant the real value — so a wrong prototype fails CI
// instead of corrupting a call on a GPU machine.
#include <cuda.h>
#include <library_types.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

#ifdef MX_HAVE_NVRTC_H
#include <nvrtc.h>
#endif
#ifdef MX_HAVE_CUBLAS_H
#include <cublas_api.h>
#endif

#include "cuda_api.h"

namespace {

template <typename T>
constexpr int Category() {
  return std::is_pointer_v<T> ? 1 : std::is_floating_point_v<T> ? 2 : std::is_integral_v<T> || std::is_enum_v<T> ? 3 : 0;
}

template <typename A, typename B>
constexpr bool SameSlot() {
  return sizeof(A) == sizeof(B) && Category<A>() == Category<B>() && Category<A>() != 0;
}

template <typename F, typename G>
struct SameShape : std::false_type {};

template <typename R1, typename... A1, typename R2, typename... A2>
struct SameShape<R1 (*)(A1...), R2 (*)(A2...)> {
  static constexpr bool value = [] {
    if constexpr (sizeof...(A1) != sizeof...(A2)) {
      return false;
    } else {
      return SameSlot<R1, R2>() && (SameSlot<A1, A2>() && ...);
    }
  }();
};

#define MX_CHECK(name, ret, args)                                                                    \
  static_assert(SameShape<decltype(&::name), decltype(std::declval<mx::Table>().name)>::value, \
                #name " differs from the real header's prototype");

using Table = void;

}  // namespace

namespace mx {
using Table = DriverApi;
}
MX_DRIVER_FUNCS(MX_CHECK)

#ifdef MX_HAVE_NVRTC_H
namespace mx {
using NvrtcTable = NvrtcApi;
}
#undef MX_CHECK
#define MX_CHECK(name, ret, args)                                                                         \
  static_assert(SameShape<decltype(&::name), decltype(std::declval<mx::NvrtcTable>().name)>::value, \
                #name " differs from the real header's prototype");
MX_NVRTC_FUNCS(MX_CHECK)
#endif

#ifdef MX_HAVE_CUBLAS_H
namespace mx {
using CublasTable = CublasApi;
}
// cublas_api.h overloads cublasGemmStridedBatchedEx in C++ (a cudaDataType computeType wrapper):
// pick the exported C function by its documented prototype, then compare as above.
using RealGemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, long long, const void*, cudaDataType, int, long long,
                                    const void*, void*, cudaDataType, int, long long, int, cublasComputeType_t,
                                    cublasGemmAlgo_t);
#define cublasGemmStridedBatchedEx_checked static_cast<RealGemm>(&::cublasGemmStridedBatchedEx)
#undef MX_CHECK
#define MX_CHECK(name, ret, args)                                                                         \
  static_assert(SameShape<decltype(name##_checked), decltype(std::declval<mx::CublasTable>().name)>::value, \
                #name " differs from the real header's prototype");
#define cublasCreate_v2_checked &::cublasCreate_v2
#define cublasGetVersion_v2_checked &::cublasGetVersion_v2
#define cublasSetStream_v2_checked &::cublasSetStream_v2
MX_CUBLAS_FUNCS(MX_CHECK)
static_assert(mx::CUBLAS_GEMM_DEFAULT == ::CUBLAS_GEMM_DEFAULT, "CUBLAS_GEMM_DEFAULT");
static_assert(::CUBLAS_COMPUTE_32F == 68 && ::CUBLAS_COMPUTE_32F_FAST_TF32 == 77 && ::CUBLAS_COMPUTE_64F == 70,
              "compute types used by device-runtime.ts");
static_assert(::CUBLAS_OP_N == 0 && ::CUBLAS_OP_T == 1, "transpose flags used by device-runtime.ts");
#endif

static_assert(::CUDA_R_32F == 0 && ::CUDA_R_64F == 1 && ::CUDA_R_16F == 2 && ::CUDA_R_16BF == 14,
              "data types used by device-runtime.ts");
static_assert(sizeof(mx::CUdeviceptr) == sizeof(::CUdeviceptr), "CUdeviceptr");
static_assert(mx::CUDA_SUCCESS == ::CUDA_SUCCESS, "CUDA_SUCCESS");
static_assert(mx::CUDA_ERROR_OUT_OF_MEMORY == ::CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY");
static_assert(mx::CUDA_ERROR_NOT_READY == ::CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY");
static_assert(mx::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED == ::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer");
static_assert(mx::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == ::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK == ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
              "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_CLOCK_RATE == ::CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == ::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID == ::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH == ::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "attr");
static_assert(mx::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "attr");
static_assert(mx::CU_STREAM_NON_BLOCKING == ::CU_STREAM_NON_BLOCKING, "stream flag");
static_assert(mx::CU_EVENT_DISABLE_TIMING == ::CU_EVENT_DISABLE_TIMING, "event flag");
