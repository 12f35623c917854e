/**
 * softmax, log_softmax, masked_softmax, masked_log_softmax and their backward ops on cpu-wasm.
 *
 * The data is viewed as (outer, M, inner) around the softmax axis. The common case — the last axis
 * (inner = 1), one dtype, no lengths — runs the generated SIMD row loops (softmax-wasm.ts), split
 * by rows across the worker pool when large. Everything else (another axis, lengths, an output
 * dtype override, the bool mask) runs a TypeScript loop per row in float64, with MXNet's
 * semantics: rows beyond `length` output 0; masked entries are replaced by the lowest finite value
 * before a plain softmax / log_softmax and set to 0 / -inf after (a fully masked row is all 0 /
 * all -inf), and their gradient is zero. Forward req add goes through a scratch block (MXNet
 * rejects it; we accumulate).
 */
import { type DTypeName, MXNetError, type Shape } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CompiledKernel, CpuWasmRuntime } from '../../../runtime.js';
import { poolOf } from '../../../threads/index.js';
import { withTarget } from '../../shape/kernel-util.js';
import { buildSoftmaxModule } from './softmax-wasm.js';
import { BACKEND, type Blob, checkFloat, FLOAT_DTYPES } from './util.js';

interface SoftmaxAttrs extends Attrs {
  readonly axis: number;
  readonly temperature: number | null;
  readonly dtype: DTypeName | null;
  readonly use_length: boolean | null;
}

interface MaskedAttrs extends Attrs {
  readonly axis: number;
  readonly temperature: number | null;
}

/** (outer, M, inner) around `axis`. */
export interface Geometry {
  readonly outer: number;
  readonly m: number;
  readonly inner: number;
}

export function geometry(shape: Shape, axis: number): Geometry {
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < axis; i++) outer *= shape[i] as number;
  for (let i = axis + 1; i < shape.length; i++) inner *= shape[i] as number;
  return { outer, m: shape[axis] as number, inner };
}

function normAxis(op: string, axis: number, shape: Shape): number {
  const nd = shape.length;
  if (!(axis < nd && axis >= -nd)) {
    throw new MXNetError(`axis ${axis} exceeds the input dimension of ${nd}`, {
      op,
      shapes: [shape],
      hint: `pass an axis in [${-nd}, ${nd - 1}]`,
    });
  }
  return axis < 0 ? axis + nd : axis;
}

/**
 * Elements from which a row loop is split across the pool, and the target per chunk: a softmax row
 * costs an exp per element (64K float32 elements take ~60 µs on one thread here). Measured on 2
 * cores, a pooled call costs ~30 µs more than half the work (waking the worker), so 64K is where
 * the split breaks even and 128K already gains a quarter; far below a plain add's threshold.
 */
const PARALLEL_MIN = 1 << 16;
const CHUNK_ELEMS = 1 << 14;

const LOWEST: Readonly<Record<string, number>> = {
  float32: -3.4028234663852886e38,
  float64: -Number.MAX_VALUE,
};

/** The cached SIMD module of a dtype and its row-loop runner. */
export class SoftmaxRows {
  readonly #rt: CpuWasmRuntime;

  constructor(rt: CpuWasmRuntime) {
    this.#rt = rt;
  }

  /** Whether the SIMD rows apply to these blobs. */
  usable(blobs: readonly Blob[]): boolean {
    const t = blobs[0]?.dtype;
    return (
      this.#rt.features.simd && (t === 'float32' || t === 'float64') && blobs.every((b) => b.dtype === t)
    );
  }

  #module(dtype: 'float32' | 'float64'): CompiledKernel {
    const rt = this.#rt;
    return rt.kernel(`layers-softmax:${dtype}`, () => buildSoftmaxModule(dtype, rt.memoryImport()));
  }

  /** Run export `name` over `rows` rows of `m` elements of the blobs `ptrs` (addresses). */
  run(
    name: string,
    dtype: 'float32' | 'float64',
    ptrs: readonly number[],
    rows: number,
    m: number,
    t: number,
  ): void {
    if (rows === 0 || m === 0) return;
    const rt = this.#rt;
    const k = this.#module(dtype);
    const pool = rows * m >= PARALLEL_MIN && rows > 1 ? poolOf(rt) : null;
    if (pool === null || pool.size < 2) {
      (k.exports[name] as (...a: number[]) => void)(...ptrs, rows, m, t);
      return;
    }
    const alloc = rt.memory.allocator;
    const pp = alloc.alloc(8);
    if (pp === null) {
      (k.exports[name] as (...a: number[]) => void)(...ptrs, rows, m, t);
      return;
    }
    try {
      (rt.memory.view('float64', pp, 1) as Float64Array)[0] = t;
      const per = Math.max(1, Math.floor(CHUNK_ELEMS / m));
      pool.parallelFor(k, `${name}C`, Math.ceil(rows / per), [...ptrs, rows, m, pp, per]);
    } finally {
      alloc.free(pp, 8);
    }
  }
}

