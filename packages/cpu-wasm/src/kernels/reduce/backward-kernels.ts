/**
 * cpu-wasm kernels of the backward ops gradients are built from that sum or spread along axes:
 *
 * - `_broadcast_backward`, `_backward_tile`, `_backward_repeat`: a sum reduction of the gradient
 *   viewed in a shape that exposes the copies as axes (the broadcast axes; (r0, d0, r1, d1, ...)
 *   for tile; (.., d, r, ..) for repeat), run by the value reductions' driver (`reduceInto`: wasm
 *   SIMD loops, worker pool, req). Equal shapes make `_broadcast_backward` one byte copy.
 * - `_backward_sum` / `_backward_mean`: the head gradient broadcast back over the reduced axes, one
 *   strided copy with stride 0 on them (mean divides the small head gradient by the count first).
 * - `_backward_topk`: a scatter-add of ograd at the sort/topk indices along the axis.
 * - `_backward_dot`: dot's two gradient products, run by the registered `dot` kernel (the GEMM
 *   engine) on MXNet's 2-D views of ograd, lhs and rhs, so no transpose is materialised.
 */
import { DType, type DTypeName, MXNetError, shapeSize } from '@mx/base';
import { type Attrs, type Kernel, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { fillDense, readIndices } from '../shape/dtype-bits.js';
import { copyStrided, dense, denseStrides } from '../shape/strided-copy.js';
import { REDUCE_DTYPES, unsupportedDType } from './convert.js';
import { laneGeometry } from './index-kernels.js';
import { reducedFlags } from './plan.js';
import { reduceInto } from './value-kernels.js';

type Blob = TBlob<number>;
const BACKEND = 'cpu-wasm';

/** Axes of `grad` that NumPy broadcasting added or stretched to reach it from `like`. */
export function broadcastFlags(grad: readonly number[], like: readonly number[]): boolean[] {
  const off = grad.length - like.length;
  return grad.map((d, i) => {
    const l = i - off < 0 ? 1 : (like[i - off] as number);
    return l === 1 && d !== 1;
  });
}

/** Sum `x` viewed as `shape` over the flagged axes into `y` (same element order), honouring req. */
function sumView(
  rt: CpuWasmRuntime,
  op: string,
  x: Blob,
  shape: readonly number[],
  flags: readonly boolean[],
  y: Blob,
  req: OpReqType,
): void {
  if (!REDUCE_DTYPES.includes(x.dtype)) throw unsupportedDType(op, x.dtype, REDUCE_DTYPES);
  reduceInto(rt, op, 'sum', 'none', { ...x, shape: [...shape] }, y, flags, req);
}

/** Copy a dense blob into another of the same size with req (write/inplace or add). */
function copyDense(rt: CpuWasmRuntime, src: Blob, dst: Blob, req: OpReqType): void {
  if (req === OpReq.null || dst.size === 0) return;
  const a = rt.address(src);
  const b = rt.address(dst);
  if (a === b && req !== OpReq.add) return;
  copyStrided(rt, dst.dtype, [dst.size], dense(a, [dst.size]), dense(b, [dst.size]), req);
}

/** Divide `n` values of `dtype` at byte `src` by `count` into `dst` (ints truncate, as C++). */
function divideInto(
  rt: CpuWasmRuntime,
  dtype: DTypeName,
  src: number,
  dst: number,
  n: number,
  count: number,
) {
  const s = rt.memory.view(dtype, src, n) as unknown as (number | bigint)[];
  const d = rt.memory.view(dtype, dst, n) as unknown as (number | bigint)[];
  if (dtype === 'int64') {
    const c = BigInt(count);
    for (let i = 0; i < n; i++) d[i] = count === 0 ? 0n : (s[i] as bigint) / c;
  } else if (dtype === 'float32' || dtype === 'float64') {
    for (let i = 0; i < n; i++) d[i] = (s[i] as number) / count;
  } else {
    for (let i = 0; i < n; i++) d[i] = count === 0 ? 0 : Math.trunc((s[i] as number) / count);
  }
}

interface AxesAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly keepdims: boolean;
  readonly exclude: boolean;
}

