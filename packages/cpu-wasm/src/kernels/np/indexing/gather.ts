/**
 * cpu-wasm kernels of the n-d gathers and region writes: `gather_nd` and `_scatter_set_nd` (one
 * pass resolves every index tuple to a block offset and checks its range — negative indices wrap,
 * NumPy's IndexError otherwise — before the first write; then blocks move as bytes),
 * `_backward_gather_nd` (scatter-add, duplicates accumulate, in float64 then rounded once), and
 * `_slice_assign` / `_slice_assign_scalar` (a strided window of the output; lhs copied first when
 * not in place).
 */
import { DType, type DTypeName, MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, sliceStart } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { encodeScalar } from '../../shape/dtype-bits.js';
import { ALL_DTYPES } from '../../shape/kernel-util.js';
import { copyStrided, denseStrides } from '../../shape/strided-copy.js';
import { BACKEND, type Blob, bytes, checkWriteReq, copyBase, outOfBounds, prod, readInts } from './common.js';

type OptIdx = readonly (number | null)[];

/**
 * Block offsets (in elements of `shape`) of the index tuples in the rows of `ind` (M, N...):
 * checked and wrapped in a first pass. Offsets are multiples of the block size prod(shape[M:]).
 */
function tupleOffsets(
  rt: CpuWasmRuntime,
  op: string,
  ind: Blob,
  shape: readonly number[],
  others: Blob[],
): Float64Array {
  const m = ind.shape[0] as number;
  const n = prod(ind.shape, 1);
  const raw = readInts(rt, ind);
  const st = denseStrides(shape);
  const out = new Float64Array(n);
  for (let j = 0; j < m; j++) {
    const size = shape[j] as number;
    const stride = st[j] as number;
    for (let i = 0; i < n; i++) {
      let v = raw[j * n + i] as number;
      if (v < -size || v >= size) throw outOfBounds(op, v, j, size, [ind, ...others]);
      if (v < 0) v += size;
      out[i] = (out[i] as number) + v * stride;
    }
  }
  return out;
}

/** Float64 values of a blob (for accumulation), and a writer back in its dtype. */
function numeric(rt: CpuWasmRuntime, b: Blob, op: string): { get: Float64Array; put(v: Float64Array): void } {
  if (b.dtype === 'float16' || b.dtype === 'bfloat16' || b.dtype === 'bool')
    throw new MXNetError(`${op} does not support dtype ${b.dtype} on cpu-wasm`, {
      op,
      dtypes: [b.dtype],
      device: BACKEND,
      hint: 'cast to float32 first',
    });
  const v = rt.view(b);
  const big = DType[b.dtype].bigint;
  const get = big
    ? Float64Array.from(v as BigInt64Array, (x) => Number(x))
    : Float64Array.from(v as ArrayLike<number>);
  return {
    get,
    put(vals) {
      const w = rt.view(b) as unknown as { [i: number]: number | bigint };
      for (let i = 0; i < b.size; i++)
        w[i] = big ? BigInt(Math.round(vals[i] as number)) : (vals[i] as number);
    },
  };
}

/** The region of `slice(begin, end, step)` of `shape`: first element offset, strides, shape. */
function region(
  shape: readonly number[],
  a: { begin: OptIdx; end: OptIdx; step: OptIdx },
  size: readonly number[],
) {
  const st = denseStrides(shape);
  const { b, s } = sliceStart(shape, a.begin, a.step);
  const offset = b.reduce((acc, v, i) => acc + v * (st[i] as number), 0);
  return { offset, strides: st.map((v, i) => v * (s[i] as number)), shape: size };
}

