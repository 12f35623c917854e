/**
 * The SimpleOp compiler for cpu-wasm: turns an op's `elementwise.forward` expression into a Kernel
 * whose compute handles any shapes at run time. Per call it picks a path from the shapes:
 *
 * - contiguous: every input has the output's size or is a single element (scalar broadcast);
 *   one `run` call over [0, size).
 * - broadcast: NumPy broadcasting. Strides (0 on broadcast dims) are computed per input, size-1
 *   dims dropped and adjacent dims merged where every input is contiguous across them, so most
 *   cases collapse to (rows, cols) with each input's inner dim either contiguous or repeated (a row
 *   vector plus a matrix is one `run2d` call with an inner SIMD loop). Remaining outer dims, if
 *   any, are iterated here, one `run2d` call per outer index.
 *
 * An output of PARALLEL_MIN elements or more is split across the runtime's worker pool when the
 * module needs no math imports from JavaScript and the pool exists: a contiguous one into
 * CHUNK_ELEMS-element chunks (the module's `runChunk`), a broadcast one into chunks of whole rows
 * of about CHUNK_ELEMS elements (`run2dChunk`; one run2d call's rows, per outer index). Smaller
 * ones, and everything when threads are off, run inline. Each element is computed by the same loop
 * either way (a chunk starts at a multiple of 16 elements or at a row start), so results are
 * bit-identical.
 *
 * Modules are cached in the runtime per (expression, kinds, input modes, req=add).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type Attrs, exprKey, exprParams, type Kernel, type Op, OpReq, type TBlob } from '@mx/ops';
import type { CompiledKernel, CpuWasmRuntime } from '../runtime.js';
import { poolOf } from '../threads/index.js';
import { KERNEL_IMPORTS } from './js-math.js';
import { type Kind, kindOf } from './kinds.js';
import {
  buildKernelModule,
  CHUNK_MAX_INPUTS,
  type InputMode,
  run2dBlockBytes,
  writeRun2dBlock,
} from './module.js';
import { typeExpr } from './typing.js';

type Run = (...args: number[]) => void;

/**
 * Outputs at least this large go to the worker pool. Measured on a 2-vCPU EPYC VM with one worker:
 * a compute-bound body (sqrt, div) runs 1.75x faster at 256K float32 elements, while a cheap
 * memory-bound add gains nothing at any size there (one thread nearly saturates DRAM) and loses
 * ~5 µs of wake-up and join (~7%) at 256K-2M elements held in cache.
 */
export const PARALLEL_MIN = 1 << 18;
/** Elements per pool chunk (a multiple of 16 so chunks start 16-byte aligned relative to the arrays). */
export const CHUNK_ELEMS = 1 << 16;

/** Rows per pool chunk of a (rows, cols) broadcast output: whole rows, about CHUNK_ELEMS elements. */
export function rowsPerChunk(cols: number): number {
  return Math.max(1, Math.ceil(CHUNK_ELEMS / cols));
}

/** Whether a compiled module imports nothing but memory (workers instantiate it with the memory alone). */
const importFree = new WeakMap<WebAssembly.Module, boolean>();
export function canSplit(k: CompiledKernel, entry: string): boolean {
  if (typeof k.exports[entry] !== 'function') return false;
  let ok = importFree.get(k.module);
  if (ok === undefined) {
    ok = WebAssembly.Module.imports(k.module).every((i) => i.kind === 'memory');
    importFree.set(k.module, ok);
  }
  return ok;
}

const DEVICE = 'cpu(0)';

