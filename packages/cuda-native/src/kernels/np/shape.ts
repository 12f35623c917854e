/**
 * np shape kernels of their own (the other np shape ops are composites over other families'
 * kernels): `_npi_roll`, `_npi_repeats`, `_npi_pad` (constant/edge/reflect/symmetric through the
 * axis-map gather; maximum/minimum then fill each axis's padding with its lines' statistic, in
 * NumPy's axis order) and `_npi_rot90` (identity maps over signed strides), plus the adjoints
 * `_backward_npi_repeats` / `_backward_npi_pad` (axis-map scatter). The maps are cpu-wasm's
 * (np/shape/index.ts), written out as one input index per output coordinate.
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import { CUDA_DTYPES, ctype, loadC } from '../../cuda-c.js';
import { CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import { type AxisMap, gatherAxes, scatterAxes } from './axis-map.js';
import { denseStrides, dims, i32, i64, isAdd, launch1d, ptr, skip, source, st, storeC } from './common.js';

const norm = (a: number, n: number) => (a < 0 ? a + n : a);
const identity = (n: number) => Array.from({ length: n }, (_, j) => j);

interface RollAttrs {
  readonly shift: readonly number[] | null;
  readonly axis: readonly number[] | null;
}

/** The input seen as `view` and each axis's index map, for roll. */
export function rollPlan(a: RollAttrs, shape: readonly number[]): { view: number[]; maps: number[][] } {
  const shift = a.shift ?? [0];
  const view = a.axis === null ? [shape.reduce((p, d) => p * d, 1)] : [...shape];
  const shifts = new Array<number>(view.length).fill(0);
  if (a.axis === null) shifts[0] = shift.reduce((p, s) => p + s, 0);
  else {
    const n = Math.max(shift.length, a.axis.length);
    for (let i = 0; i < n; i++) {
      const ax = norm((a.axis.length === 1 ? a.axis[0] : a.axis[i]) as number, view.length);
      shifts[ax] = (shifts[ax] as number) + ((shift.length === 1 ? shift[0] : shift[i]) as number);
    }
  }
  const maps = view.map((n, i) => {
    if (n === 0) return [];
    const s = (((shifts[i] as number) % n) + n) % n;
    return Array.from({ length: n }, (_, j) => (j - s + n) % n);
  });
  return { view, maps };
}

interface RepeatsAttrs {
  readonly repeats: readonly number[];
  readonly axis: number | null;
}

/** The input seen as `view`, the output as `outView`, and the index maps, for repeats. */
export function repeatsPlan(
  a: RepeatsAttrs,
  shape: readonly number[],
): { view: number[]; outView: number[]; maps: number[][] } {
  const view = a.axis === null ? [shape.reduce((p, d) => p * d, 1)] : [...shape];
  const ax = a.axis === null ? 0 : norm(a.axis, view.length);
  const n = view[ax] as number;
  const counts = a.repeats.length === 1 ? new Array<number>(n).fill(a.repeats[0] as number) : [...a.repeats];
  const map: number[] = [];
  counts.forEach((r, i) => {
    for (let k = 0; k < r; k++) map.push(i);
  });
  const outView = [...view];
  outView[ax] = map.length;
  return { view, outView, maps: view.map((d, i) => (i === ax ? map : identity(d))) };
}

type PadMode = 'constant' | 'edge' | 'reflect' | 'symmetric' | 'maximum' | 'minimum';
interface PadAttrs {
  readonly pad_width: readonly (readonly number[])[];
  readonly mode: PadMode;
  readonly constant_values: number;
}

/** (before, after) per axis (the definition's broadcasting of pad_width, already checked). */
export function padRowsOf(pw: readonly (readonly number[])[], ndim: number): [number, number][] {
  if (ndim === 1 && pw.length === 2 && pw.every((r) => r.length === 1))
    return [[pw[0]?.[0] as number, pw[1]?.[0] as number]];
  const rows = pw.map((r) => [r[0] as number, (r.length === 1 ? r[0] : r[1]) as number] as [number, number]);
  return rows.length === 1 ? Array.from({ length: ndim }, () => rows[0] as [number, number]) : rows;
}