/** Output shape of slice on `shape` (the kernels get the region's size from rhs or recompute it). */
function sliceShape(shape: readonly number[], a: { begin: OptIdx; end: OptIdx; step: OptIdx }): number[] {
  const st = sliceStart(shape, a.begin, a.step);
  return shape.map((len, i) => {
    if (i >= a.begin.length) return len;
    const s = st.s[i] as number;
    const b = st.b[i] as number;
    let e = a.end[i] ?? (s < 0 ? -1 : len);
    if (e < 0 && a.end[i] !== null && a.end[i] !== undefined) e += len;
    e = Math.min(Math.max(e, -1), len);
    if (len === 0 || b < 0 || b > len - 1) return 0;
    return s > 0
      ? e > b
        ? Math.floor((e - b - 1) / s) + 1
        : 0
      : e < b
        ? Math.floor((b - e - 1) / -s) + 1
        : 0;
  });
}

export function installGather(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<Attrs>('gather_nd', BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (_a, _ctx, [data, indices], req, [out]) => {
      const d = data as Blob;
      const ind = indices as Blob;
      const o = out as Blob;
      if (req[0] === OpReq.null) return;
      const offs = tupleOffsets(rt, 'gather_nd', ind, d.shape, [d]);
      if (o.size === 0) return;
      const m = ind.shape[0] as number;
      const bsz = DType[d.dtype].bytes;
      const blkEl = prod(d.shape, m);
      if (req[0] === OpReq.add) {
        const src = numeric(rt, d, 'gather_nd').get;
        const acc = numeric(rt, o, 'gather_nd');
        const vals = acc.get;
        offs.forEach((off, i) => {
          for (let k = 0; k < blkEl; k++)
            vals[i * blkEl + k] = (vals[i * blkEl + k] as number) + (src[off + k] as number);
        });
        acc.put(vals);
        return;
      }
      const u8 = bytes(rt);
      const s0 = rt.address(d);
      const d0 = rt.address(o);
      const blk = blkEl * bsz;
      for (let i = 0; i < offs.length; i++) {
        const sp = s0 + (offs[i] as number) * bsz;
        u8.copyWithin(d0 + i * blk, sp, sp + blk);
      }
    },
  });

  registry.registerKernel<Attrs>('_backward_gather_nd', BACKEND, {
    dtypes: ALL_DTYPES.filter((t) => t !== 'float16' && t !== 'bfloat16' && t !== 'bool'),
    compute: (_a, _ctx, [data, indices], req, [out]) => {
      const g = data as Blob;
      const ind = indices as Blob;
      const o = out as Blob;
      if (req[0] === OpReq.null) return;
      const offs = tupleOffsets(rt, '_backward_gather_nd', ind, o.shape, [g]);
      if (o.size === 0) return;
      const blkEl = prod(o.shape, ind.shape[0] as number);
      const src = numeric(rt, g, '_backward_gather_nd').get;
      const acc = numeric(rt, o, '_backward_gather_nd');
      const vals = req[0] === OpReq.add ? acc.get : new Float64Array(o.size);
      offs.forEach((off, i) => {
        for (let k = 0; k < blkEl; k++)
          vals[off + k] = (vals[off + k] as number) + (src[i * blkEl + k] as number);
      });
      acc.put(vals);
    },
  });

  registry.registerKernel<Attrs>('_scatter_set_nd', BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (_a, _ctx, [lhs, rhs, indices], req, [out]) => {
      const l = lhs as Blob;
      const r = rhs as Blob;
      const ind = indices as Blob;
      const o = out as Blob;
      if (!checkWriteReq('_scatter_set_nd', req[0])) return;
      const offs = tupleOffsets(rt, '_scatter_set_nd', ind, l.shape, [l, r]);
      copyBase(rt, l, o);
      if (r.size === 0) return;
      const bsz = DType[l.dtype].bytes;
      const blk = prod(l.shape, ind.shape[0] as number) * bsz;
      const u8 = bytes(rt);
      const s0 = rt.address(r);
      const d0 = rt.address(o);
      // In order: a repeated index keeps the last value, as NumPy's assignment does.
      for (let i = 0; i < offs.length; i++)
        u8.copyWithin(d0 + (offs[i] as number) * bsz, s0 + i * blk, s0 + (i + 1) * blk);
    },
  });

  registry.registerKernel<Attrs>('_slice_assign', BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (a, _ctx, [lhs, rhs], req, [out]) => {
      const l = lhs as Blob;
      const r = rhs as Blob;
      const o = out as Blob;
      if (!checkWriteReq('_slice_assign', req[0])) return;
      const attrs = a as unknown as { begin: OptIdx; end: OptIdx; step: OptIdx };
      // rhs may overlap lhs (x[1:] = x[:-1]): read it into a scratch copy before lhs is copied.
      const staged = stage(rt, r, o);
      try {
        copyBase(rt, l, o);
        if (r.size === 0) return;
        const g = region(l.shape, attrs, r.shape);
        const base = rt.address(o);
        copyStrided(
          rt,
          l.dtype,
          g.shape,
          { addr: staged.addr, strides: denseStrides(r.shape) },
          { addr: base + g.offset * DType[l.dtype].bytes, strides: g.strides },
          OpReq.write as OpReqType,
        );
      } finally {
        staged.free();
      }
    },
  });

  registry.registerKernel<Attrs>('_slice_assign_scalar', BACKEND, {
    dtypes: ALL_DTYPES,
    compute: (a, _ctx, [data], req, [out]) => {
      const d = data as Blob;
      const o = out as Blob;
      if (!checkWriteReq('_slice_assign_scalar', req[0])) return;
      const attrs = a as unknown as { begin: OptIdx; end: OptIdx; step: OptIdx; scalar: number };
      copyBase(rt, d, o);
      const shape = sliceShape(d.shape, attrs);
      if (prod(shape) === 0) return;
      const g = region(d.shape, attrs, shape);
      fillStrided(rt, o.dtype, rt.address(o), g.offset, g.strides, shape, attrs.scalar);
    },
  });
}

