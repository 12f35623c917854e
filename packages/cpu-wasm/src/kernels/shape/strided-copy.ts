/**
 * The workhorse of the shape family: copy (or add) an N-d strided window of wasm memory into
 * another. Transpose, SwapAxis, slices with steps, reverse (negative strides), broadcasts (stride
 * 0), tile, repeat, Concat/stack/split (strided destination), Pad and diag all reduce to one call.
 *
 * The plan: drop size-1 axes, merge axes that are contiguous on both sides, then:
 * - innermost contiguous on both sides with runs >= 64 bytes: `copyWithin` per run;
 * - a source axis of stride ±1 that is not innermost (a transpose): move it next to the innermost
 *   axis and walk that pair in 16x16 tiles so reads and writes both stay in cache;
 * - the last two axes go to a generated wasm loop (wasm-copy.ts), the outer axes to an odometer.
 * Writes move raw elements by width, so every storable dtype works and no bit pattern changes;
 * `add` uses the dtype's arithmetic (bool as or; float16/bfloat16 in JS through float32).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { bfloatToFloat, floatToBfloat, floatToHalf, halfToFloat } from './dtype-bits.js';
import { copy2dAdd, copy2dWrite } from './wasm-copy.js';

/** An N-d window: byte address of element [0, ..., 0] and per-axis strides in elements (any sign). */
export interface Strided {
  readonly addr: number;
  readonly strides: readonly number[];
}

/** Row-major strides in elements of a dense array of `shape`. */
export function denseStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i] as number;
  }
  return s;
}

/** A dense window at `addr` for `shape`. */
export function dense(addr: number, shape: readonly number[]): Strided {
  return { addr, strides: denseStrides(shape) };
}

interface Dim {
  n: number;
  s: number;
  d: number;
}

const RUN_BYTES = 64;
/**
 * Transpose tile edge in elements. Measured on 2000x2000 and 2048x2048 transposes (2-core dev
 * container, Node 20): 16 kept both near 0.6-1.7 ns/element for 1-8 byte types; 32 and 64 were ~2x slower on
 * the power-of-two case (rows 8 KiB apart share L1 sets), 8 no better elsewhere.
 */
const TILE = 16;

/** Drop size-1 axes and merge axes contiguous on both sides (outer into inner). */
function simplify(dims: Dim[]): Dim[] {
  const kept = dims.filter((x) => x.n !== 1);
  const out: Dim[] = [];
  for (let i = kept.length - 1; i >= 0; i--) {
    const x = kept[i] as Dim;
    const inner = out[0];
    if (inner !== undefined && x.s === inner.s * inner.n && x.d === inner.d * inner.n) {
      inner.n *= x.n;
    } else out.unshift({ ...x });
  }
  return out;
}

/** Lowest and highest byte address a window touches. */
function extent(w: Strided, shape: readonly number[], bytes: number): [number, number] {
  let lo = w.addr;
  let hi = w.addr;
  shape.forEach((n, i) => {
    const step = (w.strides[i] as number) * (n - 1) * bytes;
    if (step < 0) lo += step;
    else hi += step;
  });
  return [lo, hi + bytes - 1];
}

/**
 * Copy `shape` elements of `dtype` from `src` to `dst` honouring `req` (write/inplace overwrite,
 * add accumulates, null skips). Addresses must be aligned to the element size. Windows that
 * overlap without being identical (`reverse(x, out=x)`, a shifted slice copied onto its own array)
 * go through a dense temporary, so every element reads the source before any write.
 */
