/**
 * The C++ text every host-emulated program starts with (host-emulate.ts): CUDA's builtin variables,
 * intrinsics and atomics mapped onto host threads, barriers and exact IEEE arithmetic, so the
 * generated kernels compile with g++ unchanged and run as CUDA would run them.
 */
export const HOST_PRELUDE = `#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
struct MxDims { long long v[8]; };
#include <barrier>
#include <type_traits>
#include <mutex>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>
struct mx_dim3 { unsigned x, y, z; };
static thread_local mx_dim3 blockIdx, threadIdx;
static mx_dim3 blockDim, gridDim;
// SIMT emulation: a block's threads are real threads; __syncthreads is a block barrier; a warp's
// shuffles exchange through a per-warp slot array between two warp barriers; atomics take a lock.
static std::barrier<>* mx_block_bar = nullptr;
static std::vector<std::barrier<>*> mx_warp_bar;
static unsigned long long mx_warp_slot[32][32];
static std::mutex mx_atomic_lock;
// Threads take turns (host-program.ts): thread p of the block's order waits for turn p, and hands
// the turn on when it first waits on a barrier or shuffle, or ends.
static std::atomic<int>* mx_turns = nullptr;
static unsigned mx_turn_count = 0;
static thread_local unsigned mx_turn_pos = 0;
static thread_local bool mx_turn_passed = false;
static inline void mx_pass_turn() {
  if (mx_turn_passed) return;
  mx_turn_passed = true;
  if (mx_turn_pos + 1 < mx_turn_count) { mx_turns[mx_turn_pos + 1].store(1); mx_turns[mx_turn_pos + 1].notify_one(); }
}
static inline unsigned mx_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static inline void __syncthreads() { mx_pass_turn(); mx_block_bar->arrive_and_wait(); }
static inline void __syncwarp(unsigned = 0xffffffffu) { mx_pass_turn(); mx_warp_bar[mx_tid() / 32]->arrive_and_wait(); }
static inline unsigned __activemask() { return 0xffffffffu; }
template <typename T> static inline T mx_shfl(T v, int src, bool inRange) {
  unsigned t = mx_tid(), w = t / 32, l = t % 32;
  unsigned long long bits = 0; memcpy(&bits, &v, sizeof(T));
  mx_warp_slot[w][l] = bits;
  mx_pass_turn();
  mx_warp_bar[w]->arrive_and_wait();
  unsigned long long got = inRange ? mx_warp_slot[w][src] : bits;
  mx_warp_bar[w]->arrive_and_wait();
  T r; memcpy(&r, &got, sizeof(T)); return r;
}
static inline unsigned mx_warp_size() { unsigned n = blockDim.x * blockDim.y * blockDim.z, w = mx_tid() / 32; return n - w * 32 < 32 ? n - w * 32 : 32; }
template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32) {
  unsigned l = mx_tid() % 32; bool in = (l % width) + d < (unsigned)width && l + d < mx_warp_size(); return mx_shfl(v, (int)(l + d), in);
}
template <typename T> static inline T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32) {
  unsigned l = mx_tid() % 32; bool in = (l % width) >= d; return mx_shfl(v, (int)(l - d), in);
}
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  unsigned l = mx_tid() % 32; unsigned s = l ^ (unsigned)m; bool in = s < mx_warp_size() && (s / width) == (l / width); return mx_shfl(v, (int)s, in);
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  unsigned l = mx_tid() % 32; unsigned s = (l / width) * width + ((unsigned)src % width); return mx_shfl(v, (int)s, s < mx_warp_size());
}
static inline unsigned __ballot_sync(unsigned, int p) {
  unsigned t = mx_tid(), w = t / 32, l = t % 32;
  mx_warp_slot[w][l] = p != 0;
  mx_pass_turn();
  mx_warp_bar[w]->arrive_and_wait();
  unsigned r = 0; for (unsigned k = 0; k < mx_warp_size(); k++) if (mx_warp_slot[w][k]) r |= 1u << k;
  mx_warp_bar[w]->arrive_and_wait();
  return r;
}
#define __shared__ static
#define warpSize 32
// CUDA's device min/max overloads (mixed integer widths promote as in C).
template <typename A, typename B> static inline std::common_type_t<A, B> min(A a, B b) { return a < b ? a : b; }
template <typename A, typename B> static inline std::common_type_t<A, B> max(A a, B b) { return a > b ? a : b; }
static inline void __threadfence() {}
static inline void __threadfence_block() {}
template <typename T> static inline T __ldg(const T* p) { return *p; }
#define __restrict__
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define MX_GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)
static inline float mx_h2f(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static inline unsigned short mx_f2h(float f) { _Float16 x = (_Float16)f; unsigned short h; memcpy(&h, &x, 2); return h; }
static inline float mx_bf2f(unsigned short b) { unsigned u = ((unsigned)b) << 16; float f; memcpy(&f, &u, 4); return f; }
static inline unsigned short mx_f2bf(float f) {
  unsigned u; memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
static inline float __uint_as_float(unsigned x) { float f; memcpy(&f, &x, 4); return f; }
static inline unsigned __float_as_uint(float x) { unsigned u; memcpy(&u, &x, 4); return u; }
static inline int __float_as_int(float x) { int u; memcpy(&u, &x, 4); return u; }
static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
static inline long long __double_as_longlong(double x) { long long u; memcpy(&u, &x, 8); return u; }
using std::isfinite; using std::isinf; using std::isnan; using std::signbit;
// erfinv: Giles' single-precision start, then Newton steps on erf (the host has no erfinv).
static inline double erfinv(double y) {
  if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
  if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) { w -= 2.5; x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w; x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w; x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w; }
  else { w = std::sqrt(w) - 3.0; x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w; x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w; x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w; }
  x *= y;
  for (int k = 0; k < 3; k++) x -= (std::erf(x) - y) / (1.1283791670955126 * std::exp(-x * x));
  return x;
}
static inline float erfinvf(float y) { return (float)erfinv((double)y); }
template <typename T> static inline T atomicAdd(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; *p = o + v; return o; }
template <typename T> static inline T atomicSub(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; *p = o - v; return o; }
template <typename T> static inline T atomicMin(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; if (v < o) *p = v; return o; }
template <typename T> static inline T atomicMax(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; if (v > o) *p = v; return o; }
template <typename T> static inline T atomicExch(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; *p = v; return o; }
template <typename T> static inline T atomicCAS(T* p, T c, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; if (o == c) *p = v; return o; }
template <typename T> static inline T atomicOr(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; *p = o | v; return o; }
template <typename T> static inline T atomicAnd(T* p, T v) { std::lock_guard<std::mutex> g(mx_atomic_lock); T o = *p; *p = o & v; return o; }
static inline double mx_emu_get(const void* p, long long i, int dt) {
  if (dt == 0) return ((const float*)p)[i];
  if (dt == 1) return ((const double*)p)[i];
  unsigned short h = ((const unsigned short*)p)[i];
  return dt == 2 ? (double)mx_h2f(h) : (double)mx_bf2f(h);
}
static inline void mx_emu_put(void* p, long long i, int dt, double v) {
  if (dt == 0) ((float*)p)[i] = (float)v;
  else if (dt == 1) ((double*)p)[i] = v;
  else ((unsigned short*)p)[i] = dt == 2 ? mx_f2h((float)v) : mx_f2bf((float)v);
}
// cublasGemmStridedBatchedEx, column-major, accumulating in double (the reference the GPU's
// float32 accumulation is compared against within the cases' tolerances).
static void mx_emu_gemm(const long long* g) {
  int ta = (int)g[0], tb = (int)g[1], dt = (int)g[17];
  long long m = g[2], n = g[3], k = g[4], lda = g[7], sa = g[8], ldb = g[10], sb = g[11], ldc = g[14], sc = g[15];
  double alpha, beta; memcpy(&alpha, &g[5], 8); memcpy(&beta, &g[12], 8);
  for (long long b = 0; b < g[16]; b++) {
    const void* A = (const void*)(g[6]); const void* B = (const void*)(g[9]); void* C = (void*)(g[13]);
    for (long long j = 0; j < n; j++) for (long long i = 0; i < m; i++) {
      double s = 0;
      for (long long l = 0; l < k; l++) {
        double a = mx_emu_get(A, b * sa + (ta ? l + i * lda : i + l * lda), dt);
        double bb = mx_emu_get(B, b * sb + (tb ? j + l * ldb : l + j * ldb), dt);
        s += a * bb;
      }
      long long at = b * sc + i + j * ldc;
      mx_emu_put(C, at, dt, alpha * s + (beta == 0 ? 0.0 : beta * mx_emu_get(C, at, dt)));
    }
  }
}
// CUDA's pow is within 2 ulp, not exact. With MX_EMU_POW_LOW (EmulateOptions.powLow) the host
// gives the correctly rounded result moved one ulp toward zero, so code that truncates a floating
// power to an integer (pow(3, 1) → 2) fails as it can on a GPU (powf keeps the host's).
#ifdef MX_EMU_POW_LOW
static inline double mx_dev_pow(double a, double b) {
  double r = std::pow(a, b);
  return r != 0.0 && std::isfinite(r) ? std::nextafter(r, 0.0) : r;
}
#define pow(a, b) mx_dev_pow((double)(a), (double)(b))
#endif
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
`;
