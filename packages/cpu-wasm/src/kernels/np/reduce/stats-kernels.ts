/**
 * cpu-wasm kernels of the np statistics ops: `_npi_std`/`_npi_var` and their backward ops,
 * `_npi_average` and `_backward_np_average`, `_npi_percentile`. TypeScript lane loops in float64
 * (two passes for the moments: mean, then squared deviations, as NumPy's `_var`), one rounding on
 * store. Data-dependent errors (weights summing to zero, q outside [0, 100]) are found in a first
 * pass, before any output is written.
 */
import { MXNetError } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { CpuWasmRuntime } from '../../../runtime.js';
import { type Blob, lanesOf, NP_REDUCE_TS_DTYPES, readF64, writeAll } from './io.js';

interface MomentsAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly ddof: number;
}
interface AverageAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly weighted: boolean;
}
interface PercentileAttrs extends Attrs {
  readonly axis: readonly number[] | null;
  readonly interpolation: 'linear' | 'lower' | 'higher' | 'midpoint' | 'nearest';
  readonly q_scalar: number | null;
}

const FLOATY = NP_REDUCE_TS_DTYPES;

/** Mean and (N - ddof)-normalised variance of every lane. */
function moments(v: Float64Array, kept: Int32Array, lane: Int32Array, ddof: number) {
  const n = lane.length;
  const mean = new Float64Array(kept.length);
  const vr = new Float64Array(kept.length);
  const div = Math.max(n - ddof, 0);
  for (let o = 0; o < kept.length; o++) {
    const b = kept[o] as number;
    let s = 0;
    for (let k = 0; k < n; k++) s += v[b + (lane[k] as number)] as number;
    const m = s / n;
    let q = 0;
    for (let k = 0; k < n; k++) {
      const d = (v[b + (lane[k] as number)] as number) - m;
      q += d * d;
    }
    mean[o] = m;
    vr[o] = q / div;
  }
  return { mean, vr, div };
}

/** NumPy 1.24's `_lerp`: a + (b - a) t, computed from b's side when t >= 0.5. */
const lerp = (a: number, b: number, t: number) => (t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t);

/** The q-th percentile (q in [0, 100]) of sorted values, NumPy 1.24's methods. */
export function percentileOf(
  sorted: Float64Array,
  q: number,
  method: PercentileAttrs['interpolation'],
): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (Number.isNaN(sorted[n - 1] as number)) return Number.NaN;
  const qq = q / 100;
  // NumPy's virtual index for these methods: (n - 1) · q.
  const idx = (n - 1) * qq;
  const clampI = (i: number) => Math.min(Math.max(i, 0), n - 1);
  if (method === 'nearest') {
    // numpy.around: round half to even.
    const f = Math.floor(idx);
    const d = idx - f;
    const r = d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
    return sorted[clampI(r)] as number;
  }
  const lo = clampI(Math.floor(idx));
  const hi = clampI(lo + 1);
  const frac = idx - Math.floor(idx);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  switch (method) {
    case 'lower':
      return a;
    case 'higher':
      return frac > 0 ? b : a;
    case 'midpoint':
      return frac > 0 ? lerp(a, b, 0.5) : a;
    default:
      return idx >= n - 1 ? (sorted[n - 1] as number) : idx <= 0 ? (sorted[0] as number) : lerp(a, b, frac);
  }
}

