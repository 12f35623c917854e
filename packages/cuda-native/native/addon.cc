// The @mx/cuda-native addon: a thin N-API layer over the CUDA driver API, NVRTC and cuBLAS, all
// three dlopened at run time (loader.cc) so the binary links against nothing but libc and libdl.
// Policy lives in TypeScript (which files to try, which errors are fatal, kernel caching, the
// engine); this file owns only what must be native: device memory and streams, pinned staging for
// host copies, kernel launches with packed arguments, and waiting for the GPU on libuv's thread
// pool so the event loop never blocks. Every failing call throws a JS Error carrying `call`,
// `code` and `codeName`, which src/errors.ts turns into an MXNetError.
#include <dlfcn.h>
#include <napi.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "addon.h"

namespace mx {

DriverApi cu{};
NvrtcApi rtc{};
CublasApi blas{};
void* rtcHandle = nullptr;
void* blasHandle = nullptr;

namespace {

void* cuHandle = nullptr;
std::string cuPath, rtcPath, blasPath;
bool cuReady = false;
int driverVersion = 0;

#define MX_NAME(name, ret, args) #name,
const char* const kDriverNames[] = {MX_DRIVER_FUNCS(MX_NAME)};
const char* const kNvrtcNames[] = {MX_NVRTC_FUNCS(MX_NAME)};
const char* const kCublasNames[] = {MX_CUBLAS_FUNCS(MX_NAME)};
#undef MX_NAME

constexpr size_t kPinnedCap = 256u << 20;   // idle pinned staging kept per device
constexpr size_t kChunk = 64u << 20;        // host → device copies go through blocks this large
constexpr size_t kMinBlock = 1u << 20;

Napi::Error CudaError(Napi::Env env, const char* call, int code, const char* codeName, const std::string& text) {
  Napi::Error e = Napi::Error::New(env, std::string(call) + " failed: " + codeName + ": " + text);
  e.Set("call", Napi::String::New(env, call));
  e.Set("code", Napi::Number::New(env, code));
  e.Set("codeName", Napi::String::New(env, codeName));
  return e;
}

Napi::Error DriverError(Napi::Env env, const char* call, CUresult r) {
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* text = "unknown error";
  if (cu.cuGetErrorName != nullptr) cu.cuGetErrorName(r, &name);
  if (cu.cuGetErrorString != nullptr) cu.cuGetErrorString(r, &text);
  return CudaError(env, call, r, name, text);
}

void Check(Napi::Env env, const char* call, CUresult r) {
  if (r != CUDA_SUCCESS) throw DriverError(env, call, r);
}

void CheckBlas(Napi::Env env, const char* call, cublasStatus_t s) {
  if (s != 0) throw CudaError(env, call, s, "CUBLAS_STATUS", "cuBLAS status " + std::to_string(s));
}

void NeedDriver(Napi::Env env) {
  if (!cuReady) {
    throw CudaError(env, "cuInit", -1, "MX_NOT_LOADED", "the CUDA driver library is not loaded or initialised");
  }
}

}  // namespace

struct PinnedBlock {
  void* ptr = nullptr;
  size_t size = 0;
  CUevent event = nullptr;
  bool recorded = false;  // a copy was queued after which the event was recorded
  bool held = false;      // a pending read owns it
};

struct Device {
  int ordinal = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::vector<std::unique_ptr<PinnedBlock>> pinned;  // stable addresses: pending reads hold one
  std::vector<CUmodule> modules;
};

namespace {

struct Function {
  int device;
  CUfunction fn;
};

std::vector<std::unique_ptr<Device>> devices;
std::vector<Function> functions;

Device& Dev(Napi::Env env, const Napi::Value& v) {
  const int i = v.As<Napi::Number>().Int32Value();
  if (i < 0 || static_cast<size_t>(i) >= devices.size() || !devices[i]) {
    throw CudaError(env, "device", -1, "MX_NOT_OPEN", "device " + std::to_string(i) + " is not open");
  }
  Device& d = *devices[i];
  Check(env, "cuCtxSetCurrent", cu.cuCtxSetCurrent(d.ctx));
  return d;
}

CUdeviceptr Ptr(const Napi::Value& v) {
  return static_cast<CUdeviceptr>(v.As<Napi::Number>().DoubleValue());
}

size_t Size(const Napi::Value& v) {
  return static_cast<size_t>(v.As<Napi::Number>().DoubleValue());
}

bool Idle(Napi::Env env, PinnedBlock& b) {
  if (b.held) return false;
  if (!b.recorded) return true;
  const CUresult r = cu.cuEventQuery(b.event);
  if (r == CUDA_ERROR_NOT_READY) return false;
  Check(env, "cuEventQuery", r);
  b.recorded = false;
  return true;
}

size_t PinnedBytes(const Device& d) {
  size_t n = 0;
  for (const auto& b : d.pinned) n += b->size;
  return n;
}

// A pinned block (owned by the device's list) of at least `n` bytes no queued copy uses: the smallest idle one that fits, else a
// new one while under the cap, else the first busy one that fits, waited for.
PinnedBlock& AcquirePinned(Napi::Env env, Device& d, size_t n) {
  PinnedBlock* best = nullptr;
  for (auto& b : d.pinned) {
    if (b->size >= n && Idle(env, *b) && (best == nullptr || b->size < best->size)) best = b.get();
  }
  if (best != nullptr) return *best;
  if (PinnedBytes(d) + n > kPinnedCap) {
    for (auto& b : d.pinned) {
      if (b->held || b->size < n) continue;
      Check(env, "cuEventSynchronize", cu.cuEventSynchronize(b->event));
      b->recorded = false;
      return *b;
    }
  }
  size_t size = kMinBlock;
  while (size < n) size <<= 1;
  auto b = std::make_unique<PinnedBlock>();
  CUresult r = cu.cuMemAllocHost_v2(&b->ptr, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && size > n) {
    size = n;
    r = cu.cuMemAllocHost_v2(&b->ptr, size);
  }
  Check(env, "cuMemAllocHost_v2", r);
  b->size = size;
  r = cu.cuEventCreate(&b->event, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) {
    cu.cuMemFreeHost(b->ptr);
    Check(env, "cuEventCreate", r);
  }
  d.pinned.push_back(std::move(b));
  return *d.pinned.back();
}

// Give back idle blocks above the cap (after a large read grew the pool).
void TrimPinned(Napi::Env env, Device& d) {
  size_t total = PinnedBytes(d);
  for (size_t i = d.pinned.size(); i-- > 0 && total > kPinnedCap;) {
    PinnedBlock& b = *d.pinned[i];
    if (!Idle(env, b)) continue;
    total -= b.size;
    cu.cuEventDestroy_v2(b.event);
    cu.cuMemFreeHost(b.ptr);
    d.pinned.erase(d.pinned.begin() + static_cast<long>(i));
  }
}

Napi::Object Report(Napi::Env env, const LoadReport& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("loaded", r.loaded.empty() ? env.Null() : Napi::String::New(env, r.loaded));
  Napi::Array tried = Napi::Array::New(env, r.tried.size());
  for (size_t i = 0; i < r.tried.size(); i++) {
    Napi::Object t = Napi::Object::New(env);
    t.Set("path", r.tried[i].path);
    t.Set("error", r.tried[i].error);
    tried.Set(static_cast<uint32_t>(i), t);
  }
  o.Set("tried", tried);
  return o;
}

std::vector<std::string> Strings(const Napi::Value& v) {
  std::vector<std::string> out;
  if (!v.IsArray()) return out;
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) out.push_back(a.Get(i).As<Napi::String>().Utf8Value());
  return out;
}

template <typename Api, size_t N>
Napi::Object LoadOne(Napi::Env env, const Napi::Value& paths, Api& api, const char* const (&names)[N],
                     void*& handle, std::string& path) {
  if (handle != nullptr) return Report(env, LoadReport{path, {}});
  const LoadReport r = LoadLibrary(Strings(paths), names, N, reinterpret_cast<void**>(&api), &handle);
  path = r.loaded;
  return Report(env, r);
}

// load({driver, nvrtc, cublas}): candidate paths per library → a report per library asked for.
Napi::Value Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object want = info[0].As<Napi::Object>();
  Napi::Object out = Napi::Object::New(env);
  static_assert(sizeof(DriverApi) == sizeof(kDriverNames), "driver table and names differ");
  static_assert(sizeof(NvrtcApi) == sizeof(kNvrtcNames), "nvrtc table and names differ");
  static_assert(sizeof(CublasApi) == sizeof(kCublasNames), "cublas table and names differ");
  if (want.Has("driver")) out.Set("driver", LoadOne(env, want.Get("driver"), cu, kDriverNames, cuHandle, cuPath));
  if (want.Has("nvrtc")) out.Set("nvrtc", LoadOne(env, want.Get("nvrtc"), rtc, kNvrtcNames, rtcHandle, rtcPath));
  if (want.Has("cublas")) {
    out.Set("cublas", LoadOne(env, want.Get("cublas"), blas, kCublasNames, blasHandle, blasPath));
  }
  return out;
}