/** `og` (a reduction's result) broadcast back over the reduced axes of `out`'s shape. */
function spreadInto(
  rt: CpuWasmRuntime,
  op: string,
  attrs: AxesAttrs,
  og: Blob,
  out: Blob,
  req: OpReqType,
  mean: boolean,
): void {
  if (req === OpReq.null || out.size === 0) return;
  if (!REDUCE_DTYPES.includes(og.dtype)) throw unsupportedDType(op, og.dtype, REDUCE_DTYPES);
  const shape = out.shape;
  const flags = reducedFlags(shape.length, attrs.axis, attrs.exclude);
  // og's elements in the keepdims shape: reduced axes of size 1 (stride 0 when broadcast).
  const keep = shape.map((d, i) => (flags[i] ? 1 : d));
  const st = denseStrides(keep).map((s, i) => (flags[i] ? 0 : s));
  let src = rt.address(og);
  let tmp: number | null = null;
  const bytes = og.size * DType[og.dtype].bytes;
  if (mean && og.size > 0) {
    tmp = rt.memory.allocator.alloc(bytes);
    if (tmp === null)
      throw new MXNetError(`out of memory for a ${bytes}-byte scratch block`, { op, device: BACKEND });
    divideInto(rt, og.dtype, src, tmp, og.size, out.size / og.size);
    src = tmp;
  }
  try {
    copyStrided(rt, out.dtype, shape, { addr: src, strides: st }, dense(rt.address(out), shape), req);
  } finally {
    if (tmp !== null) rt.memory.allocator.free(tmp, bytes);
  }
}

interface TopKAttrs extends Attrs {
  readonly axis: number | null;
}

/** out = zeros (unless req is add); out[lane, idx[lane, j]] += og[lane, j] along the axis. */
function topkScatter(rt: CpuWasmRuntime, attrs: TopKAttrs, og: Blob, ind: Blob, out: Blob, req: OpReqType) {
  if (req === OpReq.null || out.size === 0) return;
  if (!REDUCE_DTYPES.includes(og.dtype)) throw unsupportedDType('_backward_topk', og.dtype, REDUCE_DTYPES);
  const base = rt.address(out);
  if (req !== OpReq.add) fillDense(rt, out.dtype, base, out.size, 0);
  if (og.size === 0) return;
  const [outer, n, inner] = laneGeometry(out.shape, attrs.axis);
  const k = og.size / (outer * inner);
  const idx = readIndices(rt, ind.dtype, rt.address(ind), ind.size);
  const g = rt.view(og) as unknown as (number | bigint)[];
  const o = rt.memory.view(out.dtype, base, out.size) as unknown as (number | bigint)[];
  const big = DType[out.dtype].bigint;
  for (let a = 0; a < outer; a++) {
    for (let j = 0; j < k; j++) {
      for (let i = 0; i < inner; i++) {
        const p = (a * k + j) * inner + i;
        const src = idx[p] as number;
        if (!(src >= 0 && src < n)) {
          throw new MXNetError(`index ${src} at position ${p} is outside [0, ${n})`, {
            op: '_backward_topk',
            params: attrs,
            shapes: [og.shape, ind.shape, out.shape],
            device: BACKEND,
            hint: 'pass the indices topk/sort returned for this data',
          });
        }
        const q = (a * n + src) * inner + i;
        if (big) o[q] = (o[q] as bigint) + (g[p] as bigint);
        else o[q] = (o[q] as number) + (g[p] as number);
      }
    }
  }
}

interface DotAttrs extends Attrs {
  readonly transpose_a: boolean;
  readonly transpose_b: boolean;
}

const prod = (s: readonly number[], from = 0, to = s.length) => {
  let n = 1;
  for (let i = from; i < to; i++) n *= s[i] as number;
  return n;
};

/** The blob with a new (same-size) shape. */
const as2d = (b: Blob, rows: number, cols: number): Blob => ({ ...b, shape: [rows, cols] });

