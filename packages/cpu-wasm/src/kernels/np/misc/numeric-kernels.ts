/**
 * cpu-wasm kernels of the np small numerics: the windows (MXNet 2.0's formulas in double, cast
 * once), `_npi_polyval` (Horner) and its gradient (d/dx = p'(x)·g, d/dp_i = Σ x^(deg-i)·g; float
 * only, as MXNet's), `_npi_ediff1d` and its gradient (the ograd slices of to_begin/to_end go back
 * to their inputs; element i of the data gets g[i-1] - g[i] of the differences), and `_npi_interp`
 * (NumPy's interp: binary search for the interval, exact `fp[j]` where x hits `xp[j]`; with
 * `period`, x and xp are taken modulo the period, sorted, and padded one point each side).
 */
import type { OpContext, OpRegistry, OpReqType, TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { FLOAT_DTYPES, read, write } from './io.js';

type Compute<A> = (
  a: A,
  ctx: OpContext,
  i: readonly TBlob[],
  req: readonly OpReqType[],
  o: readonly TBlob[],
) => void;

const WINDOWS: Record<string, (i: number, m: number) => number> = {
  _npi_hanning: (i, m) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (m - 1)),
  _npi_hamming: (i, m) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (m - 1)),
  _npi_blackman: (i, m) =>
    0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (m - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (m - 1)),
};

interface EdiffAttrs {
  readonly to_begin_arr_given: boolean;
  readonly to_end_arr_given: boolean;
  readonly to_begin_scalar: number | null;
  readonly to_end_scalar: number | null;
}

interface InterpAttrs {
  readonly left: number | null;
  readonly right: number | null;
  readonly period: number | null;
  readonly x_scalar: number;
  readonly x_is_scalar: boolean;
}

/** NumPy's interp of one point against increasing `xp` (length ≥ 1). */
function interpAt(
  x: number,
  xp: ArrayLike<number>,
  fp: ArrayLike<number>,
  left: number,
  right: number,
): number {
  const n = xp.length;
  if (Number.isNaN(x)) return x;
  if (x < (xp[0] as number)) return left;
  if (x > (xp[n - 1] as number)) return right;
  // Largest j with xp[j] <= x.
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (x >= (xp[mid] as number)) lo = mid;
    else hi = mid - 1;
  }
  const j = lo;
  if (j === n - 1 || x === xp[j]) return fp[j] as number;
  const x0 = xp[j] as number;
  const x1 = xp[j + 1] as number;
  const slope = ((fp[j + 1] as number) - (fp[j] as number)) / (x1 - x0);
  let r = slope * (x - x0) + (fp[j] as number);
  if (Number.isNaN(r)) {
    r = slope * (x - x1) + (fp[j + 1] as number);
    if (Number.isNaN(r) && fp[j] === fp[j + 1]) r = fp[j] as number;
  }
  return r;
}

