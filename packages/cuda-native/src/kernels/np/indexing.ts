/**
 * np indexing kernels with static output shapes: `gather_nd` (one thread per output element
 * resolves its index tuple), `_backward_gather_nd` (scatter-add with atomics into a zeroed
 * float64 / int64 accumulator in scratch — duplicates accumulate exactly as cpu-wasm's float64
 * sum — then one pass rounds into the output honouring req), `_scatter_set_nd` (copy lhs, find
 * the last tuple aiming at each block — NumPy's duplicate rule — then write the winners' blocks) and `_slice_assign` / `_slice_assign_scalar` (copy lhs, then write a
 * strided window). Index tuples wrap negative values. Out-of-range indices raise NumPy's
 * IndexError as on cpu-wasm: a check kernel records the first bad index (in cpu-wasm's scan order)
 * in scratch the runtime reads back after the op (`rt.check`), and the kernels that write read that
 * verdict and write nothing when it is set.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpRegistry, sliceStart } from '@mx/ops';
import { CUDA_DTYPES, ctype, loadC } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import {
  castFromDouble,
  checkRank,
  copyBase,
  DEVICE,
  denseStrides,
  dims,
  f64,
  i32,
  i64,
  isAdd,
  kc,
  launch1d,
  prod,
  ptr,
  refuseAdd,
  skip,
  source,
  st,
  storeC,
} from './common.js';

/** C: `off` = the flat block offset of tuple `t` (wrapped, clamped) read from `ind` (M rows of nIdx). */
function tupleC(indDtype: DTypeName): string {
  return `long long off = 0;
    for (int j = 0; j < m; j++) {
      long long v = (long long)(${loadC('ind', indDtype, 'j * nIdx + t')});
      long long size = shape.v[j];
      if (v < 0) v += size;
      v = v < 0 ? 0 : (v >= size ? size - 1 : v); // unreachable once the bounds check passed
      off += v * stride.v[j];
    }`;
}

/** The two kernels of the bounds check: the first bad raw position (atomicMin), then its value. */
function checkSources(indDtype: DTypeName) {
  const op = 'index_check';
  const find = source(op, `find|${indDtype}`, (entry) => {
    return `extern "C" __global__ void ${entry}(unsigned long long* bad, const ${st(indDtype, op)}* ind, long long total, long long nIdx, MxDims shape) {
  MX_GRID_LOOP(p, total) {
    long long v = (long long)(${loadC('ind', indDtype, 'p')});
    long long size = shape.v[p / nIdx];
    if (v < -size || v >= size) atomicMin(bad, (unsigned long long)p);
  }
}
`;
  });
  const value = source(op, `value|${indDtype}`, (entry) => {
    return `extern "C" __global__ void ${entry}(unsigned long long* bad, const ${st(indDtype, op)}* ind, long long total, long long nIdx, MxDims shape) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && bad[0] != 0xffffffffffffffffull)
    bad[1] = (unsigned long long)(long long)(${loadC('ind', indDtype, '(long long)bad[0]')});
}
`;
  });
  return [find, value] as const;
}

/**
 * Queue the bounds check of index tuples `ind` against the first `t.m` axes; returns the verdict's
 * address for the writing kernels. The op fails with cpu-wasm's IndexError.
 */
function boundsCheck(
  rt: CudaHost['rt'],
  op: string,
  ind: CudaBlob,
  t: { m: number; nIdx: number; shape: number[] },
  shapes: readonly (readonly number[])[],
): number {
  const bad = rt.check(16, (bytes) => {
    const v = new BigInt64Array(bytes.buffer, bytes.byteOffset, 2);
    if (v[0] === -1n) return undefined;
    const axis = Math.floor(Number(v[0]) / t.nIdx);
    const size = t.shape[axis] as number;
    return new MXNetError(`index ${v[1]} is out of bounds for axis ${axis} with size ${size}`, {
      op,
      device: DEVICE,
      shapes: [...shapes],
      hint: `indices along axis ${axis} must lie in [${-size}, ${size - 1}]`,
    });
  });
  rt.memset(bad, 0xff, 16);
  const total = t.m * t.nIdx;
  if (total === 0) return bad;
  const args = [{ t: 'ptr' as const, v: bad }, ptr(ind, op), i64(total), i64(t.nIdx), dims(t.shape)];
  const [find, value] = checkSources(ind.dtype);
  launch1d(rt, find, total, args);
  rt.launch(value, [1], [32], args);
  return bad;
}