export function copyStrided(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  shape: readonly number[],
  src: Strided,
  dst: Strided,
  req: OpReqType,
): void {
  if (req === OpReq.null) return;
  for (const n of shape) if (n === 0) return;
  const bytes = DType[dtype].bytes;
  const same = src.addr === dst.addr && shape.every((_, i) => src.strides[i] === dst.strides[i]);
  if (!same) {
    const [slo, shi] = extent(src, shape, bytes);
    const [dlo, dhi] = extent(dst, shape, bytes);
    if (slo <= dhi && dlo <= shi) {
      let size = bytes;
      for (const n of shape) size *= n;
      const tmp = rt.memory.allocator.alloc(size);
      if (tmp === null)
        throw new MXNetError(`out of memory copying ${size} bytes`, { op: 'copy', device: 'cpu(0)' });
      try {
        copyStrided(rt, dtype, shape, src, dense(tmp, shape), OpReq.write);
        copyStrided(rt, dtype, shape, dense(tmp, shape), dst, req);
      } finally {
        rt.memory.allocator.free(tmp, size);
      }
      return;
    }
  }
  const dims = simplify(
    shape.map((n, i) => ({ n, s: src.strides[i] as number, d: dst.strides[i] as number })),
  );
  const add = req === OpReq.add;
  const kern = add ? copy2dAdd(rt, dtype) : copy2dWrite(rt, bytes);
  if (kern === undefined) {
    addHalf(rt, dtype, dims, src.addr / bytes, dst.addr / bytes);
    return;
  }
  if (dims.length === 0) dims.push({ n: 1, s: 1, d: 1 });
  const last = dims[dims.length - 1] as Dim;
  if (!add && last.s === 1 && last.d === 1 && last.n * bytes >= RUN_BYTES) {
    const u8 = new Uint8Array(rt.memory.buffer);
    const nb = last.n * bytes;
    outer(scale(dims, bytes), 1, src.addr, dst.addr, (a, b) => u8.copyWithin(b, a, a + nb));
    return;
  }
  let tile = 0;
  const t = dims.findIndex((x, i) => i < dims.length - 1 && (x.s === 1 || x.s === -1));
  if (last.d === 1 && last.s !== 1 && last.s !== -1 && t >= 0) {
    const [ax] = dims.splice(t, 1) as [Dim];
    dims.splice(dims.length - 1, 0, ax);
    tile = TILE;
  }
  if (dims.length === 1) dims.unshift({ n: 1, s: 0, d: 0 });
  const bd = scale(dims, bytes);
  const A = bd[bd.length - 2] as Dim;
  const B = bd[bd.length - 1] as Dim;
  const T = tile > 0 ? tile : Math.max(A.n, B.n);
  outer(bd, 2, src.addr, dst.addr, (a, b) => kern(a, b, A.n, A.s, A.d, B.n, B.s, B.d, T));
}

/** Strides in elements -> bytes. */
function scale(dims: readonly Dim[], bytes: number): Dim[] {
  return dims.map((x) => ({ n: x.n, s: x.s * bytes, d: x.d * bytes }));
}

/** Call `body(srcIndex, dstIndex)` for every position of all but the last `k` axes. */
function outer(dims: Dim[], k: number, so: number, dof: number, body: (a: number, b: number) => void): void {
  const m = dims.length - k;
  if (m <= 0) {
    body(so, dof);
    return;
  }
  let total = 1;
  for (let i = 0; i < m; i++) total *= (dims[i] as Dim).n;
  const idx = new Int32Array(m);
  let a = so;
  let b = dof;
  for (let it = 0; it < total; it++) {
    body(a, b);
    for (let j = m - 1; j >= 0; j--) {
      const x = dims[j] as Dim;
      a += x.s;
      b += x.d;
      const v = (idx[j] as number) + 1;
      if (v < x.n) {
        idx[j] = v;
        break;
      }
      a -= x.s * x.n;
      b -= x.d * x.n;
      idx[j] = 0;
    }
  }
}

/** `dst += src` for float16/bfloat16 (through float32 arithmetic), which the wasm kernel lacks. */
function addHalf(rt: CpuWasmRuntime, dtype: DTypeName, dims: Dim[], so: number, dof: number): void {
  const V = new Uint16Array(rt.memory.buffer);
  const dec = dtype === 'float16' ? halfToFloat : bfloatToFloat;
  const enc = dtype === 'float16' ? floatToHalf : floatToBfloat;
  const inner: Dim = dims.length > 0 ? (dims[dims.length - 1] as Dim) : { n: 1, s: 1, d: 1 };
  const { n, s, d } = inner;
  outer(dims, dims.length > 0 ? 1 : 0, so, dof, (a, b) => {
    for (let i = 0; i < n; i++) V[b + i * d] = enc(dec(V[b + i * d] as number) + dec(V[a + i * s] as number));
  });
}
