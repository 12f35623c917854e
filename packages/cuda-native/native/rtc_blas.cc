// The addon's NVRTC and cuBLAS entry points, apart from the driver-facing core (addon.cc) so each
// file reads in a sitting. Same conventions: every failure throws a JS Error carrying `call`,
// `code` and `codeName`; NVRTC compile errors are returned with the log instead (the caller turns
// them into an MXNetError that fails only the op that needed the kernel).
#include "addon.h"

namespace mx {

namespace {
constexpr int CUBLAS_GEMM_DEFAULT_ALGO = CUBLAS_GEMM_DEFAULT;
}  // namespace

Napi::Value NvrtcVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (rtcHandle == nullptr) throw MakeError(env, "nvrtcVersion", -1, "MX_NOT_LOADED", "libnvrtc is not loaded");
  int major = 0, minor = 0;
  rtc.nvrtcVersion(&major, &minor);
  Napi::Array a = Napi::Array::New(env, 2);
  a.Set(0u, major);
  a.Set(1u, minor);
  return a;
}

// nvrtcCompile(source, name, options[]) → {cubin: Uint8Array | null, log, error}
Napi::Value NvrtcCompile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (rtcHandle == nullptr) throw MakeError(env, "nvrtcCompile", -1, "MX_NOT_LOADED", "libnvrtc is not loaded");
  const std::string source = info[0].As<Napi::String>().Utf8Value();
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  const std::vector<std::string> opts = StringList(info[2]);
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  nvrtcProgram prog = nullptr;
  nvrtcResult r = rtc.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  Napi::Object out = Napi::Object::New(env);
  out.Set("cubin", env.Null());
  out.Set("log", "");
  if (r != 0) {
    out.Set("error", rtc.nvrtcGetErrorString(r));
    return out;
  }
  r = rtc.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  rtc.nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 0) rtc.nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  out.Set("log", log);
  if (r != 0) {
    out.Set("error", rtc.nvrtcGetErrorString(r));
    rtc.nvrtcDestroyProgram(&prog);
    return out;
  }
  size_t size = 0;
  r = rtc.nvrtcGetCUBINSize(prog, &size);
  if (r == 0 && size > 0) {
    Napi::Uint8Array cubin = Napi::Uint8Array::New(env, size);
    r = rtc.nvrtcGetCUBIN(prog, reinterpret_cast<char*>(cubin.Data()));
    if (r == 0) out.Set("cubin", cubin);
  }
  if (r != 0) out.Set("error", rtc.nvrtcGetErrorString(r));
  out.Set("error", r == 0 ? env.Null() : out.Get("error"));
  rtc.nvrtcDestroyProgram(&prog);
  return out;
}

static cublasHandle_t Blas(Napi::Env env, Device& d) {
  if (blasHandle == nullptr) throw MakeError(env, "cublasCreate_v2", -1, "MX_NOT_LOADED", "libcublas is not loaded");
  cublasHandle_t& h = BlasHandleOf(d);
  if (h == nullptr) {
    CheckCublas(env, "cublasCreate_v2", blas.cublasCreate_v2(&h));
    CheckCublas(env, "cublasSetStream_v2", blas.cublasSetStream_v2(h, StreamOf(d)));
  }
  return h;
}

Napi::Value CublasVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = OpenedDevice(env, info[0]);
  int v = 0;
  CheckCublas(env, "cublasGetVersion_v2", blas.cublasGetVersion_v2(Blas(env, d), &v));
  return Napi::Number::New(env, v);
}

// gemm(dev, transA, transB, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC,
//      batch, dataType, computeType): cublasGemmStridedBatchedEx, column-major as cuBLAS sees it.
Napi::Value Gemm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = OpenedDevice(env, info[0]);
  auto I = [&](int k) { return info[k].As<Napi::Number>().Int32Value(); };
  auto L = [&](int k) { return static_cast<long long>(info[k].As<Napi::Number>().DoubleValue()); };
  const double alpha = info[6].As<Napi::Number>().DoubleValue();
  const double beta = info[13].As<Napi::Number>().DoubleValue();
  const int dataType = I(18);
  const int computeType = I(19);
  const bool f64 = computeType == 70 || computeType == 71;
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* pa = f64 ? static_cast<const void*>(&alpha) : static_cast<const void*>(&alpha32);
  const void* pb = f64 ? static_cast<const void*>(&beta) : static_cast<const void*>(&beta32);
  const auto A = reinterpret_cast<const void*>(Address(info[7]));
  const auto B = reinterpret_cast<const void*>(Address(info[10]));
  const auto C = reinterpret_cast<void*>(Address(info[14]));
  CheckCublas(env, "cublasGemmStridedBatchedEx",
            blas.cublasGemmStridedBatchedEx(Blas(env, d), I(1), I(2), I(3), I(4), I(5), pa, A, dataType, I(8), L(9), B,
                                            dataType, I(11), L(12), pb, C, dataType, I(15), L(16), I(17),
                                            computeType, CUBLAS_GEMM_DEFAULT_ALGO));
  return env.Undefined();
}

}  // namespace mx
