/**
 * np reductions with kernels of their own (`_npi_sum`/`prod`/`mean` are in value-reduce.ts over the
 * reduce family's engine, `_npi_max`/`min` composites over its kernels): `_npi_all` / `_npi_any`, `_npi_std` / `_npi_var` (two passes in double
 * per lane, as cpu-wasm's NumPy `_var`) with their gradients, and `_npi_diff` / `_backward_npi_diff`.
 * One thread per output lane: the lane walk (kept axes → base offset, reduced axes → lane offsets)
 * is cpu-wasm's `lanesOf` done by index arithmetic on the device. Fine for the lane counts np calls
 * produce; a block-per-lane reduction is a later optimisation.
 */
import { type DTypeName, MXNetError } from '@mx/base';
import type { OpRegistry, OpReqType } from '@mx/ops';
import { loadC } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import {
  castFromDouble,
  checkRank,
  DEVICE,
  denseStrides,
  dims,
  f64,
  i32,
  i64,
  isAdd,
  kc,
  launch1d,
  ptr,
  skip,
  source,
  st,
  storeC,
} from './common.js';

export const NP_REDUCE_DTYPES: readonly DTypeName[] = [
  'float32',
  'float64',
  'int8',
  'uint8',
  'int32',
  'int64',
  'bool',
];

/** Kept and reduced axes of `shape` (axis null: all), with their extents and strides. */
export function lanes(shape: readonly number[], axis: readonly number[] | null) {
  const nd = shape.length;
  const red = new Set(axis === null ? shape.map((_, i) => i) : axis.map((a) => (a < 0 ? a + nd : a)));
  const strides = denseStrides(shape);
  const pick = (keep: boolean) => shape.map((_, i) => i).filter((i) => red.has(i) !== keep);
  const kept = pick(true);
  const lane = pick(false);
  return {
    keptShape: kept.map((i) => shape[i] as number),
    keptStride: kept.map((i) => strides[i] as number),
    laneShape: lane.map((i) => shape[i] as number),
    laneStride: lane.map((i) => strides[i] as number),
    nKept: kept.reduce((p, i) => p * (shape[i] as number), 1),
    nLane: lane.reduce((p, i) => p * (shape[i] as number), 1),
  };
}

/** C declaring `base` (offset of output lane o) and a macro-free lane offset function. */
const LANE_C = `static __device__ __forceinline__ long long mx_off(long long r, int n, const MxDims& shape, const MxDims& stride) {
  long long p = 0;
  for (int d = n - 1; d >= 0; d--) { p += (r % shape.v[d]) * stride.v[d]; r /= shape.v[d]; }
  return p;
}
`;
const LANE_PARAMS =
  'long long nKept, long long nLane, int kd, MxDims ks, MxDims kst, int ld, MxDims ls, MxDims lst';

function laneArgs(shape: readonly number[], axis: readonly number[] | null, op: string) {
  checkRank(op, [shape], shape.length);
  const l = lanes(shape, axis);
  return {
    l,
    args: [
      i64(l.nKept),
      i64(l.nLane),
      i32(l.keptShape.length),
      dims(l.keptShape),
      dims(l.keptStride),
      i32(l.laneShape.length),
      dims(l.laneShape),
      dims(l.laneStride),
    ],
  };
}

function allAnySource(op: string, all: boolean, xt: DTypeName, yt: DTypeName, add: boolean) {
  return source(op, `${xt}|${yt}|${add}`, (entry) => {
    return `${LANE_C}extern "C" __global__ void ${entry}(const ${st(xt, op)}* x, ${st(yt, op)}* y, ${LANE_PARAMS}) {
  MX_GRID_LOOP(o, nKept) {
    long long base = mx_off(o, kd, ks, kst);
    bool res = ${all};
    for (long long k = 0; k < nLane; k++) {
      bool t = ${loadC('x', xt, 'base + mx_off(k, ld, ls, lst)')} != 0;
      if (t != ${all}) { res = ${!all}; break; }
    }
    ${storeC(yt, 'y', 'o', `(${kc(yt, op)})(res ? 1 : 0)`, add)}
  }
}
`;
  });
}

