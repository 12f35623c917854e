/**
 * Test helper: run the generated CUDA C of golden cases on the host, without a GPU, and compare the
 * results with the cases' expected outputs (and in-place inputs). The sources are compiled with
 * g++ after a host prelude that maps the device intrinsics the init and optimizer families use
 * (`__fmul_rn`, `__umulhi`, half conversions, ...) to exact IEEE host arithmetic (x86-64 SSE2: no
 * excess precision, no FMA contraction). Kernels run as CUDA would run them, only slower: every
 * block of the grid in turn, its threads as real threads, `__syncthreads` a barrier of the block,
 * `__shared__` storage shared by the block, warp shuffles and ballots exchanged between the 32
 * threads of a warp, atomics under a lock — so shared-memory reductions, scans and sorts are checked
 * too. (Only whole warps may shuffle, as on sm_70+ with full masks; that is how our kernels use them.)
 *
 * Device addresses are real host addresses: the driver maps one arena at ARENA_BASE, every blob,
 * scratch and upload is placed in it, and commands (write, launch, copy, memset, read) are replayed
 * in order from one binary file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DType, type DTypeName, gpu, type Shape } from '@mx/base';
import { type CaseArray, compareArrays, loadCases } from '@mx/conformance';
import { createOpRegistry, type OpContext, type OpRegistry, OpReq, type TBlob } from '@mx/ops';
import type { CudaSource, KernelArg } from '../cuda-c.js';
import { CUDA } from '../kernel.js';
import { RenderRuntime } from '../render-runtime.js';
import { type Dim3, type GemmCall, packArgs, signatureOf } from '../runtime.js';

const ARENA_BASE = 0x100000000000;

const HOST_PRELUDE = `#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
struct MxDims { long long v[8]; };
#include <barrier>
#include <type_traits>
#include <mutex>
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
static inline unsigned mx_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static inline void __syncthreads() { mx_block_bar->arrive_and_wait(); }
static inline void __syncwarp(unsigned = 0xffffffffu) { mx_warp_bar[mx_tid() / 32]->arrive_and_wait(); }
static inline unsigned __activemask() { return 0xffffffffu; }
template <typename T> static inline T mx_shfl(T v, int src, bool inRange) {
  unsigned t = mx_tid(), w = t / 32, l = t % 32;
  unsigned long long bits = 0; memcpy(&bits, &v, sizeof(T));
  mx_warp_slot[w][l] = bits;
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
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
`;

/** One recorded command of the replay file. */
type Command =
  | { readonly c: 'write'; readonly addr: number; readonly bytes: Uint8Array }
  | {
      readonly c: 'launch';
      readonly src: number;
      readonly grid: readonly number[];
      readonly block: readonly number[];
      readonly args: Uint8Array;
    }
  | { readonly c: 'copy'; readonly dst: number; readonly src: number; readonly n: number }
  | { readonly c: 'memset'; readonly ptr: number; readonly value: number; readonly n: number }
  | { readonly c: 'read'; readonly addr: number; readonly n: number }
  | { readonly c: 'gemm'; readonly call: GemmCall };

const GEMM_DT: Readonly<Record<string, number>> = { float32: 0, float64: 1, float16: 2, bfloat16: 3 };

/** A RenderRuntime whose addresses live in the host arena and whose work is recorded for replay. */
class EmuRuntime extends RenderRuntime {
  readonly commands: Command[] = [];
  readonly srcIndex = new Map<string, number>();
  readonly srcList: CudaSource[] = [];
  next = ARENA_BASE + 256;

  alloc(bytes: number): number {
    const p = this.next;
    this.next += Math.ceil(Math.max(1, bytes) / 256) * 256 + 256;
    return p;
  }
  override temp(bytes: number): number {
    return this.alloc(bytes);
  }
  override upload(data: ArrayBufferView): number {
    const p = this.alloc(data.byteLength);
    this.commands.push({
      c: 'write',
      addr: p,
      bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice(),
    });
    return p;
  }
  override copy(dst: number, src: number, n: number): void {
    this.commands.push({ c: 'copy', dst, src, n });
  }
  override memset(ptr: number, value: number, n: number): void {
    this.commands.push({ c: 'memset', ptr, value, n });
  }
  override gemm(call: GemmCall): void {
    super.gemm(call);
    this.commands.push({ c: 'gemm', call });
  }
  override launch(
    src: CudaSource,
    grid: Dim3,
    block: Dim3,
    args: readonly KernelArg[],
    shared?: number,
  ): void {
    super.launch(src, grid, block, args, shared);
    let i = this.srcIndex.get(src.code);
    if (i === undefined) {
      i = this.srcList.length;
      this.srcIndex.set(src.code, i);
      this.srcList.push(src);
    }
    this.commands.push({
      c: 'launch',
      src: i,
      grid: [grid[0], grid[1] ?? 1, grid[2] ?? 1],
      block: [block[0], block[1] ?? 1, block[2] ?? 1],
      args: packArgs(args).bytes,
    });
  }
}