export function installNumericKernels(registry: OpRegistry, rt: CpuWasmRuntime): void {
  const def = <A>(name: string, compute: Compute<A>) =>
    registry.registerKernel<A & Record<string, unknown>>(name, 'cpu-wasm', { compute: compute as never });

  for (const [name, f] of Object.entries(WINDOWS)) {
    def<{ M: number | null }>(name, (a, _c, _i, req, o) => {
      const out = o[0] as TBlob;
      const m = a.M ?? 0;
      write(
        rt,
        name,
        out,
        req[0] as OpReqType,
        Array.from({ length: out.size }, (_, i) => (m === 1 ? 1 : f(i, m))),
      );
    });
  }

  def('_npi_polyval', (_a, _c, i, req, o) => {
    const p = read(rt, '_npi_polyval', i[0] as TBlob);
    const x = read(rt, '_npi_polyval', i[1] as TBlob);
    const out = x.map((v) => {
      let s = 0;
      for (let k = 0; k < p.length; k++) s = s * v + (p[k] as number);
      return s;
    });
    write(rt, '_npi_polyval', o[0] as TBlob, req[0] as OpReqType, out);
  });

  def('_npi_backward_polyval', (_a, _c, i, req, o) => {
    const g = read(rt, '_npi_backward_polyval', i[0] as TBlob, FLOAT_DTYPES);
    const p = read(rt, '_npi_backward_polyval', i[1] as TBlob, FLOAT_DTYPES);
    const x = read(rt, '_npi_backward_polyval', i[2] as TBlob, FLOAT_DTYPES);
    const deg = p.length - 1;
    const gp = new Float64Array(p.length);
    const gx = new Float64Array(x.length);
    for (let e = 0; e < x.length; e++) {
      const v = x[e] as number;
      const ge = g[e] as number;
      let d = 0;
      for (let k = 0; k < deg; k++) d = d * v + (p[k] as number) * (deg - k);
      gx[e] = d * ge;
      let pw = 1;
      for (let k = deg; k >= 0; k--) {
        gp[k] = (gp[k] as number) + pw * ge;
        pw *= v;
      }
    }
    write(rt, '_npi_backward_polyval', o[0] as TBlob, req[0] as OpReqType, gp, FLOAT_DTYPES);
    write(rt, '_npi_backward_polyval', o[1] as TBlob, req[1] as OpReqType, gx, FLOAT_DTYPES);
  });

  def<EdiffAttrs>('_npi_ediff1d', (a, _c, i, req, o) => {
    const x = read(rt, '_npi_ediff1d', i[0] as TBlob);
    let next = 1;
    const begin = a.to_begin_arr_given
      ? Array.from(read(rt, '_npi_ediff1d', i[next++] as TBlob))
      : a.to_begin_scalar !== null
        ? [a.to_begin_scalar]
        : [];
    const end = a.to_end_arr_given
      ? Array.from(read(rt, '_npi_ediff1d', i[next] as TBlob))
      : a.to_end_scalar !== null
        ? [a.to_end_scalar]
        : [];
    const diffs = Array.from(
      { length: Math.max(x.length - 1, 0) },
      (_, k) => (x[k + 1] as number) - (x[k] as number),
    );
    write(rt, '_npi_ediff1d', o[0] as TBlob, req[0] as OpReqType, [...begin, ...diffs, ...end]);
  });

  def<EdiffAttrs>('_npi_backward_ediff1d', (a, _c, i, req, o) => {
    const g = read(rt, '_npi_backward_ediff1d', i[0] as TBlob, FLOAT_DTYPES);
    const n = (i[1] as TBlob).size;
    let next = 2;
    const b = a.to_begin_arr_given ? (i[next++] as TBlob).size : a.to_begin_scalar !== null ? 1 : 0;
    const gx = Array.from({ length: n }, (_, k) => {
      const before = k > 0 ? (g[b + k - 1] as number) : 0;
      const after = k < n - 1 ? (g[b + k] as number) : 0;
      return before - after;
    });
    write(rt, '_npi_backward_ediff1d', o[0] as TBlob, req[0] as OpReqType, gx, FLOAT_DTYPES);
    let out = 1;
    if (a.to_begin_arr_given)
      write(
        rt,
        '_npi_backward_ediff1d',
        o[out++] as TBlob,
        req[1] as OpReqType,
        g.subarray(0, b),
        FLOAT_DTYPES,
      );
    if (a.to_end_arr_given) {
      const start = b + Math.max(n - 1, 0);
      write(
        rt,
        '_npi_backward_ediff1d',
        o[out] as TBlob,
        req[out] as OpReqType,
        g.subarray(start),
        FLOAT_DTYPES,
      );
    }
  });

  def<InterpAttrs>('_npi_interp', (a, _c, i, req, o) => {
    let xp = Array.from(read(rt, '_npi_interp', i[0] as TBlob, FLOAT_DTYPES));
    let fp = Array.from(read(rt, '_npi_interp', i[1] as TBlob, FLOAT_DTYPES));
    let xs = a.x_is_scalar ? [a.x_scalar] : Array.from(read(rt, '_npi_interp', i[2] as TBlob, FLOAT_DTYPES));
    let left = a.left ?? (fp[0] as number);
    let right = a.right ?? (fp[fp.length - 1] as number);
    if (a.period !== null) {
      const period = Math.abs(a.period);
      const mod = (v: number) => ((v % period) + period) % period;
      xs = xs.map(mod);
      const order = xp.map((v, k) => [mod(v), k] as const).sort((p, q) => p[0] - q[0]);
      const sx = order.map((e) => e[0]);
      const sf = order.map((e) => fp[e[1]] as number);
      xp = [(sx[sx.length - 1] as number) - period, ...sx, (sx[0] as number) + period];
      fp = [sf[sf.length - 1] as number, ...sf, sf[0] as number];
      left = fp[0] as number;
      right = fp[fp.length - 1] as number;
    }
    write(
      rt,
      '_npi_interp',
      o[0] as TBlob,
      req[0] as OpReqType,
      xs.map((x) => interpAt(x, xp, fp, left, right)),
      FLOAT_DTYPES,
    );
  });
}