function momentsSource(
  op: string,
  isStd: boolean,
  xt: DTypeName,
  yt: DTypeName,
  mt: DTypeName,
  addY: boolean,
  addM: boolean,
  wantMean: boolean,
) {
  return source(op, `${xt}|${yt}|${mt}|${addY}|${addM}|${wantMean}`, (entry) => {
    const [cy, fy] = castFromDouble(yt, op);
    const [cm, fm] = castFromDouble(mt, op);
    const casts = cy === cm ? cy : cy + cm;
    return `${LANE_C}${casts}extern "C" __global__ void ${entry}(const ${st(xt, op)}* x, ${st(yt, op)}* y, ${st(mt, op)}* mo, double ddof, ${LANE_PARAMS}) {
  MX_GRID_LOOP(o, nKept) {
    long long base = mx_off(o, kd, ks, kst);
    double s = 0.0;
    for (long long k = 0; k < nLane; k++) s += (double)${loadC('x', xt, 'base + mx_off(k, ld, ls, lst)')};
    double m = s / (double)nLane;
    double q = 0.0;
    for (long long k = 0; k < nLane; k++) { double d = (double)${loadC('x', xt, 'base + mx_off(k, ld, ls, lst)')} - m; q += d * d; }
    double div = fmax((double)nLane - ddof, 0.0);
    double v = q / div;
    ${isStd ? 'v = sqrt(v);' : ''}
    ${storeC(yt, 'y', 'o', `${fy}(v)`, addY)}
    ${wantMean ? storeC(mt, 'mo', 'o', `${fm}(m)`, addM) : ''}
  }
}
`;
  });
}

function momentsGradSource(
  op: string,
  isStd: boolean,
  gt: DTypeName,
  xt: DTypeName,
  dt: DTypeName,
  add: boolean,
) {
  return source(op, `${gt}|${xt}|${dt}|${add}`, (entry) => {
    const [cd, fd] = castFromDouble(dt, op);
    return `${LANE_C}${cd}extern "C" __global__ void ${entry}(const ${st(gt, op)}* g, const ${st(xt, op)}* x, const ${st(gt, op)}* s, const ${st(gt, op)}* mu, ${st(dt, op)}* dx, double ddof, ${LANE_PARAMS}) {
  MX_GRID_LOOP(o, nKept) {
    long long base = mx_off(o, kd, ks, kst);
    double div = fmax((double)nLane - ddof, 0.0);
    double go = (double)${loadC('g', gt, 'o')};
    double c = ${isStd ? `go / (div * (double)${loadC('s', gt, 'o')})` : '2.0 * go / div'};
    double m = (double)${loadC('mu', gt, 'o')};
    for (long long k = 0; k < nLane; k++) {
      long long p = base + mx_off(k, ld, ls, lst);
      ${storeC(dt, 'dx', 'p', `${fd}(c * ((double)${loadC('x', xt, 'p')} - m))`, add)}
    }
  }
}
`;
  });
}

/** Most differences one thread keeps in registers (NumPy diff orders above are rare). */
const MAX_DIFF = 32;

function diffSource(dtype: DTypeName, add: boolean) {
  const op = '_npi_diff';
  return source(op, `${dtype}|${add}`, (entry) => {
    const k = kc(dtype, op);
    return `extern "C" __global__ void ${entry}(const ${st(dtype, op)}* x, ${st(dtype, op)}* y, long long n, long long len, long long inner, long long m, int order) {
  MX_GRID_LOOP(e, n) {
    long long i = e % inner, j = (e / inner) % m, o = e / (inner * m);
    ${k} w[${MAX_DIFF + 1}];
    for (int t = 0; t <= order; t++) w[t] = ${loadC('x', dtype, '(o * len + j + t) * inner + i')};
    for (int s = 1; s <= order; s++) for (int t = 0; t <= order - s; t++) w[t] = (${k})(w[t + 1] - w[t]);
    ${storeC(dtype, 'y', 'e', 'w[0]', add)}
  }
}
`;
  });
}

function diffGradSource(dtype: DTypeName, add: boolean) {
  const op = '_backward_npi_diff';
  return source(op, `${dtype}|${add}`, (entry) => {
    return `extern "C" __global__ void ${entry}(const ${st(dtype, op)}* g, ${st(dtype, op)}* dx, long long n, long long len, long long inner, long long m, int order) {
  MX_GRID_LOOP(e, n) {
    long long i = e % inner, j = (e / inner) % len, o = e / (inner * len);
    double sum = 0.0, c = (order % 2 == 0) ? 1.0 : -1.0;
    for (int k = 0; k <= order; k++) {
      long long q = j - k;
      if (q >= 0 && q < m) sum += c * (double)${loadC('g', dtype, '(o * m + q) * inner + i')};
      c = -c * (double)(order - k) / (double)(k + 1);
    }
    ${storeC(dtype, 'dx', 'e', `(${kc(dtype, op)})sum`, add)}
  }
}
`;
  });
}

interface AxesAttrs {
  readonly axis: readonly number[] | null;
  readonly ddof?: number;
}
interface DiffAttrs {
  readonly n: number;
  readonly axis: number;
}

/** (outer, len, inner) of one axis of `shape`. */
function laneGeometry(shape: readonly number[], axis: number): [number, number, number] {
  const a = axis < 0 ? axis + shape.length : axis;
  let outer = 1;
  let inner = 1;
  for (let i = 0; i < a; i++) outer *= shape[i] as number;
  for (let i = a + 1; i < shape.length; i++) inner *= shape[i] as number;
  return [outer, shape[a] as number, inner];
}

