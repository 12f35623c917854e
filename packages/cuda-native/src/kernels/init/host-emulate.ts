/**
 * Test helper: run the generated CUDA C of golden cases on the host, without a GPU, and compare the
 * results with the cases' expected outputs (and in-place inputs). The sources are compiled with
 * g++ after a host prelude that maps the device intrinsics the init and optimizer families use
 * (`__fmul_rn`, `__umulhi`, half conversions, ...) to exact IEEE host arithmetic (x86-64 SSE2: no
 * excess precision, no FMA contraction). A kernel is run as one thread per blockIdx.y, which is
 * exact for grid-stride kernels (every element is visited once, in order); kernels relying on
 * several cooperating threads (shared-memory reductions) cannot be checked this way.
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
import { CUDA } from '../../backend.js';
import type { CudaSource, KernelArg } from '../../cuda-c.js';
import { RenderRuntime } from '../../render-runtime.js';
import { type Dim3, packArgs, signatureOf } from '../../runtime.js';

const ARENA_BASE = 0x100000000000;

const HOST_PRELUDE = `#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
struct MxDims { long long v[8]; };
struct mx_dim3 { unsigned x, y, z; };
static mx_dim3 blockIdx, threadIdx, blockDim, gridDim;
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
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
`;

/** One recorded command of the replay file. */
type Command =
  | { readonly c: 'write'; readonly addr: number; readonly bytes: Uint8Array }
  | { readonly c: 'launch'; readonly src: number; readonly gy: number; readonly args: Uint8Array }
  | { readonly c: 'copy'; readonly dst: number; readonly src: number; readonly n: number }
  | { readonly c: 'memset'; readonly ptr: number; readonly value: number; readonly n: number }
  | { readonly c: 'read'; readonly addr: number; readonly n: number };

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
    this.commands.push({ c: 'launch', src: i, gy: grid[1] ?? 1, args: packArgs(args).bytes });
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
      unsigned hd[3]; fread(hd, 4, 3, f);
      unsigned char* a = (unsigned char*)malloc(hd[2] + 8); fread(a, 1, hd[2], f);
      for (unsigned y = 0; y < hd[1]; y++) {
        blockIdx = {0, y, 0}; threadIdx = {0, 0, 0}; blockDim = {1, 1, 1}; gridDim = {1, hd[1], 1};
        dispatch(hd[0], a);
      }
      free(a);
    } else if (op == 3) { fread(h, 8, 3, f); memmove((void*)h[0], (void*)h[1], h[2]); }
    else if (op == 4) { fread(h, 8, 3, f); memset((void*)h[0], (int)h[1], h[2]); }
    else if (op == 5) { fread(h, 8, 2, f); fwrite((void*)h[0], 1, h[1], out); }
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
      u32(2, c.src, c.gy, c.args.byteLength);
      parts.push(c.args);
    } else if (c.c === 'copy') {
      u32(3);
      u64(c.dst, c.src, c.n);
    } else if (c.c === 'memset') {
      u32(4);
      u64(c.ptr, c.value, c.n);
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
export function emulateCases(
  families: readonly string[],
  install: (registry: OpRegistry, host: { rt: RenderRuntime }) => void,
  filter: (op: string) => boolean,
): EmulationResult {
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
    const attrs = op.parseParams(c.params as Record<string, unknown>);
    const inputs = c.inputs.map((a) => blob(a.shape, a.dtype, a.data as unknown as ArrayBufferView));
    const outputs = c.outputs.map((a) => blob(a.shape, a.dtype));
    let failure: unknown;
    const ctx: OpContext = {
      isTrain: c.isTrain ?? false,
      needGrad: false,
      ctx: gpu(0),
      requested: [],
      onComplete: (e?: unknown) => {
        if (e !== undefined) failure = e;
      },
    };
    kernel.compute(
      attrs,
      ctx,
      inputs,
      outputs.map(() => OpReq.write),
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
      want(`output ${i}`, outputs[i] as TBlob<number>, e);
    });
    c.mutated?.forEach((e, i) => {
      if (e !== null) want(`input ${i} (in place)`, inputs[i] as TBlob<number>, e);
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'mx-cuda-emu-'));
  try {
    writeFileSync(join(dir, 'emu.cpp'), program(rt.srcList, rt.next - ARENA_BASE + 4096));
    writeFileSync(join(dir, 'cmds.bin'), encode(rt.commands));
    execFileSync('g++', ['-O1', '-w', '-std=c++17', '-o', join(dir, 'emu'), join(dir, 'emu.cpp')]);
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