type Arr = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

function num(a: Arr, i: number): number {
  return Number(a[i] as number | bigint);
}

/**
 * Softmax / log_softmax of `x` into `out` over geometry `g` in float64 (the general path):
 * `lengths` (one per row, the data shape without the axis) and `mask` (per element) are optional.
 */
export function softmaxLoop(
  x: Arr,
  out: Float32Array | Float64Array,
  g: Geometry,
  t: number,
  log: boolean,
  lengths?: Arr,
  mask?: {
    readonly data: Arr;
    readonly offset: (row: number) => number;
    readonly step: number;
    readonly lowest: number;
    /** What masked entries output: 0 (masked_softmax) or -inf (masked_log_softmax). */
    readonly fill: number;
  },
): void {
  const { outer, m, inner } = g;
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      const row = o * inner + k;
      const base = o * m * inner + k;
      const len =
        lengths === undefined ? m : Math.max(0, Math.min(m, num(lengths, lengths.length === 1 ? 0 : row)));
      const mo = mask === undefined ? 0 : mask.offset(row);
      const val = (j: number): number =>
        mask !== undefined && !mask.data[mo + j * mask.step] ? mask.lowest : (x[base + j * inner] as number);
      if (len === 0) {
        for (let j = 0; j < m; j++) out[base + j * inner] = 0;
        continue;
      }
      let mx = val(0);
      for (let j = 1; j < len; j++) {
        const v = val(j);
        if (mx < v) mx = v;
      }
      let sum = 0;
      for (let j = 0; j < len; j++) sum += Math.exp((val(j) - mx) / t);
      const ls = Math.log(sum);
      for (let j = 0; j < len; j++) {
        const z = (val(j) - mx) / t;
        out[base + j * inner] = log ? z - ls : Math.exp(z) / sum;
      }
      for (let j = len; j < m; j++) out[base + j * inner] = 0;
      if (mask !== undefined)
        for (let j = 0; j < m; j++) if (!mask.data[mo + j * mask.step]) out[base + j * inner] = mask.fill;
    }
  }
}

/** The gradient of softmaxLoop: dx (=|+=) ... with optional lengths / mask. */
export function softmaxGradLoop(
  og: Arr,
  y: Arr,
  dx: Float32Array | Float64Array,
  g: Geometry,
  t: number,
  log: boolean,
  add: boolean,
  lengths?: Arr,
  mask?: { readonly data: Arr; readonly offset: (row: number) => number; readonly step: number },
): void {
  const { outer, m, inner } = g;
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      const row = o * inner + k;
      const base = o * m * inner + k;
      const len =
        lengths === undefined ? m : Math.max(0, Math.min(m, num(lengths, lengths.length === 1 ? 0 : row)));
      const mo = mask === undefined ? 0 : mask.offset(row);
      const on = (j: number) => mask === undefined || mask.data[mo + j * mask.step] !== 0;
      let sum = 0;
      for (let j = 0; j < len; j++) {
        if (!on(j)) continue;
        const i = base + j * inner;
        sum += log ? num(og, i) : num(og, i) * num(y, i);
      }
      for (let j = 0; j < m; j++) {
        const i = base + j * inner;
        let v = 0;
        if (j < len && on(j)) {
          const gv = num(og, i);
          const yv = num(y, i);
          v = (log ? gv - Math.exp(yv) * sum : yv * (gv - sum)) / t;
        }
        dx[i] = add ? (dx[i] as number) + v : v;
      }
    }
  }
}