// preload(path) → '' or dlerror()'s text: opens a library the loaded ones find by soname (NVRTC
// dlopens libnvrtc-builtins by name, which pip's wheels do not put on the loader path).
Napi::Value Preload(const Napi::CallbackInfo& info) {
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  dlerror();
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return Napi::String::New(info.Env(), "");
  const char* err = dlerror();
  return Napi::String::New(info.Env(), err != nullptr ? err : "dlopen failed");
}

Napi::Value DriverInit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (cuHandle == nullptr) {
    throw CudaError(env, "cuInit", -1, "MX_NOT_LOADED", "libcuda is not loaded");
  }
  if (!cuReady) {
    Check(env, "cuInit", cu.cuInit(0));
    Check(env, "cuDriverGetVersion", cu.cuDriverGetVersion(&driverVersion));
    cuReady = true;
  }
  return Napi::Number::New(env, driverVersion);
}

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  NeedDriver(info.Env());
  int n = 0;
  Check(info.Env(), "cuDeviceGetCount", cu.cuDeviceGetCount(&n));
  return Napi::Number::New(info.Env(), n);
}

Napi::Value DeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  NeedDriver(env);
  CUdevice dev = 0;
  Check(env, "cuDeviceGet", cu.cuDeviceGet(&dev, info[0].As<Napi::Number>().Int32Value()));
  char name[256] = {0};
  Check(env, "cuDeviceGetName", cu.cuDeviceGetName(name, sizeof(name) - 1, dev));
  size_t total = 0;
  Check(env, "cuDeviceTotalMem_v2", cu.cuDeviceTotalMem_v2(&total, dev));
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", name);
  o.Set("totalMemory", Napi::Number::New(env, static_cast<double>(total)));
  const std::pair<const char*, int> attrs[] = {
      {"major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {"minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {"multiprocessors", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {"maxThreadsPerBlock", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {"sharedMemoryPerBlock", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
      {"clockKHz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
      {"memoryBusWidth", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
      {"pciBusId", CU_DEVICE_ATTRIBUTE_PCI_BUS_ID},
  };
  for (const auto& [key, attr] : attrs) {
    int v = 0;
    Check(env, "cuDeviceGetAttribute", cu.cuDeviceGetAttribute(&v, attr, dev));
    o.Set(key, Napi::Number::New(env, v));
  }
  return o;
}

Napi::Value OpenDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  NeedDriver(env);
  const int i = info[0].As<Napi::Number>().Int32Value();
  if (i < 0) throw CudaError(env, "cuDeviceGet", -1, "MX_BAD_ORDINAL", "negative device ordinal");
  if (static_cast<size_t>(i) < devices.size() && devices[i]) return env.Undefined();
  auto d = std::make_unique<Device>();
  d->ordinal = i;
  Check(env, "cuDeviceGet", cu.cuDeviceGet(&d->dev, i));
  Check(env, "cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev));
  Check(env, "cuCtxSetCurrent", cu.cuCtxSetCurrent(d->ctx));
  Check(env, "cuStreamCreate", cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING));
  if (devices.size() <= static_cast<size_t>(i)) devices.resize(i + 1);
  devices[i] = std::move(d);
  return env.Undefined();
}

// memAlloc(dev, bytes) → the device address as a Number (addresses stay below 2^53), or null when
// the device is out of memory (the JS pool then trims and retries, as @mx/storage does everywhere).
Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Dev(env, info[0]);
  CUdeviceptr p = 0;
  const CUresult r = cu.cuMemAlloc_v2(&p, Size(info[1]));
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return env.Null();
  Check(env, "cuMemAlloc_v2", r);
  return Napi::Number::New(env, static_cast<double>(p));
}

Napi::Value MemFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Dev(env, info[0]);
  Check(env, "cuMemFree_v2", cu.cuMemFree_v2(Ptr(info[1])));
  return env.Undefined();
}

Napi::Value MemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Dev(env, info[0]);
  size_t free = 0, total = 0;
  Check(env, "cuMemGetInfo_v2", cu.cuMemGetInfo_v2(&free, &total));
  Napi::Object o = Napi::Object::New(env);
  o.Set("free", Napi::Number::New(env, static_cast<double>(free)));
  o.Set("total", Napi::Number::New(env, static_cast<double>(total)));
  return o;
}

// write(dev, dst, typedArray): host bytes → device, staged through pinned blocks so the copy is
// queued on the stream and this call returns without waiting for earlier kernels.
Napi::Value Write(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  const CUdeviceptr dst = Ptr(info[1]);
  Napi::TypedArray src = info[2].As<Napi::TypedArray>();
  const uint8_t* bytes = static_cast<const uint8_t*>(src.ArrayBuffer().Data()) + src.ByteOffset();
  const size_t n = src.ByteLength();
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t len = n - off < kChunk ? n - off : kChunk;
    PinnedBlock& b = AcquirePinned(env, d, len);
    std::memcpy(b.ptr, bytes + off, len);
    Check(env, "cuMemcpyHtoDAsync_v2", cu.cuMemcpyHtoDAsync_v2(dst + off, b.ptr, len, d.stream));
    Check(env, "cuEventRecord", cu.cuEventRecord(b.event, d.stream));
    b.recorded = true;
  }
  return env.Undefined();
}

