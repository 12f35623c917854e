// The few CUDA driver, NVRTC and cuBLAS declarations the addon uses, written out here instead of
// including cuda.h / nvrtc.h / cublas_api.h: the addon links against none of those libraries (it
// dlopens them at first use, so `npm install` works on machines without CUDA) and must build where
// no CUDA headers exist. Every value below is checked against the real headers by
// native/abi_check.cc, which the test suite compiles wherever the headers are installed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mx {

// ---- driver API (cuda.h) ------------------------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUstream_st;
using CUstream = CUstream_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33;
constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

// Versioned entry points are looked up by their real exported names (cuda.h renames the plain names
// by macro: cuMemAlloc → cuMemAlloc_v2).
#define MX_DRIVER_FUNCS(X) \
  X(cuInit, CUresult, (unsigned)) \
  X(cuDriverGetVersion, CUresult, (int*)) \
  X(cuGetErrorName, CUresult, (CUresult, const char**)) \
  X(cuGetErrorString, CUresult, (CUresult, const char**)) \
  X(cuDeviceGetCount, CUresult, (int*)) \
  X(cuDeviceGet, CUresult, (CUdevice*, int)) \
  X(cuDeviceGetName, CUresult, (char*, int, CUdevice)) \
  X(cuDeviceGetAttribute, CUresult, (int*, int, CUdevice)) \
  X(cuDeviceTotalMem_v2, CUresult, (size_t*, CUdevice)) \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext*, CUdevice)) \
  X(cuCtxSetCurrent, CUresult, (CUcontext)) \
  X(cuCtxEnablePeerAccess, CUresult, (CUcontext, unsigned)) \
  X(cuDeviceCanAccessPeer, CUresult, (int*, CUdevice, CUdevice)) \
  X(cuStreamCreate, CUresult, (CUstream*, unsigned)) \
  X(cuStreamWaitEvent, CUresult, (CUstream, CUevent, unsigned)) \
  X(cuEventCreate, CUresult, (CUevent*, unsigned)) \
  X(cuEventRecord, CUresult, (CUevent, CUstream)) \
  X(cuEventQuery, CUresult, (CUevent)) \
  X(cuEventSynchronize, CUresult, (CUevent)) \
  X(cuEventDestroy_v2, CUresult, (CUevent)) \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr*, size_t)) \
  X(cuMemFree_v2, CUresult, (CUdeviceptr)) \
  X(cuMemGetInfo_v2, CUresult, (size_t*, size_t*)) \
  X(cuMemAllocHost_v2, CUresult, (void**, size_t)) \
  X(cuMemFreeHost, CUresult, (void*)) \
  X(cuMemcpyHtoDAsync_v2, CUresult, (CUdeviceptr, const void*, size_t, CUstream)) \
  X(cuMemcpyDtoHAsync_v2, CUresult, (void*, CUdeviceptr, size_t, CUstream)) \
  X(cuMemcpyDtoDAsync_v2, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream)) \
  X(cuMemcpyPeerAsync, CUresult, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream)) \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X(cuModuleLoadData, CUresult, (CUmodule*, const void*)) \
  X(cuModuleGetFunction, CUresult, (CUfunction*, CUmodule, const char*)) \
  X(cuLaunchKernel, CUresult, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**))

struct DriverApi {
#define MX_FIELD(name, ret, args) ret(*name) args;
  MX_DRIVER_FUNCS(MX_FIELD)
#undef MX_FIELD
};

// ---- NVRTC (nvrtc.h) ----------------------------------------------------------------------------
using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram*;

#define MX_NVRTC_FUNCS(X) \
  X(nvrtcGetErrorString, const char*, (nvrtcResult)) \
  X(nvrtcVersion, nvrtcResult, (int*, int*)) \
  X(nvrtcCreateProgram, nvrtcResult, (nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*)) \
  X(nvrtcDestroyProgram, nvrtcResult, (nvrtcProgram*)) \
  X(nvrtcCompileProgram, nvrtcResult, (nvrtcProgram, int, const char* const*)) \
  X(nvrtcGetProgramLogSize, nvrtcResult, (nvrtcProgram, size_t*)) \
  X(nvrtcGetProgramLog, nvrtcResult, (nvrtcProgram, char*)) \
  X(nvrtcGetCUBINSize, nvrtcResult, (nvrtcProgram, size_t*)) \
  X(nvrtcGetCUBIN, nvrtcResult, (nvrtcProgram, char*))

struct NvrtcApi {
#define MX_FIELD(name, ret, args) ret(*name) args;
  MX_NVRTC_FUNCS(MX_FIELD)
#undef MX_FIELD
};

// ---- cuBLAS (cublas_api.h, library_types.h) -------------------------------------------------------
using cublasStatus_t = int;
struct cublasContext;
using cublasHandle_t = cublasContext*;
constexpr int CUBLAS_GEMM_DEFAULT = -1;

#define MX_CUBLAS_FUNCS(X) \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t*)) \
  X(cublasGetVersion_v2, cublasStatus_t, (cublasHandle_t, int*)) \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t, CUstream)) \
  X(cublasGemmStridedBatchedEx, cublasStatus_t, (cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int, long long, const void*, int, int, long long, const void*, void*, int, int, long long, int, int, int))

struct CublasApi {
#define MX_FIELD(name, ret, args) ret(*name) args;
  MX_CUBLAS_FUNCS(MX_FIELD)
#undef MX_FIELD
};

// ---- loading ------------------------------------------------------------------------------------
/** One candidate file tried for a library, and why it was not taken (empty when it was). */
struct Attempt {
  std::string path;
  std::string error;
};

/** What loading one library found: the file taken (empty if none) and every attempt. */
struct LoadReport {
  std::string loaded;
  std::vector<Attempt> tried;
};

/**
 * dlopen the first candidate that opens and exports every symbol in `names` (written into `table`,
 * an array of function pointers in the same order). A candidate missing a symbol is closed again
 * and reported with the symbol's name. Returns the report; `loaded` is empty when none worked.
 */
LoadReport LoadLibrary(const std::vector<std::string>& candidates, const char* const* names, size_t count,
                       void** table, void** handle);

}  // namespace mx