/** Element offsets into a mask broadcast to `data` for each (outer, inner) row, and its step along the axis. */
function maskIndex(
  data: Shape,
  mask: Shape,
  axis: number,
): { offset: (row: number) => number; step: number } {
  const nd = data.length;
  const mstr = new Array<number>(nd).fill(0);
  let s = 1;
  for (let d = nd - 1; d >= 0; d--) {
    mstr[d] = (mask[d] as number) === 1 ? 0 : s;
    s *= mask[d] as number;
  }
  const g = geometry(data, axis);
  const outerOff = new Array<number>(g.outer);
  for (let o = 0; o < g.outer; o++) {
    let rem = o;
    let off = 0;
    for (let d = axis - 1; d >= 0; d--) {
      const dim = data[d] as number;
      off += (rem % dim) * (mstr[d] as number);
      rem = Math.floor(rem / dim);
    }
    outerOff[o] = off;
  }
  const innerOff = new Array<number>(g.inner);
  for (let k = 0; k < g.inner; k++) {
    let rem = k;
    let off = 0;
    for (let d = nd - 1; d > axis; d--) {
      const dim = data[d] as number;
      off += (rem % dim) * (mstr[d] as number);
      rem = Math.floor(rem / dim);
    }
    innerOff[k] = off;
  }
  return {
    offset: (row) => (outerOff[Math.floor(row / g.inner)] as number) + (innerOff[row % g.inner] as number),
    step: mstr[axis] as number,
  };
}

/** Forward softmax over an explicit geometry into `out` (write), SIMD rows when possible. */
export function softmaxInto(
  rt: CpuWasmRuntime,
  rows: SoftmaxRows,
  x: Blob,
  out: Blob,
  g: Geometry,
  t: number,
  log: boolean,
): void {
  if (g.inner === 1 && rows.usable([x, out])) {
    rows.run(log ? 'lsm' : 'sm', x.dtype as 'float32', [rt.address(x), rt.address(out)], g.outer, g.m, t);
    return;
  }
  softmaxLoop(rt.view(x) as Arr, rt.view(out) as Float32Array, g, t, log);
}

function forward(
  rt: CpuWasmRuntime,
  rows: SoftmaxRows,
  op: string,
  log: boolean,
  p: SoftmaxAttrs,
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  const x = ins[0] as Blob;
  checkFloat(op, [x, out]);
  if (req === OpReq.null || out.size === 0) return;
  const axis = normAxis(op, p.axis, x.shape);
  const g = geometry(x.shape, axis);
  const t = p.temperature ?? 1;
  withTarget(rt, out, req, op, (tgt) => {
    if (p.use_length) {
      softmaxLoop(rt.view(x) as Arr, rt.view(tgt) as Float32Array, g, t, log, rt.view(ins[1] as Blob) as Arr);
      return;
    }
    softmaxInto(rt, rows, x, tgt, g, t, log);
  });
}

function backward(
  rt: CpuWasmRuntime,
  rows: SoftmaxRows,
  op: string,
  log: boolean,
  p: SoftmaxAttrs,
  ins: readonly Blob[],
  req: readonly OpReqType[],
  outs: readonly Blob[],
): void {
  const full = p.dtype !== null || p.use_length === true;
  const og = ins[0] as Blob;
  const y = ins[full ? (p.use_length ? 3 : 2) : 1] as Blob;
  const dx = outs[0] as Blob;
  checkFloat(op, [og, y, dx]);
  if (p.use_length && (req[1] ?? OpReq.null) !== OpReq.null) {
    const dl = outs[1] as Blob;
    if ((req[1] as OpReqType) !== OpReq.add && dl.size > 0) rt.zero(dl);
  }
  const r = req[0] ?? OpReq.write;
  if (r === OpReq.null || dx.size === 0) return;
  const axis = normAxis(op, p.axis, og.shape);
  const g = geometry(og.shape, axis);
  const t = p.temperature ?? 1;
  const add = r === OpReq.add;
  if (!p.use_length && g.inner === 1 && rows.usable([og, y, dx])) {
    const name = `${log ? 'lsm' : 'sm'}B${add ? 'A' : ''}`;
    rows.run(name, dx.dtype as 'float32', [rt.address(og), rt.address(y), rt.address(dx)], g.outer, g.m, t);
    return;
  }
  const lengths = p.use_length ? (rt.view(ins[2] as Blob) as Arr) : undefined;
  softmaxGradLoop(
    rt.view(og) as Arr,
    rt.view(y) as Arr,
    rt.view(dx) as Float32Array,
    g,
    t,
    log,
    add,
    lengths,
  );
}