const UNSET = 'if (bad[0] != 0xffffffffffffffffull) return;';

function gatherSource(dtype: DTypeName, indDtype: DTypeName, add: boolean) {
  const op = 'gather_nd';
  return source(op, `${dtype}|${indDtype}|${add}`, (entry) => {
    const s = st(dtype, op);
    return `extern "C" __global__ void ${entry}(const ${s}* data, const ${st(indDtype, op)}* ind, ${s}* out, long long n, long long nIdx, long long blk, int m, MxDims shape, MxDims stride, const unsigned long long* bad) {
  ${UNSET}
  MX_GRID_LOOP(o, n) {
    long long t = o / blk;
    ${tupleC(indDtype)}
    ${add ? storeC(dtype, 'out', 'o', loadC('data', dtype, 'off + o % blk'), true) : 'out[o] = data[off + o % blk];'}
  }
}
`;
  });
}

function scatterAddSource(dtype: DTypeName, indDtype: DTypeName) {
  const op = '_backward_gather_nd';
  const float = ctype(dtype, op).kind === 'f32' || ctype(dtype, op).kind === 'f64';
  return source(op, `${dtype}|${indDtype}`, (entry) => {
    const add = float
      ? `atomicAdd(acc + off + o % blk, (double)${loadC('g', dtype, 'o')});`
      : `atomicAdd((unsigned long long*)acc + off + o % blk, (unsigned long long)(long long)${loadC('g', dtype, 'o')});`;
    return `extern "C" __global__ void ${entry}(const ${st(dtype, op)}* g, const ${st(indDtype, op)}* ind, ${float ? 'double' : 'long long'}* acc, long long n, long long nIdx, long long blk, int m, MxDims shape, MxDims stride, const unsigned long long* bad) {
  ${UNSET}
  MX_GRID_LOOP(o, n) {
    long long t = o / blk;
    ${tupleC(indDtype)}
    ${add}
  }
}
`;
  });
}

/** out (dtype) = acc (float64 or int64 accumulator), rounded once, honouring req. */
function finishSource(dtype: DTypeName, add: boolean) {
  const op = '_backward_gather_nd';
  const float = ctype(dtype, op).kind === 'f32' || ctype(dtype, op).kind === 'f64';
  return source(op, `finish|${dtype}|${add}`, (entry) => {
    const [castDef, cast] = castFromDouble(dtype, op);
    const v = float ? `${cast}(acc[i])` : `(${kc(dtype, op)})acc[i]`;
    return `${castDef}extern "C" __global__ void ${entry}(const ${float ? 'double' : 'long long'}* acc, ${st(dtype, op)}* out, long long n) {
  MX_GRID_LOOP(i, n) { ${storeC(dtype, 'out', 'i', v, add)} }
}
`;
  });
}

/**
 * Duplicate tuples: NumPy keeps the last update, and GPU threads race, so a first pass records per
 * target block the highest tuple number aiming at it (`win`, -1 initialised) and only that tuple
 * writes.
 */
function scatterWinnerSource(indDtype: DTypeName) {
  const op = '_scatter_set_nd';
  return source(op, `winner|${indDtype}`, (entry) => {
    return `extern "C" __global__ void ${entry}(long long* win, const ${st(indDtype, op)}* ind, long long nIdx, long long blk, int m, MxDims shape, MxDims stride, const unsigned long long* bad) {
  ${UNSET}
  MX_GRID_LOOP(t, nIdx) {
    ${tupleC(indDtype)}
    atomicMax(win + off / blk, t);
  }
}
`;
  });
}