export function installReduceBackward(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const reg = <A extends Attrs>(name: string, dtypes: readonly DTypeName[], compute: Kernel<A>['compute']) =>
    registry.registerKernel<A>(name, BACKEND, { dtypes, compute } as Kernel<A>);

  reg('_broadcast_backward', REDUCE_DTYPES, (_a, _ctx, inputs, req, outputs) => {
    const g = inputs[0] as Blob;
    const out = outputs[0] as Blob;
    const r = req[0] as OpReqType;
    if (g.size === out.size) {
      // Same element count: only size-1 axes differ, so the sum is the identity (a copy).
      copyDense(rt, g, out, r);
      return;
    }
    sumView(rt, '_broadcast_backward', g, g.shape, broadcastFlags(g.shape, out.shape), out, r);
  });

  reg<{ reps: readonly number[] } & Attrs>(
    '_backward_tile',
    REDUCE_DTYPES,
    (a, _ctx, inputs, req, outputs) => {
      const g = inputs[0] as Blob;
      const out = outputs[0] as Blob;
      const d = out.shape;
      const n = Math.max(d.length, a.reps.length);
      const dims = Array.from({ length: n }, (_, i) =>
        i < n - d.length ? 1 : (d[i - (n - d.length)] as number),
      );
      const reps = Array.from({ length: n }, (_, i) =>
        i < n - a.reps.length ? 1 : (a.reps[i - (n - a.reps.length)] as number),
      );
      // The gradient (r0*d0, r1*d1, ...) is the dense (r0, d0, r1, d1, ...): sum the r axes.
      const shape = dims.flatMap((x, i) => [reps[i] as number, x]);
      const flags = dims.flatMap(() => [true, false]);
      sumView(rt, '_backward_tile', g, shape, flags, out, req[0] as OpReqType);
    },
  );

  reg<{ repeats: number; axis: number | null } & Attrs>(
    '_backward_repeat',
    REDUCE_DTYPES,
    (a, _ctx, inputs, req, outputs) => {
      const g = inputs[0] as Blob;
      const out = outputs[0] as Blob;
      const d = out.shape;
      let shape: number[];
      let flags: boolean[];
      if (a.axis === null) {
        shape = [out.size, a.repeats];
        flags = [false, true];
      } else {
        const ax = a.axis < 0 ? a.axis + d.length : a.axis;
        shape = [...d.slice(0, ax + 1), a.repeats, ...d.slice(ax + 1)];
        flags = shape.map((_, i) => i === ax + 1);
      }
      sumView(rt, '_backward_repeat', g, shape, flags, out, req[0] as OpReqType);
    },
  );

  for (const [name, mean] of [
    ['_backward_sum', false],
    ['_backward_mean', true],
  ] as const) {
    reg<AxesAttrs>(name, REDUCE_DTYPES, (a, _ctx, inputs, req, outputs) =>
      spreadInto(rt, name, a, inputs[0] as Blob, outputs[0] as Blob, req[0] as OpReqType, mean),
    );
  }

  reg<TopKAttrs>('_backward_topk', REDUCE_DTYPES, (a, _ctx, inputs, req, outputs) =>
    topkScatter(rt, a, inputs[0] as Blob, inputs[1] as Blob, outputs[0] as Blob, req[0] as OpReqType),
  );

  let dot: Kernel | undefined;
  reg<DotAttrs>('_backward_dot', ['float32', 'float64'], (p, ctx, inputs, req, outputs) => {
    dot ??= registry.kernel(registry.get('dot'), BACKEND);
    const run = dot?.compute;
    if (run === undefined)
      throw new MXNetError('the dot kernel is not installed', { op: '_backward_dot', device: BACKEND });
    const [dc, A, B] = inputs as readonly Blob[];
    const [dA, dB] = outputs as readonly Blob[];
    if (dc === undefined || A === undefined || B === undefined || dA === undefined || dB === undefined)
      throw new MXNetError('_backward_dot needs 3 inputs and 2 outputs', { op: '_backward_dot' });
    const ta = p.transpose_a;
    const tb = p.transpose_b;
    const la = A.shape;
    const lb = B.shape;
    // MXNet's 2-D views: A stored (ma, na), B stored (mb, nb), C = op(A)·op(B) is (m, n).
    const ma = ta ? (la[0] as number) : prod(la, 0, la.length - 1);
    const na = ta ? prod(la, 1) : (la[la.length - 1] as number);
    const mb = tb ? prod(lb, 0, lb.length - 1) : (lb[0] as number);
    const nb = tb ? (lb[lb.length - 1] as number) : prod(lb, 1);
    const m = ta ? na : ma;
    const n = tb ? mb : nb;
    if (shapeSize(dc.shape) !== m * n)
      throw new MXNetError(`ograd has ${dc.size} elements but the product has ${m * n}`, {
        op: '_backward_dot',
        shapes: [dc.shape, la, lb],
      });
    const C = as2d(dc, m, n);
    const A2 = as2d(A, ma, na);
    const B2 = as2d(B, mb, nb);
    const mul = (x: Blob, y: Blob, xt: boolean, yt: boolean, o: Blob, r: OpReqType | undefined) => {
      if (r === undefined || r === OpReq.null) return;
      run({ transpose_a: xt, transpose_b: yt, forward_stype: null }, ctx, [x, y], [r], [o]);
    };
    const oA = as2d(dA, ma, na);
    const oB = as2d(dB, mb, nb);
    // The table in @mx/ops defs/linalg/dot.ts, on the 2-D views.
    if (!ta && !tb) {
      mul(C, B2, false, true, oA, req[0]);
      mul(A2, C, true, false, oB, req[1]);
    } else if (ta && !tb) {
      mul(B2, C, false, true, oA, req[0]);
      mul(A2, C, false, false, oB, req[1]);
    } else if (!ta && tb) {
      mul(C, B2, false, false, oA, req[0]);
      mul(C, A2, true, false, oB, req[1]);
    } else {
      mul(B2, C, true, true, oA, req[0]);
      mul(C, A2, true, true, oB, req[1]);
    }
  });
}