/** `src` where the kernel can read it after writing `dst`: itself unless it overlaps dst. */
function stage(rt: CpuWasmRuntime, src: Blob, dst: Blob): { addr: number; free(): void } {
  const n = src.size * DType[src.dtype].bytes;
  const a = rt.address(src);
  const b = rt.address(dst);
  const m = dst.size * DType[dst.dtype].bytes;
  if (n === 0 || a + n <= b || b + m <= a) return { addr: a, free: () => undefined };
  const alloc = rt.memory.allocator;
  const tmp = alloc.alloc(n);
  if (tmp === null)
    throw new MXNetError(`out of memory staging ${n} bytes`, { op: '_slice_assign', device: BACKEND });
  bytes(rt).copyWithin(tmp, a, a + n);
  return { addr: tmp, free: () => alloc.free(tmp, n) };
}

/** Set every element of a strided window to `value`. */
function fillStrided(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  base: number,
  offset: number,
  strides: readonly number[],
  shape: readonly number[],
  value: number,
): void {
  const size = DType[dtype].bytes;
  const first = base + offset * size;
  const enc = encodeScalar(dtype, value);
  const view = rt.memory.view(dtype, first, 1) as unknown as { [i: number]: number | bigint };
  view[0] = DType[dtype].bigint && typeof enc === 'number' ? BigInt(enc) : enc;
  const u8 = bytes(rt);
  const n = prod(shape);
  const idx = new Array<number>(shape.length).fill(0);
  for (let k = 1; k < n; k++) {
    for (let j = shape.length - 1; j >= 0; j--) {
      idx[j] = (idx[j] as number) + 1;
      if ((idx[j] as number) < (shape[j] as number)) break;
      idx[j] = 0;
    }
    let p = offset;
    for (let j = 0; j < shape.length; j++) p += (idx[j] as number) * (strides[j] as number);
    const dp = base + p * size;
    u8.copyWithin(dp, first, first + size);
  }
}