function scatterSetSource(dtype: DTypeName, indDtype: DTypeName) {
  const op = '_scatter_set_nd';
  return source(op, `${dtype}|${indDtype}`, (entry) => {
    const s = st(dtype, op);
    return `extern "C" __global__ void ${entry}(const ${s}* rhs, const ${st(indDtype, op)}* ind, ${s}* out, long long n, long long nIdx, long long blk, int m, MxDims shape, MxDims stride, const unsigned long long* bad, const long long* win) {
  ${UNSET}
  MX_GRID_LOOP(o, n) {
    long long t = o / blk;
    ${tupleC(indDtype)}
    if (win[off / blk] == t) out[off + o % blk] = rhs[o];
  }
}
`;
  });
}

/** Writes rhs (dense, `shape`) or a scalar into the window base + Σ coord·strides of out. */
function windowSource(op: string, dtype: DTypeName, scalar: boolean) {
  return source(op, `${dtype}|${scalar}`, (entry) => {
    const s = st(dtype, op);
    const [castDef, cast] = castFromDouble(dtype, op);
    const value = scalar ? toStore(dtype, `${cast}(value)`) : 'rhs[e]';
    return `${castDef}extern "C" __global__ void ${entry}(const ${s}* rhs, ${s}* out, long long n, int nd, MxDims shape, MxDims stride, long long base, double value) {
  MX_GRID_LOOP(e, n) {
    long long r = e, p = base;
    for (int d = nd - 1; d >= 0; d--) { long long c = r % shape.v[d]; r /= shape.v[d]; p += c * stride.v[d]; }
    out[p] = ${value};
  }
}
`;
  });
}

function toStore(dtype: DTypeName, v: string): string {
  return storeC(dtype, 'X', '0', v, false)
    .replace(/^X\[0\] = /, '')
    .replace(/;$/, '');
}

/** Whether byte ranges [a, a + n) and [b, b + m) intersect. */
export const overlaps = (a: number, n: number, b: number, m: number): boolean => a < b + m && b < a + n;

/** The tuple geometry of indices (M, N...) into `shape`: per-row size and stride, block size. */
function tuples(op: string, ind: CudaBlob, shape: readonly number[], others: readonly CudaBlob[]) {
  const m = ind.shape[0] as number;
  if (ind.shape.length === 0 || m > shape.length) {
    throw new MXNetError(`indices of shape [${ind.shape}] index more axes than the array has`, {
      op,
      shapes: [ind.shape, ...others.map((b) => b.shape)],
      device: DEVICE,
      hint: 'indices must have shape (M, ...) with M <= ndim of the data',
    });
  }
  checkRank(op, [shape], m);
  if (ind.dtype === 'float16' || ind.dtype === 'bfloat16') {
    throw new MXNetError(`index arrays of ${ind.dtype} are not supported`, {
      op,
      dtypes: [ind.dtype],
      device: DEVICE,
      hint: 'use an integer index array',
    });
  }
  const strides = denseStrides(shape);
  return {
    m,
    nIdx: prod(ind.shape, 1),
    blk: prod(shape, m),
    shape: shape.slice(0, m),
    stride: strides.slice(0, m),
  };
}

type OptIdx = readonly (number | null)[];
interface SliceAttrs {
  readonly begin: OptIdx;
  readonly end: OptIdx;
  readonly step: OptIdx;
}

/** Output shape of `slice` on `shape` (cpu-wasm's sliceShape). */
export function sliceShape(shape: readonly number[], a: SliceAttrs): number[] {
  const s0 = sliceStart(shape, a.begin, a.step);
  return shape.map((len, i) => {
    if (i >= a.begin.length) return len;
    const s = s0.s[i] as number;
    const b = s0.b[i] as number;
    let e = a.end[i] ?? (s < 0 ? -1 : len);
    if (e < 0 && a.end[i] !== null && a.end[i] !== undefined) e += len;
    e = Math.min(Math.max(e, -1), len);
    if (len === 0 || b < 0 || b > len - 1) return 0;
    if (s > 0) return e > b ? Math.floor((e - b - 1) / s) + 1 : 0;
    return e < b ? Math.floor((b - e - 1) / -s) + 1 : 0;
  });
}