// Waits on libuv's pool for an event recorded on a device stream, then (for reads) copies the
// pinned block out on the main thread.
class WaitWorker : public Napi::AsyncWorker {
 public:
  WaitWorker(Napi::Env env, Device* d, PinnedBlock* block, size_t bytes, bool copyOut)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), d_(d), block_(block),
        bytes_(bytes), copyOut_(copyOut), event_(block->event) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    result_ = cu.cuCtxSetCurrent(d_->ctx);
    if (result_ == CUDA_SUCCESS) result_ = cu.cuEventSynchronize(event_);
    if (result_ != CUDA_SUCCESS) SetError("cuEventSynchronize");
  }

  void OnOK() override {
    Napi::Env env = Env();
    PinnedBlock& b = *block_;
    b.held = false;
    b.recorded = false;
    if (!copyOut_) {
      deferred_.Resolve(env.Undefined());
      return;
    }
    Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, bytes_);
    std::memcpy(out.Data(), b.ptr, bytes_);
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error&) override {
    block_->held = false;
    deferred_.Reject(DriverError(Env(), "cuEventSynchronize", result_).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Device* d_;
  PinnedBlock* block_;
  size_t bytes_;
  bool copyOut_;
  CUevent event_;
  CUresult result_ = CUDA_SUCCESS;
};

// read(dev, src, bytes) → Promise<ArrayBuffer>, resolved once the copy queued behind every earlier
// kernel of the stream has landed.
Napi::Value Read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  const CUdeviceptr src = Ptr(info[1]);
  const size_t n = Size(info[2]);
  TrimPinned(env, d);
  PinnedBlock& b = AcquirePinned(env, d, n > 0 ? n : 1);
  if (n > 0) Check(env, "cuMemcpyDtoHAsync_v2", cu.cuMemcpyDtoHAsync_v2(b.ptr, src, n, d.stream));
  Check(env, "cuEventRecord", cu.cuEventRecord(b.event, d.stream));
  b.recorded = true;
  b.held = true;
  auto* w = new WaitWorker(env, &d, &b, n, true);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// synchronize(dev) → Promise<void> once everything queued so far on the device's stream is done.
Napi::Value Synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  PinnedBlock& b = AcquirePinned(env, d, 1);
  Check(env, "cuEventRecord", cu.cuEventRecord(b.event, d.stream));
  b.recorded = true;
  b.held = true;
  auto* w = new WaitWorker(env, &d, &b, 0, false);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Copy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  Check(env, "cuMemcpyDtoDAsync_v2", cu.cuMemcpyDtoDAsync_v2(Ptr(info[1]), Ptr(info[2]), Size(info[3]), d.stream));
  return env.Undefined();
}