export function installNpStats(registry: OpRegistry, rt: CpuWasmRuntime): void {
  for (const [name, isStd] of [
    ['_npi_std', true],
    ['_npi_var', false],
  ] as const) {
    registry.registerKernel<MomentsAttrs>(name, 'cpu-wasm', {
      dtypes: FLOATY,
      compute(attrs, _ctx, inputs, req, outputs) {
        const x = inputs[0] as Blob;
        const v = readF64(rt, x);
        const { kept, lane } = lanesOf(x.shape, attrs.axis);
        const { mean, vr } = moments(v, kept, lane, attrs.ddof);
        const out = isStd ? vr.map(Math.sqrt) : vr;
        writeAll(rt, outputs[0] as Blob, req[0] as OpReqType, out, name);
        if ((req[1] ?? OpReq.null) !== OpReq.null)
          writeAll(rt, outputs[1] as Blob, req[1] as OpReqType, mean, name);
      },
    });
    const back = isStd ? '_backward_npi_std' : '_backward_npi_var';
    registry.registerKernel<MomentsAttrs>(back, 'cpu-wasm', {
      dtypes: FLOATY,
      compute(attrs, _ctx, inputs, req, outputs) {
        const [og, x, out, mu] = inputs as readonly Blob[];
        const dx = outputs[0] as Blob;
        const r = req[0] as OpReqType;
        if (r === OpReq.null || dx.size === 0) return;
        const v = readF64(rt, x as Blob);
        const g = readF64(rt, og as Blob);
        const s = readF64(rt, out as Blob);
        const m = readF64(rt, mu as Blob);
        const { kept, lane } = lanesOf((x as Blob).shape, attrs.axis);
        const div = Math.max(lane.length - attrs.ddof, 0);
        const res = new Float64Array(dx.size);
        for (let o = 0; o < kept.length; o++) {
          const b = kept[o] as number;
          const c = isStd ? (g[o] as number) / (div * (s[o] as number)) : (2 * (g[o] as number)) / div;
          for (let k = 0; k < lane.length; k++) {
            const p = b + (lane[k] as number);
            res[p] = c * ((v[p] as number) - (m[o] as number));
          }
        }
        writeAll(rt, dx, r, res, back);
      },
    });
  }

  /** Lanes, values, weights (per element) and the per-lane sums of an average. */
  const averaged = (attrs: AverageAttrs, a: Blob, w: Blob | undefined) => {
    const v = readF64(rt, a);
    const { kept, lane } = lanesOf(a.shape, attrs.axis);
    const wv = w === undefined ? undefined : readF64(rt, w);
    const oneD = w !== undefined && w.shape.length !== a.shape.length;
    const weight = (o: number, k: number) =>
      wv === undefined
        ? 1
        : oneD
          ? (wv[k] as number)
          : (wv[(kept[o] as number) + (lane[k] as number)] as number);
    const avg = new Float64Array(kept.length);
    const sw = new Float64Array(kept.length);
    for (let o = 0; o < kept.length; o++) {
      const b = kept[o] as number;
      let s = 0;
      let t = 0;
      for (let k = 0; k < lane.length; k++) {
        const wk = weight(o, k);
        s += (v[b + (lane[k] as number)] as number) * wk;
        t += wk;
      }
      avg[o] = s / t;
      sw[o] = t;
    }
    return { v, kept, lane, weight, avg, sw, oneD };
  };

  registry.registerKernel<AverageAttrs>('_npi_average', 'cpu-wasm', {
    dtypes: FLOATY,
    compute(attrs, _ctx, inputs, req, outputs) {
      const a = inputs[0] as Blob;
      const w = attrs.weighted ? (inputs[1] as Blob) : undefined;
      const { avg, sw } = averaged(attrs, a, w);
      if (w !== undefined && sw.some((t) => t === 0)) {
        throw new MXNetError("Weights sum to zero, can't be normalized", {
          op: '_npi_average',
          shapes: [a.shape, w.shape],
          device: 'cpu-wasm',
          hint: 'give every averaged lane weights with a non-zero sum',
        });
      }
      writeAll(rt, outputs[0] as Blob, req[0] as OpReqType, avg, '_npi_average');
      if ((req[1] ?? OpReq.null) !== OpReq.null)
        writeAll(rt, outputs[1] as Blob, req[1] as OpReqType, sw, '_npi_average');
    },
  });

  registry.registerKernel<AverageAttrs>('_backward_np_average', 'cpu-wasm', {
    dtypes: FLOATY,
    compute(attrs, _ctx, inputs, req, outputs) {
      const og = readF64(rt, inputs[0] as Blob);
      const ogs = readF64(rt, inputs[1] as Blob);
      const a = inputs[2] as Blob;
      const w = attrs.weighted ? (inputs[3] as Blob) : undefined;
      const { v, kept, lane, weight, avg, sw, oneD } = averaged(attrs, a, w);
      const da = new Float64Array(a.size);
      const dw = new Float64Array(w?.size ?? 0);
      for (let o = 0; o < kept.length; o++) {
        const b = kept[o] as number;
        const g = (og[o] as number) / (sw[o] as number);
        for (let k = 0; k < lane.length; k++) {
          const p = b + (lane[k] as number);
          da[p] = g * weight(o, k);
          if (w !== undefined) {
            const q = oneD ? k : p;
            dw[q] = (dw[q] as number) + g * ((v[p] as number) - (avg[o] as number)) + (ogs[o] as number);
          }
        }
      }
      writeAll(rt, outputs[0] as Blob, req[0] as OpReqType, da, '_backward_np_average');
      if (w !== undefined) writeAll(rt, outputs[1] as Blob, req[1] as OpReqType, dw, '_backward_np_average');
    },
  });

  registry.registerKernel<PercentileAttrs>('_npi_percentile', 'cpu-wasm', {
    dtypes: FLOATY,
    compute(attrs, _ctx, inputs, req, outputs) {
      const a = inputs[0] as Blob;
      const y = outputs[0] as Blob;
      const qs = attrs.q_scalar === null ? Array.from(readF64(rt, inputs[1] as Blob)) : [attrs.q_scalar];
      if (qs.some((q) => !(q >= 0 && q <= 100))) {
        throw new MXNetError('Percentiles must be in the range [0, 100]', {
          op: '_npi_percentile',
          device: 'cpu-wasm',
          hint: 'pass q in [0, 100] (quantile: [0, 1])',
        });
      }
      const v = readF64(rt, a);
      const { kept, lane } = lanesOf(a.shape, attrs.axis);
      const res = new Float64Array(qs.length * kept.length);
      const buf = new Float64Array(lane.length);
      for (let o = 0; o < kept.length; o++) {
        const b = kept[o] as number;
        for (let k = 0; k < lane.length; k++) buf[k] = v[b + (lane[k] as number)] as number;
        buf.sort(); // typed-array sort: ascending, NaN last
        qs.forEach((q, i) => {
          res[i * kept.length + o] = percentileOf(buf, q, attrs.interpolation);
        });
      }
      writeAll(rt, y, req[0] as OpReqType, res, '_npi_percentile');
    },
  });
}