/** The window of `slice(begin, end, step)` of `shape`: first element offset and strides. */
export function sliceWindow(shape: readonly number[], a: SliceAttrs): { base: number; strides: number[] } {
  const st0 = denseStrides(shape);
  const { b, s } = sliceStart(shape, a.begin, a.step);
  return {
    base: b.reduce((acc, v, i) => acc + v * (st0[i] as number), 0),
    strides: st0.map((v, i) => v * (s[i] as number)),
  };
}

export function installNpIndexing(registry: OpRegistry, host: CudaHost): void {
  const reg = (
    name: string,
    compute: Parameters<typeof cudaKernel>[2],
    dtypes: readonly DTypeName[] = CUDA_DTYPES,
  ) => {
    if (registry.has(name)) registry.registerKernel(name, CUDA, cudaKernel(host, name, compute, dtypes));
  };

  reg('gather_nd', (_a, [data, ind], req, [out]) => {
    const op = 'gather_nd';
    if (data === undefined || ind === undefined || out === undefined || skip(req[0])) return;
    const t = tuples(op, ind, data.shape, [data]);
    if (out.size === 0) return;
    const bad = boundsCheck(host.rt, op, ind, t, [ind.shape, data.shape]);
    const src = gatherSource(out.dtype, ind.dtype, isAdd(req[0]));
    launch1d(host.rt, src, out.size, [
      ptr(data, op),
      ptr(ind, op),
      ptr(out, op),
      i64(out.size),
      i64(t.nIdx),
      i64(t.blk),
      i32(t.m),
      dims(t.shape),
      dims(t.stride),
      { t: 'ptr', v: bad },
    ]);
  });

  const SCATTER_ADD = CUDA_DTYPES.filter((t) => t !== 'float16' && t !== 'bfloat16' && t !== 'bool');
  reg(
    '_backward_gather_nd',
    (_a, [g, ind], req, [out]) => {
      const op = '_backward_gather_nd';
      if (g === undefined || ind === undefined || out === undefined || skip(req[0])) return;
      const t = tuples(op, ind, out.shape, [g]);
      if (out.size === 0) return;
      const rt = host.rt;
      const bad = boundsCheck(rt, op, ind, t, [ind.shape, out.shape]);
      const acc = rt.temp(out.size * 8);
      rt.memset(acc, 0, out.size * 8);
      launch1d(rt, scatterAddSource(out.dtype, ind.dtype), g.size, [
        ptr(g, op),
        ptr(ind, op),
        { t: 'ptr', v: acc },
        i64(g.size),
        i64(t.nIdx),
        i64(t.blk),
        i32(t.m),
        dims(t.shape),
        dims(t.stride),
        { t: 'ptr', v: bad },
      ]);
      launch1d(rt, finishSource(out.dtype, isAdd(req[0])), out.size, [
        { t: 'ptr', v: acc },
        ptr(out, op),
        i64(out.size),
      ]);
    },
    SCATTER_ADD,
  );

  reg('_scatter_set_nd', (_a, [lhs, rhs, ind], req, [out]) => {
    const op = '_scatter_set_nd';
    if (lhs === undefined || rhs === undefined || ind === undefined || out === undefined || skip(req[0]))
      return;
    refuseAdd(op, req[0], [lhs.shape, rhs.shape, ind.shape]);
    const t = tuples(op, ind, lhs.shape, [lhs, rhs]);
    const rt = host.rt;
    const bytes = ctype(rhs.dtype, op).bytes;
    let rhsAddr = rhs.size === 0 ? 0 : addr(rhs, op);
    if (
      rhs.size > 0 &&
      out.size > 0 &&
      overlaps(rhsAddr, rhs.size * bytes, addr(out, op), out.size * bytes)
    ) {
      const staged = rt.temp(rhs.size * bytes);
      rt.copy(staged, rhsAddr, rhs.size * bytes);
      rhsAddr = staged;
    }
    const bad = boundsCheck(rt, op, ind, t, [ind.shape, lhs.shape]);
    copyBase(rt, lhs, out, op);
    if (rhs.size === 0) return;
    // Duplicate tuples: the last one wins, as in NumPy (see scatterWinnerSource).
    const targets = prod(t.shape);
    const win = rt.temp(targets * 8);
    rt.memset(win, 0xff, targets * 8);
    const geometry = [i64(t.nIdx), i64(t.blk), i32(t.m), dims(t.shape), dims(t.stride)];
    launch1d(rt, scatterWinnerSource(ind.dtype), t.nIdx, [
      { t: 'ptr', v: win },
      ptr(ind, op),
      ...geometry,
      { t: 'ptr', v: bad },
    ]);
    launch1d(rt, scatterSetSource(out.dtype, ind.dtype), rhs.size, [
      { t: 'ptr', v: rhsAddr },
      ptr(ind, op),
      ptr(out, op),
      i64(rhs.size),
      i64(t.nIdx),
      i64(t.blk),
      i32(t.m),
      dims(t.shape),
      dims(t.stride),
      { t: 'ptr', v: bad },
      { t: 'ptr', v: win },
    ]);
  });

  reg('_slice_assign', (a, [lhs, rhs], req, [out]) => {
    const op = '_slice_assign';
    if (lhs === undefined || rhs === undefined || out === undefined || skip(req[0])) return;
    refuseAdd(op, req[0], [lhs.shape, rhs.shape]);
    checkRank(op, [lhs.shape], lhs.shape.length);
    const rt = host.rt;
    const bytes = ctype(rhs.dtype, op).bytes;
    // rhs may overlap out (x[1:] = x[:-1]): stage it in scratch before out is written at all
    // (threads of the window write would otherwise read elements others already overwrote).
    let rhsAddr = rhs.size === 0 ? 0 : addr(rhs, op);
    if (
      rhs.size > 0 &&
      out.size > 0 &&
      overlaps(rhsAddr, rhs.size * bytes, addr(out, op), out.size * bytes)
    ) {
      const staged = rt.temp(rhs.size * bytes);
      rt.copy(staged, rhsAddr, rhs.size * bytes);
      rhsAddr = staged;
    }
    copyBase(rt, lhs, out, op);
    if (rhs.size === 0) return;
    const w = sliceWindow(lhs.shape, a as unknown as SliceAttrs);
    launch1d(rt, windowSource(op, out.dtype, false), rhs.size, [
      { t: 'ptr', v: rhsAddr },
      ptr(out, op),
      i64(rhs.size),
      i32(rhs.shape.length),
      dims(rhs.shape),
      dims(w.strides),
      i64(w.base),
      f64(0),
    ]);
  });

  reg('_slice_assign_scalar', (a, [data], req, [out]) => {
    const op = '_slice_assign_scalar';
    if (data === undefined || out === undefined || skip(req[0])) return;
    refuseAdd(op, req[0], [data.shape]);
    checkRank(op, [data.shape], data.shape.length);
    copyBase(host.rt, data, out, op);
    const attrs = a as unknown as SliceAttrs & { scalar: number };
    const shape = sliceShape(data.shape, attrs);
    const n = prod(shape);
    if (n === 0) return;
    const w = sliceWindow(data.shape, attrs);
    launch1d(host.rt, windowSource(op, out.dtype, true), n, [
      ptr(out, op),
      ptr(out, op),
      i64(n),
      i32(shape.length),
      dims(shape),
      dims(w.strides),
      i64(w.base),
      f64(attrs.scalar),
    ]);
  });
}