// copyPeer(dstDev, dst, srcDev, src, bytes): ordered after both devices' queued work, and the
// destination device's later work waits for it.
Napi::Value CopyPeer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& dst = Dev(env, info[0]);
  Device& src = Dev(env, info[2]);
  const size_t n = Size(info[4]);
  Check(env, "cuCtxSetCurrent", cu.cuCtxSetCurrent(dst.ctx));
  PinnedBlock& before = AcquirePinned(env, dst, 1);
  Check(env, "cuEventRecord", cu.cuEventRecord(before.event, dst.stream));
  before.recorded = true;
  Check(env, "cuCtxSetCurrent", cu.cuCtxSetCurrent(src.ctx));
  Check(env, "cuStreamWaitEvent", cu.cuStreamWaitEvent(src.stream, before.event, 0));
  Check(env, "cuMemcpyPeerAsync",
        cu.cuMemcpyPeerAsync(Ptr(info[1]), dst.ctx, Ptr(info[3]), src.ctx, n, src.stream));
  PinnedBlock& after = AcquirePinned(env, src, 1);
  Check(env, "cuEventRecord", cu.cuEventRecord(after.event, src.stream));
  after.recorded = true;
  Check(env, "cuCtxSetCurrent", cu.cuCtxSetCurrent(dst.ctx));
  Check(env, "cuStreamWaitEvent", cu.cuStreamWaitEvent(dst.stream, after.event, 0));
  return env.Undefined();
}