/** Per-axis index maps of pad (maximum/minimum read the interior like constant). */
export function padMaps(a: PadAttrs, shape: readonly number[]): number[][] {
  const rows = padRowsOf(a.pad_width, shape.length);
  return shape.map((n, i) => {
    const [b, e] = rows[i] as [number, number];
    return Array.from({ length: n + b + e }, (_, j) => {
      const k = j - b;
      switch (a.mode) {
        case 'edge':
          return Math.min(Math.max(k, 0), n - 1);
        case 'reflect': {
          if (n === 1) return 0;
          const per = 2 * (n - 1);
          const m = ((k % per) + per) % per;
          return m < n ? m : per - m;
        }
        case 'symmetric': {
          const per = 2 * n;
          const m = ((k % per) + per) % per;
          return m < n ? m : per - 1 - m;
        }
        default:
          return k >= 0 && k < n ? k : -1;
      }
    });
  });
}

const withStrides = (maps: readonly number[][], shape: readonly number[]): AxisMap[] => {
  const s = denseStrides(shape);
  return maps.map((index, d) => ({ index, stride: s[d] as number }));
};

/** Each line of axis `ax` copies its interior's max/min (NaN wins) into its padding. */
function padStatSource(dtype: DTypeName, isMax: boolean) {
  const op = '_npi_pad';
  return source(op, `stat|${dtype}|${isMax}`, (entry) => {
    const s = st(dtype, op);
    return `extern "C" __global__ void ${entry}(${s}* t, long long lines, int nd, int ax, MxDims lo, MxDims ext, MxDims stride, long long b, long long e, long long n) {
  MX_GRID_LOOP(l, lines) {
    long long r = l, base = 0;
    for (int d = nd - 1; d >= 0; d--) {
      if (d == ax) continue;
      long long c = lo.v[d] + r % ext.v[d];
      r /= ext.v[d];
      base += c * stride.v[d];
    }
    long long s = stride.v[ax];
    long long best = base + b * s;
    auto bv = ${loadC('t', dtype, 'best')};
    for (long long k = 1; k < n; k++) {
      if (bv != bv) break;
      long long at = base + (b + k) * s;
      auto v = ${loadC('t', dtype, 'at')};
      if (v != v || v ${isMax ? '>' : '<'} bv) { best = at; bv = v; }
    }
    ${s} bits = t[best];
    for (long long k = 0; k < b; k++) t[base + k * s] = bits;
    for (long long k = 0; k < e; k++) t[base + (b + n + k) * s] = bits;
  }
}
`;
  });
}

function accumulateSource(dtype: DTypeName) {
  const op = '_npi_pad';
  return source(op, `acc|${dtype}`, (entry) => {
    const s = st(dtype, op);
    return `extern "C" __global__ void ${entry}(const ${s}* t, ${s}* out, long long n) {
  MX_GRID_LOOP(i, n) { ${storeC(dtype, 'out', 'i', loadC('t', dtype, 'i'), true)} }
}
`;
  });
}

function padStats(host: CudaHost, a: PadAttrs, x: CudaBlob, out: CudaBlob, add: boolean): void {
  const op = '_npi_pad';
  const rt = host.rt;
  const bytes = ctype(out.dtype, op).bytes;
  const target: CudaBlob = add ? { ...out, ptr: rt.temp(out.size * bytes), byteOffset: 0 } : out;
  gatherAxes(rt, op, x, target, out.shape, withStrides(padMaps(a, x.shape), x.shape), false);
  const rows = padRowsOf(a.pad_width, x.shape.length);
  const nd = out.shape.length;
  const strides = denseStrides(out.shape);
  for (let ax = 0; ax < nd; ax++) {
    const [b, e] = rows[ax] as [number, number];
    if (b === 0 && e === 0) continue;
    // Lines of axis ax: every padded position of the axes before it, the interior of those after.
    const lo = out.shape.map((_, i) => (i > ax ? (rows[i] as [number, number])[0] : 0));
    const ext = out.shape.map((d, i) => (i < ax ? d : i > ax ? (x.shape[i] as number) : 1));
    const lines = ext.reduce((p, d) => p * d, 1);
    if (lines === 0 || (x.shape[ax] as number) === 0) continue;
    launch1d(rt, padStatSource(out.dtype, a.mode === 'maximum'), lines, [
      ptr(target, op),
      i64(lines),
      i32(nd),
      i32(ax),
      dims(lo),
      dims(ext),
      dims(strides),
      i64(b),
      i64(e),
      i64(x.shape[ax] as number),
    ]);
  }
  if (add)
    launch1d(rt, accumulateSource(out.dtype), out.size, [ptr(target, op), ptr(out, op), i64(out.size)]);
}

