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
import { HOST_PRELUDE } from './host-prelude.js';

const ARENA_BASE = 0x100000000000;

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
  /** Deferred checks queued by the running case (read back after the replay). */
  pending: { addr: number; bytes: number; verify: (data: Uint8Array) => Error | undefined }[] = [];
  override check(bytes: number, verify: (data: Uint8Array) => Error | undefined): number {
    super.check(bytes, verify);
    const addr = this.alloc(bytes);
    this.pending.push({ addr, bytes, verify });
    return addr;
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
  /** Bad-input cases whose expected error the kernel gave (directly, or through a device check). */
  readonly errors: number;
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
  const errorChecks: {
    name: string;
    error: string;
    reads: { bytes: number; verify: (d: Uint8Array) => Error | undefined }[];
  }[] = [];
  let errors = 0;
  /** Every read of the replay, in command order: an array check, or read r of error check e. */
  const order: ({ t: 'array'; i: number } | { t: 'error'; e: number; r: number })[] = [];
  for (const c of loadCases([...families])) {
    if (c.skip !== undefined || !registry.has(c.op)) continue;
    const op = registry.get(c.op);
    if (!filter(op.name)) continue;
    const kernel = registry.kernel(op, CUDA);
    if (kernel?.compute === undefined) continue;
    if (c.error !== undefined) {
      // A bad-input case the kernel itself must refuse: parameters and shapes that inference already
      // rejects never reach a kernel (the runtime reports them), so only the rest are run.
      let attrs: ReturnType<typeof op.parseParams>;
      const nOut = () => op.numOutputs(attrs);
      const outShapes: (Shape | undefined)[] = [];
      const outTypes: (DTypeName | undefined)[] = [];
      try {
        attrs = op.parseParams(c.params as Record<string, unknown>);
        // The runtime checks the input count before any kernel.
        if (c.inputs.length !== op.numInputs(attrs)) continue;
        for (let i = 0; i < nOut(); i++) {
          outShapes.push(undefined);
          outTypes.push(undefined);
        }
        if (
          !op.inferShape(
            attrs,
            c.inputs.map((a) => a.shape as Shape | undefined),
            outShapes,
          )
        )
          continue;
        op.inferType(
          attrs,
          c.inputs.map((a) => a.dtype as DTypeName | undefined),
          outTypes,
        );
      } catch {
        continue;
      }
      const inputs = c.inputs.map((a) => blob(a.shape, a.dtype, a.data as unknown as ArrayBufferView));
      const outputs = outShapes.map((sh, i) => blob(sh ?? [], outTypes[i] ?? 'float32'));
      let failure: unknown;
      rt.pending = [];
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
        if ((failure as Error).message.includes(c.error)) errors++;
        else
          problems.push(
            `${c.name}: expected an error containing "${c.error}", got "${(failure as Error).message.split('\n')[0]}"`,
          );
      } else if (rt.pending.length > 0) {
        rt.pending.forEach((p, r) => {
          rt.commands.push({ c: 'read', addr: p.addr, n: p.bytes });
          order.push({ t: 'error', e: errorChecks.length, r });
        });
        errorChecks.push({
          name: c.name,
          error: c.error,
          reads: rt.pending.map((p) => ({ bytes: p.bytes, verify: p.verify })),
        });
      } else {
        problems.push(
          `${c.name}: expected an error containing "${c.error}", but the kernel accepted the input`,
        );
      }
      rt.pending = [];
      continue;
    }
    if (c.outputs === undefined) continue;
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
        order.push({ t: 'array', i: checks.length });
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
    const verdicts = errorChecks.map((ec) => ec.reads.map(() => undefined as Error | undefined));
    for (const o of order) {
      if (o.t === 'error') {
        const ec = errorChecks[o.e] as (typeof errorChecks)[number];
        const read = ec.reads[o.r] as (typeof ec.reads)[number];
        const got = new Uint8Array(read.bytes);
        got.set(out.subarray(at, at + read.bytes));
        at += read.bytes;
        (verdicts[o.e] as (Error | undefined)[])[o.r] = read.verify(got);
        continue;
      }
      const ch = checks[o.i] as Check;
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
    errorChecks.forEach((ec, e) => {
      const err = (verdicts[e] as (Error | undefined)[]).find((v) => v !== undefined);
      if (err === undefined) problems.push(`${ec.name}: expected "${ec.error}", but the device check passed`);
      else if (!err.message.includes(ec.error))
        problems.push(`${ec.name}: expected "${ec.error}", got "${err.message.split('\n')[0]}"`);
      else errors++;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { problems, cases, arrays: checks.length, errors };
}