Napi::Value Memset(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  const auto value = static_cast<unsigned char>(info[2].As<Napi::Number>().Uint32Value());
  Check(env, "cuMemsetD8Async", cu.cuMemsetD8Async(Ptr(info[1]), value, Size(info[3]), d.stream));
  return env.Undefined();
}

Napi::Value ModuleLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  Napi::Uint8Array image = info[1].As<Napi::Uint8Array>();
  CUmodule m = nullptr;
  Check(env, "cuModuleLoadData", cu.cuModuleLoadData(&m, image.Data()));
  d.modules.push_back(m);
  CUfunction fn = nullptr;
  const std::string name = info[2].As<Napi::String>().Utf8Value();
  Check(env, "cuModuleGetFunction", cu.cuModuleGetFunction(&fn, m, name.c_str()));
  functions.push_back({d.ordinal, fn});
  return Napi::Number::New(env, static_cast<double>(functions.size() - 1));
}

// launch(dev, fn, gx, gy, gz, bx, by, bz, sharedBytes, argBytes: Uint8Array, argOffsets: Uint32Array)
Napi::Value Launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Device& d = Dev(env, info[0]);
  const uint32_t id = info[1].As<Napi::Number>().Uint32Value();
  if (id >= functions.size() || functions[id].device != d.ordinal) {
    throw CudaError(env, "cuLaunchKernel", -1, "MX_BAD_FUNCTION", "no such kernel on this device");
  }
  unsigned dims[7];
  for (int k = 0; k < 7; k++) dims[k] = info[2 + k].As<Napi::Number>().Uint32Value();
  Napi::Uint8Array bytes = info[9].As<Napi::Uint8Array>();
  Napi::Uint32Array offsets = info[10].As<Napi::Uint32Array>();
  std::vector<void*> params(offsets.ElementLength());
  for (size_t k = 0; k < params.size(); k++) {
    if (offsets[k] >= bytes.ByteLength()) {
      throw CudaError(env, "cuLaunchKernel", -1, "MX_BAD_ARGS", "argument offset outside the argument block");
    }
    params[k] = bytes.Data() + offsets[k];
  }
  Check(env, "cuLaunchKernel",
        cu.cuLaunchKernel(functions[id].fn, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6],
                          d.stream, params.empty() ? nullptr : params.data(), nullptr));
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  const std::pair<const char*, Napi::Function::Callback> fns[] = {
      {"load", Load},
      {"preload", Preload},
      {"driverInit", DriverInit},
      {"deviceCount", DeviceCount},
      {"deviceInfo", DeviceInfo},
      {"openDevice", OpenDevice},
      {"memAlloc", MemAlloc},
      {"memFree", MemFree},
      {"memInfo", MemInfo},
      {"write", Write},
      {"read", Read},
      {"synchronize", Synchronize},
      {"copy", Copy},
      {"copyPeer", CopyPeer},
      {"memset", Memset},
      {"moduleLoad", ModuleLoad},
      {"launch", Launch},
      {"nvrtcVersion", NvrtcVersion},
      {"nvrtcCompile", NvrtcCompile},
      {"cublasVersion", CublasVersion},
      {"gemm", Gemm},
  };
  for (const auto& [name, fn] : fns) exports.Set(name, Napi::Function::New(env, fn, name));
  exports.Set("abi", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace

Napi::Error MakeError(Napi::Env env, const char* call, int code, const char* codeName, const std::string& text) {
  return CudaError(env, call, code, codeName, text);
}
void CheckCublas(Napi::Env env, const char* call, int status) { CheckBlas(env, call, status); }
Device& OpenedDevice(Napi::Env env, const Napi::Value& v) { return Dev(env, v); }
CUstream StreamOf(const Device& d) { return d.stream; }
cublasHandle_t& BlasHandleOf(Device& d) { return d.blas; }
unsigned long long Address(const Napi::Value& v) { return Ptr(v); }
std::vector<std::string> StringList(const Napi::Value& v) { return Strings(v); }

}  // namespace mx

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return mx::Init(env, exports); }

NODE_API_MODULE(mx_cuda, InitAddon)