export function installNpReduce(registry: OpRegistry, host: CudaHost): void {
  const reg = <A>(
    name: string,
    dtypes: readonly DTypeName[],
    compute: (a: A, ins: readonly CudaBlob[], req: readonly OpReqType[], outs: readonly CudaBlob[]) => void,
  ) => {
    if (registry.has(name)) {
      registry.registerKernel(
        name,
        CUDA,
        cudaKernel<A & Record<string, unknown>>(host, name, (a, i, r, o) => compute(a, i, r, o), dtypes),
      );
    }
  };

  for (const [name, all] of [
    ['_npi_all', true],
    ['_npi_any', false],
  ] as const) {
    reg<AxesAttrs>(name, NP_REDUCE_DTYPES, (a, [x], req, [y]) => {
      if (x === undefined || y === undefined || skip(req[0]) || y.size === 0) return;
      const { l, args } = laneArgs(x.shape, a.axis, name);
      launch1d(host.rt, allAnySource(name, all, x.dtype, y.dtype, isAdd(req[0])), l.nKept, [
        ptr(x, name),
        ptr(y, name),
        ...args,
      ]);
    });
  }

  for (const [name, back, isStd] of [
    ['_npi_std', '_backward_npi_std', true],
    ['_npi_var', '_backward_npi_var', false],
  ] as const) {
    reg<AxesAttrs>(name, NP_REDUCE_DTYPES, (a, [x], req, [y, mean]) => {
      if (x === undefined || y === undefined || y.size === 0) return;
      const wantY = !skip(req[0]);
      const wantMean = mean !== undefined && !skip(req[1]);
      if (!wantY && !wantMean) return;
      const { l, args } = laneArgs(x.shape, a.axis, name);
      // A skipped std/var output still gets written into scratch (one kernel writes both).
      const yBlob = wantY ? y : { ...y, ptr: host.rt.temp(y.size * 8), byteOffset: 0 };
      const mBlob = mean ?? y;
      const src = momentsSource(
        name,
        isStd,
        x.dtype,
        y.dtype,
        mBlob.dtype,
        isAdd(req[0]),
        isAdd(req[1]),
        wantMean,
      );
      launch1d(host.rt, src, l.nKept, [
        ptr(x, name),
        ptr(yBlob, name),
        ptr(mBlob, name),
        f64(a.ddof ?? 0),
        ...args,
      ]);
    });
    reg<AxesAttrs>(back, NP_REDUCE_DTYPES, (a, [g, x, s, mu], req, [dx]) => {
      if (g === undefined || x === undefined || s === undefined || mu === undefined || dx === undefined)
        return;
      if (skip(req[0]) || dx.size === 0) return;
      const { l, args } = laneArgs(x.shape, a.axis, back);
      launch1d(host.rt, momentsGradSource(back, isStd, g.dtype, x.dtype, dx.dtype, isAdd(req[0])), l.nKept, [
        ptr(g, back),
        ptr(x, back),
        ptr(s, back),
        ptr(mu, back),
        ptr(dx, back),
        f64(a.ddof ?? 0),
        ...args,
      ]);
    });
  }

  reg<DiffAttrs>(
    '_npi_diff',
    NP_REDUCE_DTYPES.filter((d) => d !== 'bool'),
    (a, [x], req, [y]) => {
      const op = '_npi_diff';
      if (x === undefined || y === undefined || skip(req[0]) || y.size === 0) return;
      if (a.n > MAX_DIFF) {
        throw new MXNetError(`a difference of order ${a.n} is more than the cuda kernel's ${MAX_DIFF}`, {
          op,
          params: { n: a.n, axis: a.axis },
          shapes: [x.shape],
          device: DEVICE,
          hint: `apply diff in steps of at most ${MAX_DIFF}`,
        });
      }
      const [, len, inner] = laneGeometry(x.shape, a.axis);
      const m = Math.max(0, len - a.n);
      launch1d(host.rt, diffSource(y.dtype, isAdd(req[0])), y.size, [
        ptr(x, op),
        ptr(y, op),
        i64(y.size),
        i64(len),
        i64(inner),
        i64(m),
        i32(a.n),
      ]);
    },
  );

  reg<DiffAttrs>('_backward_npi_diff', ['float32', 'float64'], (a, [g], req, [dx]) => {
    const op = '_backward_npi_diff';
    if (g === undefined || dx === undefined || skip(req[0]) || dx.size === 0) return;
    const [, len, inner] = laneGeometry(dx.shape, a.axis);
    const m = Math.max(0, len - a.n);
    launch1d(host.rt, diffGradSource(dx.dtype, isAdd(req[0])), dx.size, [
      ptr(g, op),
      ptr(dx, op),
      i64(dx.size),
      i64(len),
      i64(inner),
      i64(m),
      i32(a.n),
    ]);
  });
}
