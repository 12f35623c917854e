// What addon.cc shares with rtc_blas.cc: the loaded library tables and a few helpers. Device is
// opaque outside addon.cc but for its stream and cuBLAS handle.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "cuda_api.h"

namespace mx {

extern DriverApi cu;
extern NvrtcApi rtc;
extern CublasApi blas;
extern void* rtcHandle;
extern void* blasHandle;

struct Device;

/** A JS Error carrying the failing call, its numeric code and the code's name. */
Napi::Error MakeError(Napi::Env env, const char* call, int code, const char* codeName, const std::string& text);
/** Throw MakeError for a non-zero cuBLAS status. */
void CheckCublas(Napi::Env env, const char* call, int status);
/** The open device a JS ordinal names, made current on this thread. */
Device& OpenedDevice(Napi::Env env, const Napi::Value& v);
CUstream StreamOf(const Device& d);
cublasHandle_t& BlasHandleOf(Device& d);
/** A device address passed from JS (a Number). */
unsigned long long Address(const Napi::Value& v);
std::vector<std::string> StringList(const Napi::Value& v);

Napi::Value NvrtcVersion(const Napi::CallbackInfo& info);
Napi::Value NvrtcCompile(const Napi::CallbackInfo& info);
Napi::Value CublasVersion(const Napi::CallbackInfo& info);
Napi::Value Gemm(const Napi::CallbackInfo& info);

}  // namespace mx