function masked(
  rt: CpuWasmRuntime,
  op: string,
  log: boolean,
  p: MaskedAttrs,
  ins: readonly Blob[],
  req: OpReqType,
  out: Blob,
): void {
  const [x, mask] = ins as [Blob, Blob];
  checkFloat(op, [x, out]);
  if (req === OpReq.null || out.size === 0) return;
  const axis = normAxis(op, p.axis, x.shape);
  const g = geometry(x.shape, axis);
  const mi = maskIndex(x.shape, mask.shape, axis);
  withTarget(rt, out, req, op, (tgt) => {
    softmaxLoop(rt.view(x) as Arr, rt.view(tgt) as Float32Array, g, p.temperature ?? 1, log, undefined, {
      data: rt.view(mask) as Uint8Array,
      ...mi,
      lowest: LOWEST[x.dtype] as number,
      fill: log ? Number.NEGATIVE_INFINITY : 0,
    });
  });
}

function maskedBackward(
  rt: CpuWasmRuntime,
  op: string,
  log: boolean,
  p: MaskedAttrs,
  ins: readonly Blob[],
  req: OpReqType,
  dx: Blob,
): void {
  const [og, mask, y] = ins as [Blob, Blob, Blob];
  checkFloat(op, [og, y, dx]);
  if (req === OpReq.null || dx.size === 0) return;
  const axis = normAxis(op, p.axis, og.shape);
  const g = geometry(og.shape, axis);
  const mi = maskIndex(og.shape, mask.shape, axis);
  softmaxGradLoop(
    rt.view(og) as Arr,
    rt.view(y) as Arr,
    rt.view(dx) as Float32Array,
    g,
    p.temperature ?? 1,
    log,
    req === OpReq.add,
    undefined,
    { data: rt.view(mask) as Uint8Array, ...mi },
  );
}

/** Why the dtypes are refused (data, gradients and outputs must be float; lengths are integers), or undefined. */
function floatExceptLength(
  ins: readonly DTypeName[],
  outs: readonly DTypeName[],
  lengthIndex: number,
): string | undefined {
  const bad = [...ins.filter((_, i) => i !== lengthIndex), ...outs].find((t) => !FLOAT_DTYPES.includes(t));
  return bad === undefined ? undefined : `data and outputs must be float32 or float64, got ${bad}`;
}

export function installSoftmax(registry: OpRegistry, rt: CpuWasmRuntime, rows: SoftmaxRows): void {
  for (const [name, log] of [
    ['softmax', false],
    ['log_softmax', true],
  ] as const) {
    registry.registerKernel<SoftmaxAttrs>(name, BACKEND, {
      dtypes: [...FLOAT_DTYPES, 'int32', 'int64'],
      checkDTypes: (p, ins, outs) => floatExceptLength(ins, outs, p.use_length ? 1 : -1),
      compute: (p, _ctx, ins, req, outs) =>
        forward(rt, rows, name, log, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
    });
    registry.registerKernel<SoftmaxAttrs>(`_backward_${name}`, BACKEND, {
      dtypes: [...FLOAT_DTYPES, 'int32', 'int64'],
      checkDTypes: (p, ins, outs) => floatExceptLength(ins, outs.slice(0, 1), p.use_length ? 2 : -1),
      compute: (p, _ctx, ins, req, outs) =>
        backward(rt, rows, `_backward_${name}`, log, p, ins as readonly Blob[], req, outs as readonly Blob[]),
    });
  }
  for (const [name, log] of [
    ['masked_softmax', false],
    ['masked_log_softmax', true],
  ] as const) {
    registry.registerKernel<MaskedAttrs>(name, BACKEND, {
      dtypes: [...FLOAT_DTYPES, 'bool'],
      compute: (p, _ctx, ins, req, outs) =>
        masked(rt, name, log, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
    });
    const back = `_backward_${name}`;
    registry.registerKernel<MaskedAttrs>(back, BACKEND, {
      dtypes: [...FLOAT_DTYPES, 'bool'],
      compute: (p, _ctx, ins, req, outs) =>
        maskedBackward(rt, back, log, p, ins as readonly Blob[], req[0] ?? OpReq.write, outs[0] as Blob),
    });
  }
}