function sameShape(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function shapeStr(s: Shape): string {
  return `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
}

/** Per-input element strides of `shape` broadcast to `out` (0 on broadcast dims); throws when incompatible. */
function broadcastStrides(op: Op, shape: Shape, out: Shape, all: readonly Shape[]): number[] {
  const n = out.length;
  const pad = n - shape.length;
  const strides = new Array<number>(n).fill(0);
  let s = 1;
  for (let d = n - 1; d >= 0; d--) {
    const dim = d >= pad ? (shape[d - pad] as number) : 1;
    const od = out[d] as number;
    if (dim === od) strides[d] = dim === 1 ? 0 : s;
    else if (dim !== 1) {
      throw new MXNetError(
        `operands could not be broadcast together with shapes ${all.map(shapeStr).join(' ')} to ${shapeStr(out)}`,
        { op: op.name, shapes: all, device: DEVICE },
      );
    }
    s *= dim;
  }
  return strides;
}

interface Plan {
  readonly dims: number[];
  readonly strides: number[][];
}

/** Drop size-1 dims and merge adjacent dims that every input walks contiguously. */
function collapse(out: Shape, strides: number[][]): Plan {
  const dims: number[] = [];
  const st: number[][] = strides.map(() => []);
  for (let d = 0; d < out.length; d++) {
    const size = out[d] as number;
    if (size === 1) continue;
    const last = dims.length - 1;
    if (last >= 0 && strides.every((s, k) => (st[k] as number[])[last] === (s[d] as number) * size)) {
      dims[last] = (dims[last] as number) * size;
      strides.forEach((s, k) => {
        (st[k] as number[])[last] = s[d] as number;
      });
    } else {
      dims.push(size);
      strides.forEach((s, k) => {
        (st[k] as number[]).push(s[d] as number);
      });
    }
  }
  return { dims, strides: st };
}

function paramValue(op: Op, attrs: Attrs, name: string): number {
  const v = attrs[name];
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  throw new MXNetError(`scalar parameter '${name}' is ${v === undefined ? 'missing' : String(v)}`, {
    op: op.name,
    params: attrs,
    hint: `pass a number for ${name}`,
  });
}

/** Compile `op.elementwise.forward` into a cpu-wasm kernel. */
export function compileElementwise(rt: CpuWasmRuntime, op: Op): Kernel {
  const def = op.elementwise;
  if (def === undefined) throw new MXNetError('not an elementwise op', { op: op.name });
  const expr = def.forward;
  const key = exprKey(expr);
  const params = exprParams(expr);
  const broadcast = def.broadcast === true;

  const kindsOf = (inputs: readonly TBlob<number>[], out: TBlob<number>): [Kind[], Kind] => {
    const bad = (dt: DTypeName) =>
      new MXNetError(
        `dtype ${dt} is not supported on ${DEVICE} (cpu-wasm computes in float32, float64, int32, int64, int8, uint8, bool)`,
        {
          op: op.name,
          dtypes: inputs.map((b) => b.dtype),
          shapes: inputs.map((b) => b.shape),
          device: DEVICE,
          hint: 'cast the inputs to float32 first (astype / Cast)',
        },
      );
    const ks = inputs.map((b) => {
      const k = kindOf(b.dtype);
      if (k === undefined) throw bad(b.dtype);
      return k;
    });
    const ok = kindOf(out.dtype);
    if (ok === undefined) throw bad(out.dtype);
    return [ks, ok];
  };

  const module = (
    inKinds: Kind[],
    outKind: Kind,
    modes: InputMode[],
    add: boolean,
  ): { run: Run; run2d: Run; kernel: CompiledKernel } => {
    const k = `ew|${key}|${inKinds.join(',')}>${outKind}|${modes.join('')}|${add ? 'add' : 'w'}`;
    const compiled = rt.kernel(
      k,
      () =>
        buildKernelModule(
          {
            tree: typeExpr(expr, inKinds, outKind),
            inKinds,
            outKind,
            modes,
            add,
            params,
            simd: rt.features.simd,
          },
          rt.memoryImport(),
        ),
      KERNEL_IMPORTS,
    );
    return { run: compiled.exports.run as Run, run2d: compiled.exports.run2d as Run, kernel: compiled };
  };

  /** Run [0, n) of a contiguous kernel across the pool; false when it must run inline. */
  const runSplit = (
    kernel: CompiledKernel,
    outAddr: number,
    inAddr: readonly number[],
    pvals: readonly number[],
    n: number,
  ): boolean => {
    if (inAddr.length > CHUNK_MAX_INPUTS || !canSplit(kernel, 'runChunk')) return false;
    const pool = poolOf(rt);
    if (pool === null) return false;
    const alloc = rt.memory.allocator;
    const pBytes = 8 * pvals.length;
    const pp = pBytes > 0 ? alloc.alloc(pBytes) : 0;
    if (pp === null) return false;
    try {
      if (pBytes > 0) (rt.memory.view('float64', pp, pvals.length) as Float64Array).set(pvals);
      const chunks = Math.ceil(n / CHUNK_ELEMS);
      pool.parallelFor(kernel, 'runChunk', chunks, [outAddr, ...inAddr, pp, n, CHUNK_ELEMS]);
    } finally {
      if (pBytes > 0) alloc.free(pp, pBytes);
    }
    return true;
  };

  /** Run rows [0, rows) of a run2d call across the pool in whole-row chunks; false when it must run inline. */
  const runSplit2d = (
    kernel: CompiledKernel,
    ptrs: readonly number[],
    pvals: readonly number[],
    rows: number,
    cols: number,
    rowStrides: readonly number[],
  ): boolean => {
    const per = rowsPerChunk(cols);
    const chunks = Math.ceil(rows / per);
    if (chunks < 2 || !canSplit(kernel, 'run2dChunk')) return false;
    const pool = poolOf(rt);
    if (pool === null) return false;
    const alloc = rt.memory.allocator;
    const bytes = run2dBlockBytes(ptrs.length - 1, pvals.length);
    const blk = alloc.alloc(bytes);
    if (blk === null) return false;
    try {
      writeRun2dBlock(rt.memory.buffer, blk, { params: pvals, ptrs, rows, cols, per, rowStrides });
      pool.parallelFor(kernel, 'run2dChunk', chunks, [blk]);
    } finally {
      alloc.free(blk, bytes);
    }
    return true;
  };

  // Contiguous-path functions by signature (dtypes, input modes, req): a 1-element op is pure
  // overhead, so this path avoids the per-call arrays, key strings and spread calls of the general
  // one (the dispatch benchmark is 10,000 chained adds of 1-element arrays).
  const fast = new Map<string, Run>();
  const nParams = params.length;

  return {
    compute(attrs, _ctx, inputsAny, req, outputs) {
      const inputs = inputsAny as readonly TBlob<number>[];
      const r = req[0];
      const out = outputs[0] as TBlob<number> | undefined;
      if (out === undefined || r === undefined || r === OpReq.null) return;
      const n = out.size;
      const nIn = inputs.length;
      let sig = r === OpReq.add ? '+' : '=';
      sig += out.dtype;
      let contiguous = true;
      for (let i = 0; i < nIn; i++) {
        const b = inputs[i] as TBlob<number>;
        if (b.size !== n && b.size !== 1) contiguous = false;
        else if (!broadcast && !sameShape(b.shape, out.shape)) contiguous = false;
        sig += b.size === n ? `|f${b.dtype}` : `|s${b.dtype}`;
      }
      if (contiguous && n > 0 && n < PARALLEL_MIN && def.inputViews === undefined) {
        const run = fast.get(sig);
        if (run !== undefined && nParams === 0) {
          const o = rt.address(out);
          if (nIn === 1) run(o, rt.address(inputs[0] as TBlob<number>), 0, n);
          else if (nIn === 2)
            run(o, rt.address(inputs[0] as TBlob<number>), rt.address(inputs[1] as TBlob<number>), 0, n);
          else run(o, ...inputs.map((b) => rt.address(b)), 0, n);
          return;
        }
        if (run !== undefined && nIn === 1 && nParams === 1) {
          run(
            rt.address(out),
            rt.address(inputs[0] as TBlob<number>),
            paramValue(op, attrs, params[0] as string),
            0,
            n,
          );
          return;
        }
      }
      const [inKinds, outKind] = kindsOf(inputs, out);
      const shapes = inputs.map((b) => b.shape);
      if (!broadcast && def.inputViews === undefined) {
        for (const b of inputs) {
          if (b.shape.length !== out.shape.length || b.shape.some((d, i) => d !== out.shape[i])) {
            throw new MXNetError(
              `shapes must be equal: got ${shapes.map(shapeStr).join(' ')} for output ${shapeStr(out.shape)}`,
              { op: op.name, shapes, device: DEVICE, hint: `use the broadcast_ variant to broadcast` },
            );
          }
        }
      }
      // inputViews: inputs read under another shape of the same size (where's (n,) condition as (n, 1)).
      const views = def.inputViews ? def.inputViews(shapes, out.shape) : shapes;
      const strides = views.map((s) => broadcastStrides(op, s, out.shape, views));
      if (out.size === 0) return;
      const pvals = params.map((p) => paramValue(op, attrs, p));
      const add = r === OpReq.add;
      const outAddr = rt.address(out);
      const inAddr = inputs.map((b) => rt.address(b));

      if (inputs.every((b) => b.size === out.size || b.size === 1)) {
        const modes = inputs.map((b): InputMode => (b.size === out.size ? 'f' : 's'));
        const { run, kernel } = module(inKinds, outKind, modes, add);
        if (
          def.inputViews === undefined &&
          (broadcast || inputs.every((b) => b.shape.length === out.shape.length))
        )
          fast.set(sig, run);
        if (out.size >= PARALLEL_MIN && runSplit(kernel, outAddr, inAddr, pvals, out.size)) return;
        run(outAddr, ...inAddr, ...pvals, 0, out.size);
        return;
      }
      const plan = collapse(out.shape, strides);
      const nd = plan.dims.length;
      const modes = plan.strides.map((s): InputMode => (s[nd - 1] === 0 ? 's' : 'f'));
      const { run2d, kernel } = module(inKinds, outKind, modes, add);
      const cols = plan.dims[nd - 1] as number;
      const rows = nd >= 2 ? (plan.dims[nd - 2] as number) : 1;
      const rowStrides = plan.strides.map((s) => (nd >= 2 ? (s[nd - 2] as number) : 0));
      const outer = plan.dims.slice(0, Math.max(0, nd - 2));
      const outBytes = rt.itemSize(out.dtype);
      const inBytes = inputs.map((b) => rt.itemSize(b.dtype));
      // Outer dims: odometer over the remaining indices (rare after collapsing).
      const idx = new Array<number>(outer.length).fill(0);
      const outerCount = outer.reduce((a, b) => a * b, 1);
      for (let o = 0; o < outerCount; o++) {
        let outOff = 0;
        const inOff = inputs.map(() => 0);
        let span = rows * cols;
        for (let d = outer.length - 1; d >= 0; d--) {
          outOff += (idx[d] as number) * span;
          span *= outer[d] as number;
          plan.strides.forEach((s, k) => {
            inOff[k] = (inOff[k] as number) + (idx[d] as number) * (s[d] as number);
          });
        }
        const ptrs = [
          outAddr + outOff * outBytes,
          ...inAddr.map((a, k) => a + (inOff[k] as number) * (inBytes[k] as number)),
        ];
        if (rows * cols < PARALLEL_MIN || !runSplit2d(kernel, ptrs, pvals, rows, cols, rowStrides))
          run2d(...ptrs, ...pvals, 0, rows, cols, ...rowStrides);
        for (let d = outer.length - 1; d >= 0; d--) {
          idx[d] = (idx[d] as number) + 1;
          if ((idx[d] as number) < (outer[d] as number)) break;
          idx[d] = 0;
        }
      }
    },
  };
}