/** The C++ wrapper calling source i's entry with arguments unpacked from a packArgs block. */
function wrapper(src: CudaSource, i: number): string {
  const m = new RegExp(`void (?:__launch_bounds__\\([^)]*\\) )?${src.entry}\\(([^)]*)\\)`).exec(src.code);
  const params = (m?.[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const kinds = signatureOf(src.code, src.entry);
  if (typeof kinds === 'string') throw new Error(kinds);
  const dummy = kinds.map((t): KernelArg => (t === 'dims' ? { t, v: [] } : { t, v: 0 }));
  const { offsets } = packArgs(dummy);
  const locals = params
    .map((p, k) => {
      const type = p.replace(/\s*\b\w+$/, '');
      return `  ${type} a${k}; memcpy((void*)&a${k}, a + ${offsets[k]}, sizeof(a${k}));\n`;
    })
    .join('');
  return `static void call_${i}(const unsigned char* a) {\n${locals}  mx_emu_${i}::${src.entry}(${params.map((_, k) => `a${k}`).join(', ')});\n}\n`;
}

function program(srcs: readonly CudaSource[], arenaBytes: number): string {
  let text = HOST_PRELUDE;
  srcs.forEach((s, i) => {
    text += `namespace mx_emu_${i} {\n${s.code}\n}\n${wrapper(s, i)}`;
  });
  const cases = srcs.map((_, i) => `    case ${i}: call_${i}(a); break;\n`).join('');
  return `${text}
static void dispatch(unsigned i, const unsigned char* a) {
  switch (i) {
${cases}    default: abort();
  }
}
int main(int argc, char** argv) {
  void* base = mmap((void*)${ARENA_BASE}ULL, ${arenaBytes}ULL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (base != (void*)${ARENA_BASE}ULL) { fprintf(stderr, "arena mmap failed\\n"); return 2; }
  FILE* f = fopen(argv[1], "rb");
  FILE* out = fopen(argv[2], "wb");
  unsigned long long h[4];
  unsigned op;
  while (fread(&op, 4, 1, f) == 1 && op != 0) {
    if (op == 1) { fread(h, 8, 2, f); fread((void*)h[0], 1, h[1], f); }
    else if (op == 2) {
      unsigned hd[8]; fread(hd, 4, 8, f);
      unsigned char* a = (unsigned char*)malloc(hd[7] + 8); fread(a, 1, hd[7], f);
      gridDim = {hd[1], hd[2], hd[3]}; blockDim = {hd[4], hd[5], hd[6]};
      unsigned nt = hd[4] * hd[5] * hd[6];
      for (unsigned bz = 0; bz < hd[3]; bz++) for (unsigned by = 0; by < hd[2]; by++) for (unsigned bx = 0; bx < hd[1]; bx++) {
        std::barrier<> bar((std::ptrdiff_t)nt);
        mx_block_bar = &bar;
        std::vector<std::barrier<>*> warps;
        for (unsigned w = 0; w * 32 < nt; w++) warps.push_back(new std::barrier<>((std::ptrdiff_t)(nt - w * 32 < 32 ? nt - w * 32 : 32)));
        mx_warp_bar = warps;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < nt; t++) ts.emplace_back([&, t] {
          blockIdx = {bx, by, bz};
          threadIdx = {t % hd[4], (t / hd[4]) % hd[5], t / (hd[4] * hd[5])};
          dispatch(hd[0], a);
        });
        for (auto& th : ts) th.join();
        for (auto* w : warps) delete w;
      }
      free(a);
    } else if (op == 3) { fread(h, 8, 3, f); memmove((void*)h[0], (void*)h[1], h[2]); }
    else if (op == 4) { fread(h, 8, 3, f); memset((void*)h[0], (int)h[1], h[2]); }
    else if (op == 5) { fread(h, 8, 2, f); fwrite((void*)h[0], 1, h[1], out); }
    else if (op == 6) { long long g[18]; fread(g, 8, 18, f); mx_emu_gemm(g); }
  }
  fclose(out);
  return 0;
}
`;
}

function encode(cmds: readonly Command[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const u32 = (...v: number[]) => parts.push(new Uint8Array(new Uint32Array(v).buffer));
  const u64 = (...v: number[]) =>
    parts.push(new Uint8Array(new BigUint64Array(v.map((x) => BigInt(x))).buffer));
  for (const c of cmds) {
    if (c.c === 'write') {
      u32(1);
      u64(c.addr, c.bytes.byteLength);
      parts.push(c.bytes);
    } else if (c.c === 'launch') {
      u32(2, c.src, ...c.grid, ...c.block, c.args.byteLength);
      parts.push(c.args);
    } else if (c.c === 'copy') {
      u32(3);
      u64(c.dst, c.src, c.n);
    } else if (c.c === 'memset') {
      u32(4);
      u64(c.ptr, c.value, c.n);
    } else if (c.c === 'gemm') {
      const g = c.call;
      u32(6);
      const words = new BigInt64Array(18);
      const f = new Float64Array(words.buffer);
      const ints = [
        g.transA ? 1 : 0,
        g.transB ? 1 : 0,
        g.m,
        g.n,
        g.k,
        0,
        g.a,
        g.lda,
        g.strideA,
        g.b,
        g.ldb,
        g.strideB,
        0,
        g.c,
        g.ldc,
        g.strideC,
        g.batch,
        GEMM_DT[g.dtype] ?? 0,
      ];
      ints.forEach((v, i) => {
        words[i] = BigInt(v);
      });
      f[5] = g.alpha;
      f[12] = g.beta;
      parts.push(new Uint8Array(words.buffer));
    } else {
      u32(5);
      u64(c.addr, c.n);
    }
  }
  u32(0);
  return Buffer.concat(parts);
}

interface Check {
  readonly what: string;
  readonly expected: CaseArray;
  readonly rtol: number;
  readonly atol: number;
  readonly bytes: number;
}

/** Outcome of emulating golden cases: mismatch messages and how many cases and arrays ran. */
export interface EmulationResult {
  readonly problems: string[];
  readonly cases: number;
  readonly arrays: number;
}

/**
 * Run every valid golden case of `families` whose op passes `filter` through the kernels `install`
 * registers, on the host, and compare outputs and in-place inputs with the expected values.
 */
export interface EmulateOptions {
  /**
   * `add`: run with req add on outputs holding the expected values, and expect twice them (float
   * outputs; other outputs start at zero and expect the values) — checks the accumulate paths.
   */
  readonly req?: 'write' | 'add';
}

/** `e` doubled (float dtypes; the storage class holds raw bits for 16-bit floats, so those stay). */
function doubled(e: CaseArray): CaseArray {
  if (e.dtype !== 'float32' && e.dtype !== 'float64') return e;
  const d = e.data as Float32Array | Float64Array;
  return { ...e, data: d.map((v) => v * 2) };
}

export function emulateCases(
  families: readonly string[],
  install: (registry: OpRegistry, host: { rt: RenderRuntime }) => void,
  filter: (op: string) => boolean,
  options: EmulateOptions = {},
): EmulationResult {
  const add = options.req === 'add';
  const rt = new EmuRuntime();
  const registry = createOpRegistry();
  install(registry, { rt });
  const problems: string[] = [];
  const checks: Check[] = [];
  let cases = 0;
  const blob = (shape: Shape, dtype: DTypeName, data?: ArrayBufferView): TBlob<number> => {
    const size = shape.reduce((a, b) => a * b, 1);
    const bytes = size * DType[dtype].bytes;
    const ptr = size === 0 ? null : rt.alloc(bytes);
    if (ptr !== null) {
      const b =
        data === undefined ? new Uint8Array(bytes) : new Uint8Array(data.buffer, data.byteOffset, bytes);
      rt.commands.push({ c: 'write', addr: ptr, bytes: b.slice() });
    }
    return { ptr, byteOffset: 0, shape, dtype, size };
  };
  for (const c of loadCases([...families])) {
    if (c.error !== undefined || c.skip !== undefined || c.outputs === undefined) continue;
    if (!registry.has(c.op)) continue;
    const op = registry.get(c.op);
    if (!filter(op.name)) continue;
    const kernel = registry.kernel(op, CUDA);
    if (kernel?.compute === undefined) continue;
    try {
      const attrs = op.parseParams(c.params as Record<string, unknown>);
      const inputs = c.inputs.map((a) => blob(a.shape, a.dtype, a.data as unknown as ArrayBufferView));
      // Every output the op has (hidden ones too, shaped by the op's own inference), filled with
      // 0xff bytes (NaN, -1, an invalid bool) so an element a kernel forgets to write fails.
      const nOut = op.numOutputs(attrs);
      const outShapes: (Shape | undefined)[] = Array.from({ length: nOut }, (_, i) => c.outputs?.[i]?.shape);
      op.inferShape(
        attrs,
        c.inputs.map((a) => a.shape as Shape | undefined),
        outShapes,
      );
      const outTypes: (DTypeName | undefined)[] = Array.from(
        { length: nOut },
        (_, i) => c.outputs?.[i]?.dtype,
      );
      op.inferType(
        attrs,
        c.inputs.map((a) => a.dtype as DTypeName | undefined),
        outTypes,
      );
      const outputs = outShapes.map((sh, i) => {
        const dt = outTypes[i] ?? 'float32';
        const size = (sh ?? []).reduce((x, y) => x * y, 1);
        const want = c.outputs?.[i];
        if (add) {
          const init = want !== undefined && (dt === 'float32' || dt === 'float64') ? want.data : undefined;
          return blob(
            sh ?? [],
            dt,
            (init as ArrayBufferView | undefined) ?? new Uint8Array(size * DType[dt].bytes),
          );
        }
        return blob(sh ?? [], dt, new Uint8Array(size * DType[dt].bytes).fill(0xff));
      });
      let failure: unknown;
      let seed = 7;
      const gen = { nextUint32: () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) };
      const ctx: OpContext = {
        isTrain: c.isTrain ?? false,
        needGrad: false,
        ctx: gpu(0),
        requested: op
          .resourceRequest(attrs)
          .map(() => ({ generator: gen, stream: () => gen, numStreams: 1 })),
        onComplete: (e?: unknown) => {
          if (e !== undefined) failure = e;
        },
      };
      kernel.compute(
        attrs,
        ctx,
        inputs,
        outputs.map(() => (add ? OpReq.add : OpReq.write)),
        outputs,
      );
      if (failure !== undefined) {
        problems.push(`${c.name}: ${(failure as Error).message.split('\n')[0]}`);
        continue;
      }
      cases++;
      const want = (what: string, b: TBlob<number>, expected: CaseArray) => {
        const bytes = b.size * DType[b.dtype].bytes;
        if (b.ptr !== null) rt.commands.push({ c: 'read', addr: b.ptr, n: bytes });
        checks.push({
          what: `${c.name} ${what}`,
          expected,
          rtol: c.rtol,
          atol: c.atol,
          bytes: b.ptr === null ? 0 : bytes,
        });
      };
      c.outputs.forEach((e, i) => {
        want(`output ${i}`, outputs[i] as TBlob<number>, add ? doubled(e) : e);
      });
      c.mutated?.forEach((e, i) => {
        if (e !== null) want(`input ${i} (in place)`, inputs[i] as TBlob<number>, e);
      });
    } catch (e) {
      problems.push(`${c.name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-emu-'));
  try {
    writeFileSync(join(dir, 'emu.cpp'), program(rt.srcList, rt.next - ARENA_BASE + 4096));
    writeFileSync(join(dir, 'cmds.bin'), encode(rt.commands));
    execFileSync('g++', [
      '-O1',
      '-w',
      '-std=c++20',
      '-pthread',
      '-o',
      join(dir, 'emu'),
      join(dir, 'emu.cpp'),
    ]);
    execFileSync(join(dir, 'emu'), [join(dir, 'cmds.bin'), join(dir, 'out.bin')]);
    const out = readFileSync(join(dir, 'out.bin'));
    let at = 0;
    for (const ch of checks) {
      const bytes = new Uint8Array(ch.bytes);
      bytes.set(out.subarray(at, at + ch.bytes));
      at += ch.bytes;
      const data = new DType[ch.expected.dtype].storage(
        bytes.buffer,
        0,
        ch.bytes / DType[ch.expected.dtype].bytes,
      );
      const r = compareArrays(
        { shape: ch.expected.shape, dtype: ch.expected.dtype, data },
        ch.expected,
        ch.rtol,
        ch.atol,
      );
      if (!r.ok) problems.push(`${ch.what}: ${r.message}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { problems, cases, arrays: checks.length };
}