/** rot90 as (shape, signed strides, base offset) of the input read in output order. */
export function rot90View(k0: number, axes: readonly number[] | null, shape: readonly number[]) {
  const nd = shape.length;
  const ax = axes ?? [0, 1];
  const a0 = norm(ax[0] as number, nd);
  const a1 = norm(ax[1] as number, nd);
  const k = ((k0 % 4) + 4) % 4;
  const view = [...shape];
  const strides = denseStrides(shape);
  let base = 0;
  const flip = (i: number) => {
    base += ((view[i] as number) - 1) * (strides[i] as number);
    strides[i] = -(strides[i] as number);
  };
  const swap = () => {
    [view[a0], view[a1]] = [view[a1] as number, view[a0] as number];
    [strides[a0], strides[a1]] = [strides[a1] as number, strides[a0] as number];
  };
  if (k === 1) {
    flip(a1);
    swap();
  } else if (k === 2) {
    flip(a0);
    flip(a1);
  } else if (k === 3) {
    swap();
    flip(a1);
  }
  return { view, strides, base };
}

export function installNpShape(registry: OpRegistry, host: CudaHost): void {
  const reg = <A>(name: string, compute: (a: A, x: CudaBlob, out: CudaBlob, add: boolean) => void) => {
    if (!registry.has(name)) return;
    registry.registerKernel(
      name,
      CUDA,
      cudaKernel<A & Record<string, unknown>>(
        host,
        name,
        (a, [x], req, [out]) => {
          if (x === undefined || out === undefined || skip(req[0]) || out.size === 0) return;
          compute(a, x, out, isAdd(req[0]));
        },
        CUDA_DTYPES,
      ),
    );
  };
  const rt = () => host.rt;

  reg<RollAttrs>('_npi_roll', (a, x, out, add) => {
    const { view, maps } = rollPlan(a, x.shape);
    gatherAxes(rt(), '_npi_roll', x, out, view, withStrides(maps, view), add);
  });

  reg<{ k: number; axes: readonly number[] | null }>('_npi_rot90', (a, x, out, add) => {
    const v = rot90View(a.k, a.axes, x.shape);
    const maps = v.view.map((n, d) => ({ index: identity(n), stride: v.strides[d] as number }));
    gatherAxes(rt(), '_npi_rot90', x, out, v.view, maps, add, v.base);
  });

  reg<RepeatsAttrs>('_npi_repeats', (a, x, out, add) => {
    const { view, outView, maps } = repeatsPlan(a, x.shape);
    gatherAxes(rt(), '_npi_repeats', x, out, outView, withStrides(maps, view), add);
  });

  reg<RepeatsAttrs>('_backward_npi_repeats', (a, og, grad, add) => {
    const { view, outView, maps } = repeatsPlan(a, grad.shape);
    scatterAxes(rt(), '_backward_npi_repeats', og, outView, grad, view, maps, add);
  });

  reg<PadAttrs>('_npi_pad', (a, x, out, add) => {
    if (a.mode === 'maximum' || a.mode === 'minimum') {
      padStats(host, a, x, out, add);
      return;
    }
    const maps = withStrides(padMaps(a, x.shape), x.shape);
    gatherAxes(rt(), '_npi_pad', x, out, out.shape, maps, add, 0, a.constant_values);
  });

  reg<PadAttrs>('_backward_npi_pad', (a, og, grad, add) => {
    scatterAxes(rt(), '_backward_npi_pad', og, og.shape, grad, grad.shape, padMaps(a, grad.shape), add);
  });
}
